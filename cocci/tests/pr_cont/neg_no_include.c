// Rule 2 must not convert a file whose only include is conditional:
// there is nowhere safe to add <linux/seq_buf.h>.
#ifdef CONFIG_DEMO
#include <linux/printk.h>
#endif

static void dump_values(const int *v, int n)
{
	int i;

	pr_info("values:");
	for (i = 0; i < n; i++)
		pr_cont(" %d", v[i]);
	pr_cont("\n");
}
