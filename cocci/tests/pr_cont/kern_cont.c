// Rule 1: the printk(KERN_CONT ...) spellings found in the tree.
#include <linux/printk.h>

static void kern_cont_variants(int x, const char *name)
{
	printk(KERN_INFO "state:");
	printk(KERN_CONT " %d", x);
	printk (KERN_CONT " %s", name);
	printk(KERN_CONT
	       " (%d)", x);
	printk(KERN_CONT " a" " b");
	printk(KERN_CONT " c"
	       " d");
	printk(KERN_CONT);
	printk(KERN_CONT "\n");
}
