/* nbrun — the receive drops an interface's driver counts and no sysfs counter holds, from its
 * `ethtool -S` statistics (SIOCETHTOOL: ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS of ETH_SS_STATS,
 * ETHTOOL_GSTATS), for the loss budget's receiver interface (lossstats.h). Only names a driver
 * does not already fold into rx_dropped are taken, so no drop is counted twice, and only of a
 * driver whose counters were checked (veth, drivers/net/veth.c veth_get_stats64): its
 * rx_queue_<n>_xdp_drops (an XDP program's XDP_DROP verdicts); its rx_queue_<n>_drops,
 * xdp_tx_errors and xdp_xmit_errors are in its rx_dropped / tx_dropped already. */
#ifndef NB_ETHTOOL_DROPS_H
#define NB_ETHTOOL_DROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The sum of values[i] whose name (n names of ETH_GSTRING_LEN bytes each, as ETHTOOL_GSTRINGS
 *  gives them) is a driver-only receive drop. Pure: the unit tests' way in. */
uint64_t nb_ethtool_drops_pick(const char *names, size_t n, const uint64_t *values);
/** Those drops of interface ifname into *drops; false when its driver is not one checked (lo,
 *  a tunnel, a NIC whose names may repeat rx_dropped) or they cannot be read. */
bool nb_ethtool_drops_read(const char *ifname, uint64_t *drops);

#endif
