/* nbrun — one counter of an interface's sysfs statistics folder. */
#ifndef NB_IFCOUNTER_H
#define NB_IFCOUNTER_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_error.h"

/** The default root of the per-interface folders. */
#define NB_IFSTATS_ROOT "/sys/class/net"

/** One counter ROOT/IFNAME/statistics/NAME (root NULL = /sys/class/net): decimal digits and a
 *  newline, nothing else; *v untouched on failure. */
bool nb_ifstats_counter(const char *root, const char *ifname, const char *name, uint64_t *v,
			struct nb_error *err);

#endif
