/* nbrun — interface facts that only the live kernel answers: the ethtool ioctls
 * (driver, link, offloads, channels) and the root qdisc (over rtnetlink, kpace.c). */
#include "env.h"
#include "env_read.h"
#include "kpace.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define G "iface"

/* One ethtool ioctl on a throwaway socket; 0 or an errno. */
static int ethtool(const char *ifname, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	int rc = ioctl(fd, SIOCETHTOOL, &ifr) ? errno : 0;
	close(fd);
	return rc;
}

static const char *ioctl_reason(int err, const char *what, char *buf, size_t len)
{
	if (err == EOPNOTSUPP)
		snprintf(buf, len, "driver does not report %s", what);
	else if (err == EPERM || err == EACCES)
		snprintf(buf, len, "permission denied (ethtool %s)", what);
	else
		snprintf(buf, len, "ethtool %s: %s", what, strerror(err));
	return buf;
}

static bool str_fact(struct nb_facts *out, const char *key, const char *v)
{
	if (!v[0])
		return nb_facts_unknown(out, G, key, "driver reports none");
	return nb_facts_set(out, G, key, "%s", v);
}

bool nb_env_drvinfo(const char *ifname, struct nb_facts *out)
{
	struct ethtool_drvinfo d = { .cmd = ETHTOOL_GDRVINFO };
	char why[128];
	int err = ethtool(ifname, &d);
	if (err) {
		ioctl_reason(err, "driver info", why, sizeof(why));
		return nb_facts_unknown(out, G, "driver", "%s", why) &&
		       nb_facts_unknown(out, G, "driver_version", "%s", why) &&
		       nb_facts_unknown(out, G, "firmware", "%s", why) &&
		       nb_facts_unknown(out, G, "bus", "%s", why);
	}
	return str_fact(out, "driver", d.driver) && str_fact(out, "driver_version", d.version) &&
	       str_fact(out, "firmware", d.fw_version) && str_fact(out, "bus", d.bus_info);
}

/* ETHTOOL_GLINKSETTINGS: the first call learns the mask size, the second reads. */
bool nb_env_link(const char *ifname, struct nb_facts *out)
{
	struct {
		struct ethtool_link_settings s;
		uint32_t masks[3 * 127];
	} req;
	char why[128];
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	int err = ethtool(ifname, &req);
	if (!err && req.s.link_mode_masks_nwords < 0) {
		int8_t nwords = (int8_t)-req.s.link_mode_masks_nwords;
		memset(&req, 0, sizeof(req));
		req.s.cmd = ETHTOOL_GLINKSETTINGS;
		req.s.link_mode_masks_nwords = nwords;
		err = ethtool(ifname, &req);
	}
	if (err || req.s.link_mode_masks_nwords <= 0) {
		ioctl_reason(err ? err : EOPNOTSUPP, "link settings", why, sizeof(why));
		return nb_facts_unknown(out, G, "speed", "%s", why) &&
		       nb_facts_unknown(out, G, "duplex", "%s", why);
	}
	bool ok = req.s.speed == 0 || req.s.speed == (uint32_t)SPEED_UNKNOWN
			  ? nb_facts_unknown(out, G, "speed", "not reported (link down or virtual device)")
			  : nb_facts_set(out, G, "speed", "%u Mb/s", req.s.speed);
	if (req.s.duplex == DUPLEX_FULL || req.s.duplex == DUPLEX_HALF)
		return ok && nb_facts_set(out, G, "duplex", "%s",
					  req.s.duplex == DUPLEX_FULL ? "full" : "half");
	return ok && nb_facts_unknown(out, G, "duplex", "not reported (link down or virtual device)");
}

bool nb_env_channels(const char *ifname, struct nb_facts *out)
{
	struct ethtool_channels c = { .cmd = ETHTOOL_GCHANNELS };
	char why[128];
	int err = ethtool(ifname, &c);
	if (err)
		return nb_facts_unknown(out, G, "channels", "%s",
					ioctl_reason(err, "channels", why, sizeof(why)));
	return nb_facts_set(out, G, "channels", "rx %u, tx %u, combined %u (max combined %u)",
			    c.rx_count, c.tx_count, c.combined_count, c.max_combined);
}

/* The kernel's feature names, ETH_GSTRING_LEN bytes each; count in *n. */
static char *feature_names(const char *ifname, uint32_t *n, int *err)
{
	struct {
		struct ethtool_sset_info i;
		uint32_t len;
	} info = { .i = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_FEATURES } };
	if ((*err = ethtool(ifname, &info)))
		return NULL;
	*n = info.i.sset_mask ? info.len : 0;
	struct ethtool_gstrings *g = calloc(1, sizeof(*g) + (size_t)*n * ETH_GSTRING_LEN);
	if (!g) {
		*err = ENOMEM;
		return NULL;
	}
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_FEATURES;
	g->len = *n;
	if ((*err = ethtool(ifname, g))) {
		free(g);
		return NULL;
	}
	char *names = malloc((size_t)*n * ETH_GSTRING_LEN + 1);
	if (names)
		memcpy(names, g->data, (size_t)*n * ETH_GSTRING_LEN);
	*err = names ? 0 : ENOMEM;
	free(g);
	return names;
}

/* ethtool -k's offload names and the kernel features behind each: on when any is active,
 * fixed when none can be changed. */
static const struct {
	const char *key;
	const char *features[5];
} offloads[] = {
	{ "offload.tso", { "tx-tcp-segmentation", "tx-tcp-ecn-segmentation",
			   "tx-tcp-mangleid-segmentation", "tx-tcp6-segmentation" } },
	{ "offload.gso", { "tx-generic-segmentation" } },
	{ "offload.gro", { "rx-gro" } },
	{ "offload.lro", { "rx-lro" } },
	{ "offload.rx_csum", { "rx-checksum" } },
	{ "offload.tx_csum", { "tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6",
			       "tx-checksum-fcoe-crc", "tx-checksum-sctp" } },
	{ "offload.sg", { "tx-scatter-gather" } },
};
#define NOFFLOADS (sizeof(offloads) / sizeof(offloads[0]))

static bool offload_fact(struct nb_facts *out, size_t o, const char *names, uint32_t n,
			 const struct ethtool_get_features_block *b)
{
	bool seen = false, on = false, fixed = true;
	for (size_t k = 0; k < 5 && offloads[o].features[k]; k++)
		for (uint32_t i = 0; i < n; i++) {
			if (strncmp(names + (size_t)i * ETH_GSTRING_LEN, offloads[o].features[k],
				    ETH_GSTRING_LEN))
				continue;
			uint32_t bit = 1u << (i % 32);
			const struct ethtool_get_features_block *x = &b[i / 32];
			seen = true;
			on |= (x->active & bit) != 0;
			fixed &= !(x->available & bit) || (x->never_changed & bit);
		}
	if (!seen)
		return nb_facts_unknown(out, G, offloads[o].key, "kernel has no feature %s",
					offloads[o].features[0]);
	return nb_facts_set(out, G, offloads[o].key, "%s%s", on ? "on" : "off", fixed ? " [fixed]" : "");
}

bool nb_env_offloads(const char *ifname, struct nb_facts *out)
{
	uint32_t n = 0;
	int err;
	char why[128];
	char *names = feature_names(ifname, &n, &err);
	uint32_t blocks = (n + 31) / 32;
	struct ethtool_gfeatures *gf = names ? calloc(1, sizeof(*gf) + blocks * sizeof(gf->features[0]))
					     : NULL;
	if (gf) {
		gf->cmd = ETHTOOL_GFEATURES;
		gf->size = blocks;
		err = ethtool(ifname, gf);
	} else if (names) {
		err = ENOMEM;
	}
	bool ok = true;
	ioctl_reason(err, "features", why, sizeof(why));
	for (size_t o = 0; ok && o < NOFFLOADS; o++)
		ok = err ? nb_facts_unknown(out, G, offloads[o].key, "%s", why)
			 : offload_fact(out, o, names, n, gf->features);
	free(gf);
	free(names);
	return ok;
}

bool nb_env_qdisc(const char *ifname, struct nb_facts *out)
{
	char root[32] = "", child[32] = "";
	int ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return nb_facts_unknown(out, G, "qdisc", "no interface %s", ifname);
	int err = nb_qdisc_kinds(ifindex, root, child, sizeof(root));
	if (err)
		return nb_facts_unknown(out, G, "qdisc", "rtnetlink qdisc dump: %s", strerror(err));
	if (!root[0])
		return nb_facts_unknown(out, G, "qdisc", "no root qdisc reported");
	if (child[0])
		return nb_facts_set(out, G, "qdisc", "%s (children %s)", root, child);
	return nb_facts_set(out, G, "qdisc", "%s", root);
}
