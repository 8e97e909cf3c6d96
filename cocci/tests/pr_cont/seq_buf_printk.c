// Rule 2 after rule 1: printk(KERN_<LEVEL> ...) openers, KERN_CONT
// pieces, an opener without text and a format split over literals.
#include <linux/printk.h>
#include <linux/slab.h>
#include <asm/apic.h>

static void dump_handlers(struct irq_desc *desc)
{
	struct irqaction *action;

	for_each_action_of_desc(desc, action) {
		printk(KERN_ERR "[<%p>] %ps", action->handler, action->handler);
		if (action->thread_fn)
			printk(KERN_CONT " threaded [<%p>] %ps",
			       action->thread_fn, action->thread_fn);
		printk(KERN_CONT "\n");
	}
}

static void dump_field(int base)
{
	int i;

	printk(KERN_DEBUG);
	for (i = 0; i < 8; i++)
		pr_cont("%08x", apic_read(base + i * 0x10));
	pr_cont("\n");
}

static void dump_split(int a, int b)
{
	pr_warn("split" " format:");
	pr_cont(" a=%d"
		" b=%d\n", a, b);
}
