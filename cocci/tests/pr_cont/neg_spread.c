// Rule 2 must not touch a line built across functions: a helper called
// as a statement continues the caller's line, and a function that only
// continues a line has no opener. Rule 1 still applies.
#include <linux/printk.h>

static void print_flags(unsigned long flags)
{
	if (flags & 1)
		pr_cont(" busy");
	if (flags & 2)
		printk(KERN_CONT " dirty");
}

static void show_state(unsigned long flags)
{
	pr_info("state:");
	print_flags(flags);
	pr_cont("\n");
}

static void end_line(void)
{
	pr_cont("\n");
}
