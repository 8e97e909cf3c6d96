// spatch --include, as scripts/coccicheck passes kconfig.h, must not
// make rule 2 place <linux/seq_buf.h> after an include of that header,
// and -D line_buf_size=N sizes the buffer.
#include <linux/printk.h>

static void list_keys(const char * const *names, int n)
{
	int i;

	pr_info("keys:");
	for (i = 0; i < n; i++)
		pr_cont(" %s", names[i]);
	pr_cont("\n");
}
