/* The driver's own receive drops of an interface, from its `ethtool -S` statistics (ethtool_drops.h). */
#include "ethtool_drops.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* "rx_queue_<n>_xdp_drops": an XDP program's XDP_DROP verdicts on a receive queue of veth,
 * which no sysfs counter holds. The drivers' other drop-like names are sums the
 * driver already folds into rx_dropped or tx_dropped (veth's rx_queue_<n>_drops,
 * xdp_tx_errors, xdp_xmit_errors): counting them again would count a drop twice. */
static bool driver_only_rx_drop(const char *name)
{
	static const char head[] = "rx_queue_", tail[] = "_xdp_drops";
	size_t n = strlen(name), h = sizeof(head) - 1, t = sizeof(tail) - 1;
	if (n <= h + t || strncmp(name, head, h) != 0 || strcmp(name + n - t, tail) != 0)
		return false;
	for (size_t i = h; i < n - t; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

uint64_t nb_ethtool_drops_pick(const char *names, size_t n, const uint64_t *values)
{
	uint64_t sum = 0;
	char name[ETH_GSTRING_LEN + 1];
	for (size_t i = 0; i < n; i++) {
		memcpy(name, names + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (driver_only_rx_drop(name))
			sum += values[i];
	}
	return sum;
}

/* One SIOCETHTOOL request on ifname. */
static bool ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) == 0;
}

bool nb_ethtool_drops_read(const char *ifname, uint64_t *drops)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	bool ok = false;
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_sset_info *info = calloc(1, sizeof(*info) + sizeof(uint32_t));
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	/* only a driver whose counters were checked against its rx_dropped */
	if (!info || !ethtool(fd, ifname, &drv) || strcmp(drv.driver, "veth") != 0)
		goto out;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_STATS;
	if (!ethtool(fd, ifname, info) || !(info->sset_mask & (1ull << ETH_SS_STATS)))
		goto out; /* no driver statistics (lo, a tunnel): nothing to read */
	uint32_t n = info->data[0];
	if (n == 0 || n > 65536)
		goto out;
	str = calloc(1, sizeof(*str) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	if (!str || !st)
		goto out;
	*str = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n };
	*st = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = n };
	if (!ethtool(fd, ifname, str) || !ethtool(fd, ifname, st) || str->len != n || st->n_stats != n)
		goto out;
	*drops = nb_ethtool_drops_pick((const char *)str->data, n,
				       (const uint64_t *)(const void *)st->data);
	ok = true;
out:
	free(info);
	free(str);
	free(st);
	close(fd);
	return ok;
}
