// Direct calls of vprintk_emit() and vprintk_store(), and taking the
// address of vprintk_emit(), outside kernel/printk/.
#include <linux/device.h>
#include <linux/printk.h>

int dev_vprintk_emit(int level, const struct device *dev,
		     const char *fmt, va_list args)
{
	struct dev_printk_info dev_info;

	set_dev_info(dev, &dev_info);

	return vprintk_emit(0, level, &dev_info, fmt, args);
}
EXPORT_SYMBOL(dev_vprintk_emit);

static int store_only(const char *fmt, va_list args)
{
	return vprintk_store(0, LOGLEVEL_DEFAULT, NULL, fmt, args);
}

static int (*emit_hook)(int, int, const struct dev_printk_info *,
			const char *, va_list) = vprintk_emit;
