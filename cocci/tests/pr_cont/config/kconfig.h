/* Stands for include/linux/kconfig.h, which coccicheck passes to spatch. */
#include <generated/autoconf.h>
