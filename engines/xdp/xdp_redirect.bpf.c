/* nbrun — the XDP program of the AF_XDP data path: redirect the test's UDP flows, and nothing
 * else, to the AF_XDP socket of the queue they arrived on.
 *
 * A frame is a test frame when it is Ethernet (one 802.1Q/802.1ad tag allowed), IPv4 without
 * options-parsing surprises (any IHL >= 5) and not a fragment, or IPv6 whose next header is
 * UDP itself, and its UDP destination port is inside nb_cfg's range (and, with cfg.exact, one
 * of the ports nb_ports names). Everything else — ARP,
 * neighbour discovery, SSH, the control connection, other UDP ports, fragments, IPv6 with
 * extension headers — goes to the kernel's stack untouched (XDP_PASS). A test frame on a queue
 * with no socket in nb_xsks is passed as well (bpf_redirect_map's default action), so the
 * program never drops anything. The loader sets the ports after loading (nb_cfg is zero, and
 * the program passes everything, until then) and sizes nb_xsks to the interface's queues.
 *
 * Built at build time with clang -target bpf and embedded in the binary (xdp_embed.py).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_cfg.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);         /* the loader sets the interface's queue count */
	__type(key, __u32);
	__type(value, __u32);
} nb_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nb_xdp_cfg);
} nb_cfg SEC(".maps");

/* With cfg.exact, the test's ports as bits (port >> 5, bit port & 31): flows whose ports are
 * not adjacent (a client's ephemeral ports) leave the ports between them to the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NB_XDP_PORT_WORDS);
	__type(key, __u32);
	__type(value, __u32);
} nb_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NB_XDP_STAT_N);
	__type(key, __u32);
	__type(value, __u64);
} nb_stats SEC(".maps");

struct vlan_tag {
	__be16 tci;
	__be16 proto;
};

static __always_inline int count(__u32 stat, int action)
{
	__u64 *c = bpf_map_lookup_elem(&nb_stats, &stat);
	if (c)
		*c += 1;
	return action;
}

/* The UDP header of a test candidate, or NULL. */
static __always_inline struct udphdr *udp_of(void *data, void *end)
{
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > end)
		return NULL;
	__u16 proto = eth->h_proto;
	void *l3 = eth + 1;
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_tag *v = l3;
		if ((void *)(v + 1) > end)
			return NULL;
		proto = v->proto;
		l3 = v + 1;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;
		if ((void *)(ip + 1) > end || ip->ihl < 5 || ip->protocol != IPPROTO_UDP)
			return NULL;
		if (ip->frag_off & bpf_htons(0x3fff)) /* MF or an offset: a fragment */
			return NULL;
		struct udphdr *udp = (void *)ip + ip->ihl * 4;
		return (void *)(udp + 1) > end ? NULL : udp;
	}
	if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;
		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return NULL;
		struct udphdr *udp = (void *)(ip6 + 1);
		return (void *)(udp + 1) > end ? NULL : udp;
	}
	return NULL;
}

SEC("xdp")
int nb_xdp_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 zero = 0;
	struct nb_xdp_cfg *cfg = bpf_map_lookup_elem(&nb_cfg, &zero);
	struct udphdr *udp = udp_of(data, end);
	if (!cfg || !cfg->enabled || !udp)
		return count(NB_XDP_STAT_PASSED, XDP_PASS);
	__u16 port = bpf_ntohs(udp->dest);
	if (port < cfg->port_lo || port > cfg->port_hi)
		return count(NB_XDP_STAT_PASSED, XDP_PASS);
	if (cfg->exact) {
		__u32 word = port >> 5;
		__u32 *bits = bpf_map_lookup_elem(&nb_ports, &word);
		if (!bits || !((*bits >> (port & 31)) & 1))
			return count(NB_XDP_STAT_PASSED, XDP_PASS);
	}
	int action = bpf_redirect_map(&nb_xsks, ctx->rx_queue_index, XDP_PASS);
	return count(action == XDP_REDIRECT ? NB_XDP_STAT_REDIRECTED : NB_XDP_STAT_NO_SOCKET, action);
}

char _license[] SEC("license") = "Dual BSD/GPL";
