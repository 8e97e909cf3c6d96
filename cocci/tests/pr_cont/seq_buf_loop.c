// Rule 2: the common shape, an opener, pr_cont() in a loop, a closer.
#define pr_fmt(fmt) "demo: " fmt

#include <linux/kernel.h>
#include <linux/printk.h>

static void dump_values(const int *v, int n)
{
	int i;

	pr_info("values:");
	for (i = 0; i < n; i++)
		pr_cont(" %d", v[i]);
	pr_cont("\n");
}
