// Rule 2 must not convert functions that already use the names of the
// locals it adds, nor a file without an unconditional include to put
// <linux/seq_buf.h> after.
#include <linux/printk.h>

static void has_line(const int *v, int n, int line)
{
	int i;

	pr_info("line %d:", line);
	for (i = 0; i < n; i++)
		pr_cont(" %d", v[i]);
	pr_cont("\n");
}

static void has_line_buf(const char *s)
{
	char line_buf[16];

	pr_info("s:");
	pr_cont(" %s", strscpy(line_buf, s, sizeof(line_buf)) > 0 ? line_buf : "");
	pr_cont("\n");
}
