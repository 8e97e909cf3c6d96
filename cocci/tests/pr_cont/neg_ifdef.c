// Rule 2 must not convert a function whose body starts with #ifdef'd
// code: the added declarations would land under the condition.
#include <linux/printk.h>

static void decl_under_ifdef(const int *v, int n)
{
#ifdef CONFIG_DEMO
	int extra = 1;
#endif
	int i;

	pr_info("v:");
	for (i = 0; i < n; i++)
		pr_cont(" %d", v[i]);
	pr_cont("\n");
}

static void stmt_under_ifdef(int x)
{
#ifdef CONFIG_DEMO
	x++;
#endif
	pr_info("x:");
	pr_cont(" %d\n", x);
}
