// Rule 2: a line inside a branch with break and continue in its loop,
// two lines in a function without declarations, and a header that
// includes <linux/seq_buf.h> already.
#include <linux/printk.h>
#include <linux/seq_buf.h>

void report_bad(int err, const unsigned char *code, int n)
{
	int i;

	if (err) {
		pr_err("code:");
		for (i = 0; i < n; i++) {
			if (i > 16)
				break;
			if (!code[i])
				continue;
			pr_cont(" %02x", code[i]);
		}
		pr_cont("\n");
	}
	pr_info("done\n");
}

void two_lines(int a, int b)
{
	pr_notice("a:");
	pr_cont(" %d\n", a);
	pr_crit("b:");
	if (b)
		pr_cont(" set");
	pr_cont("\n");
}
