// Rule 2 must not convert when not every path prints exactly the one
// line: a conditional opener, an early return, a goto past the closer,
// a closer repeated in a loop, several closers, a line break in the
// middle, another print in between, a pr_debug() opener, a closer
// without a newline and a format that is not a literal.
#include <linux/printk.h>

static void maybe_open(int x)
{
	if (x)
		pr_info("a");
	pr_cont("b\n");
}

static void early_return(int x)
{
	pr_info("a");
	if (x)
		return;
	pr_cont("b\n");
}

static int goto_out(int x)
{
	pr_info("a");
	if (x)
		goto out;
	pr_cont("b\n");
	return 0;
out:
	return -1;
}

static void closer_in_loop(int n)
{
	pr_info("a");
	do {
		pr_cont("b\n");
	} while (n--);
}

static void two_closers(int x)
{
	pr_info("mode:");
	if (x)
		pr_cont(" on\n");
	else
		pr_cont(" off\n");
}

static void break_in_middle(int n)
{
	int i;

	pr_info(" ");
	for (i = 0; i < n; i++) {
		if (i & 1)
			pr_cont("\n");
		pr_cont("%d ", i);
	}
	pr_cont("\n");
}

static void print_between(int x)
{
	pr_info("a");
	if (x)
		pr_warn("oops\n");
	pr_cont("b\n");
}

static void debug_opener(int x)
{
	pr_debug("x:");
	pr_cont(" %d\n", x);
}

static void no_newline(int x)
{
	pr_info("x:");
	pr_cont(" %d", x);
}

static void not_literal(const char *fmt, int x)
{
	pr_info("x:");
	pr_cont(fmt, x);
	pr_cont("\n");
}
