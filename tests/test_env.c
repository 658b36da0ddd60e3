/* Environment facts: every fact of a fixture /proc and /sys tree parsed to its exact value,
 * every "not exposed" path of a bare tree recorded with its reason, and the live kernel. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "fixture_util.h"
#include "ifstats.h"
#include "nb_config.h"

struct expect {
	const char *group, *key, *value;  /* value, or the reason when ok is false */
	bool ok;
};

static const char *fixture(const char *name)
{
	static char path[2][512];
	static int which;
	which ^= 1;
	return nbt_fixture_path(name, path[which], sizeof(path[which]));
}

static void check(const struct nb_facts *f, const struct expect *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct nb_fact *x = nb_facts_get(f, e[i].group, e[i].key);
		cr_assert_not_null(x, "missing fact %s.%s", e[i].group, e[i].key);
		cr_expect_eq(x->ok, e[i].ok, "%s.%s: ok=%d (%s)", e[i].group, e[i].key, x->ok, x->value);
		cr_expect_str_eq(x->value, e[i].value, "%s.%s", e[i].group, e[i].key);
	}
}

#define FIX "not available under a fixture root"

static const struct expect root_facts[] = {
	{ "host", "hostname", "fixture-host", true },
	{ "host", "kernel", "5.15.0-fixture", true },
	{ "host", "os", "Fixture Linux 1.0 (test)", true },
	{ "host", "virt.hypervisor", "yes (cpuinfo flag)", true },
	{ "host", "virt.dmi_vendor", "Amazon EC2", true },
	{ "host", "virt.dmi_product", "m6i.xlarge", true },
	{ "host", "virt.container", "kubepods (/proc/1/cgroup)", true },
	{ "host", "boot_time", "2023-11-14T22:13:20Z", true },
	{ "host", "clocksource", "tsc", true },
	{ "host", "time_sync", FIX, false },
	{ "cpu", "model", "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", true },
	{ "cpu", "threads", "4", true },
	{ "cpu", "sockets", "2", true },
	{ "cpu", "cores", "4", true },
	{ "cpu", "online", "0-3", true },
	{ "cpu", "online_count", "4", true },
	{ "cpu", "numa.nodes", "0-1", true },
	{ "cpu", "numa.node0.cpus", "0-1", true },
	{ "cpu", "numa.node1.cpus", "2-3", true },
	{ "cpu", "smt", "off", true },
	{ "cpu", "governor", "powersave", true },
	{ "cpu", "cpufreq.policy0.cpus", "0 1", true },
	{ "cpu", "cpufreq.policy0.governor", "powersave", true },
	{ "cpu", "cpufreq.policy0.cur", "1200 MHz", true },
	{ "cpu", "cpufreq.policy0.min", "800 MHz", true },
	{ "cpu", "cpufreq.policy0.max", "3500 MHz", true },
	{ "cpu", "loadavg", "0.50 0.25 0.10", true },
	{ "iface", "name", "eth0", true },
	{ "iface", "mtu", "9001", true },
	{ "iface", "operstate", "up", true },
	{ "iface", "tx_queue_len", "1000", true },
	{ "iface", "stats.rx_errors", "0", true },
	{ "iface", "stats.rx_dropped", "12", true },
	{ "iface", "stats.tx_errors", "1", true },
	{ "iface", "stats.tx_dropped", "3", true },
	{ "iface", "speed", "25000 Mb/s", true },
	{ "iface", "duplex", "full", true },
	{ "iface", "driver", FIX, false },
	{ "iface", "driver_version", FIX, false },
	{ "iface", "firmware", FIX, false },
	{ "iface", "bus", FIX, false },
	{ "iface", "offload.tso", FIX, false },
	{ "iface", "offload.gso", FIX, false },
	{ "iface", "offload.gro", FIX, false },
	{ "iface", "offload.lro", FIX, false },
	{ "iface", "offload.rx_csum", FIX, false },
	{ "iface", "offload.tx_csum", FIX, false },
	{ "iface", "offload.sg", FIX, false },
	{ "iface", "channels", FIX, false },
	{ "iface", "qdisc", FIX, false },
	{ "iface", "queues.rx", "4", true },
	{ "iface", "queues.tx", "4", true },
	{ "iface", "numa_node", "1", true },
	{ "iface", "irq.count", "5", true },
	{ "iface", "irq.numbers", "40-44", true },
	{ "iface", "irq.cpus", "0", true },
	{ "iface", "irq.affinity", "0-3", true },
	{ "tcp", "congestion_control", "cubic", true },
	{ "tcp", "congestion_available", "reno cubic", true },
	{ "tcp", "tcp_rmem", "4096 87380 6291456", true },
	{ "tcp", "tcp_wmem", "4096 16384 4194304", true },
	{ "tcp", "rmem_max", "212992", true },
	{ "tcp", "wmem_max", "212993", true },
	{ "tcp", "busy_poll", "50", true },
	{ "tcp", "busy_read", "0", true },
	{ "tcp", "netdev_max_backlog", "1000", true },
	{ "tcp", "ip_local_port_range", "32768 60999", true },
	{ "tcp", "tcp_timestamps", "1", true },
	{ "tcp", "tcp_sack", "1", true },
	{ "tcp", "conntrack", "loaded", true },
	{ "tcp", "conntrack_count", "42", true },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(env, fixture_tree_every_fact_parsed_exactly)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_env_collect_iface(fixture("env-root"), "eth0", &f));
	check(&f, root_facts, N(root_facts));
	cr_expect_eq(f.n, N(root_facts), "every fact collected is asserted (%zu vs %zu)", f.n,
		     N(root_facts));
	nb_facts_free(&f);
}

static const struct expect bare_facts[] = {
	{ "host", "hostname", "not exposed: no /proc/sys/kernel/hostname", false },
	{ "host", "os", "not exposed: no /etc/os-release", false },
	{ "host", "virt.hypervisor", "no CPU flags in /proc/cpuinfo", false },
	{ "host", "virt.dmi_vendor", "not exposed: no DMI tables (/sys/class/dmi/id)", false },
	{ "host", "virt.container", "not exposed: no /proc/1/cgroup", false },
	{ "host", "boot_time", "no btime in /proc/stat", false },
	{ "host", "clocksource",
	  "not exposed: no /sys/devices/system/clocksource/clocksource0/current_clocksource", false },
	{ "cpu", "model", "no model name in /proc/cpuinfo", false },
	{ "cpu", "threads", "1", true },
	{ "cpu", "sockets", "no physical id in /proc/cpuinfo", false },
	{ "cpu", "cores", "no core id in /proc/cpuinfo", false },
	{ "cpu", "numa.nodes", "not exposed: no /sys/devices/system/node (kernel without NUMA)", false },
	{ "cpu", "smt", "not exposed: no /sys/devices/system/cpu/smt (kernel without SMT control)", false },
	{ "cpu", "governor", "not exposed: no cpufreq in this VM", false },
	{ "cpu", "loadavg", "malformed /proc/loadavg: garbage", false },
	{ "iface", "mtu", "1500", true },
	{ "iface", "speed", "not reported (link down or virtual device)", false },
	{ "iface", "duplex", "not reported (link down or virtual device)", false },
	{ "iface", "operstate", "not exposed: no /sys/class/net/eth0/operstate", false },
	{ "iface", "queues.rx", "not exposed: no /sys/class/net/eth0/queues", false },
	{ "iface", "numa_node", "not exposed: no numa_node for eth0", false },
	{ "iface", "irq.count", "no IRQ of eth0 in /proc/interrupts (virtual device?)", false },
	{ "iface", "irq.cpus", "no IRQ of eth0 in /proc/interrupts (virtual device?)", false },
	{ "tcp", "congestion_control", "not exposed: no /proc/sys/net/ipv4/tcp_congestion_control", false },
	{ "tcp", "conntrack", "not loaded", true },
	{ "tcp", "conntrack_count", "conntrack not loaded", false },
};

Test(env, bare_tree_says_why_each_fact_is_missing)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_env_collect_iface(fixture("env-bare"), "eth0", &f));
	check(&f, bare_facts, N(bare_facts));
	for (size_t i = 0; i < f.n; i++)
		cr_expect(f.v[i].value[0], "%s.%s has neither a value nor a reason", f.v[i].group,
			  f.v[i].key);
	nb_facts_free(&f);
}

Test(env, virtual_device_and_no_numa_affinity_are_told_apart)
{
	static const struct expect e[] = {
		{ "iface", "numa_node", "virtual device (no /sys/class/net/dummy0/device)", false },
		{ "iface", "speed", "not exposed: no /sys/class/net/dummy0/speed", false },
	};
	static const struct expect e1[] = {
		{ "iface", "numa_node", "device has no NUMA affinity (numa_node -1)", false },
		{ "iface", "irq.count", "1", true },
		{ "iface", "irq.numbers", "50", true },
		{ "iface", "irq.cpus", "2", true },
		{ "iface", "irq.affinity", "no readable /proc/irq/N affinity", false },
	};
	struct nb_facts f, g;
	nb_facts_init(&f);
	nb_facts_init(&g);
	cr_assert(nb_env_iface(fixture("env-bare"), "dummy0", &f));
	check(&f, e, N(e));
	cr_assert(nb_env_iface(fixture("env-root"), "eth1", &g));
	check(&g, e1, N(e1));
	nb_facts_free(&f);
	nb_facts_free(&g);
}

Test(env, missing_root_records_every_group_as_unknown_not_failure)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_env_collect("/nonexistent-nbrun-root", NULL, 0, &f));
	const struct nb_fact *x = nb_facts_get(&f, "cpu", "online");
	cr_assert_not_null(x);
	cr_expect_not(x->ok);
	cr_expect_str_eq(x->value, "not exposed: no /sys/devices/system/cpu/online");
	cr_expect_str_eq(nb_facts_value(&f, "iface", "name"), "lo");
	nb_facts_free(&f);
}

Test(env, nbrun_group_names_version_build_and_placement)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_env_add_nbrun(&f, "1 thread per stream, pinned", "2-3"));
	cr_expect_str_eq(nb_facts_value(&f, "nbrun", "version"), NB_VERSION);
	cr_expect_str_eq(nb_facts_value(&f, "nbrun", "build"), NB_STATIC_BUILD ? "static" : "dynamic");
	cr_expect_str_eq(nb_facts_value(&f, "nbrun", "placement"), "1 thread per stream, pinned");
	cr_expect_str_eq(nb_facts_value(&f, "nbrun", "engine_cpus"), "2-3");
	nb_env_add_nbrun(&f, NULL, NULL);
	cr_expect_str_eq(nb_facts_get(&f, "nbrun", "placement")->value, "not known before a run");
	nb_facts_free(&f);
}

/* ---- the live kernel, loopback only ------------------------------------------ */

static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

Test(env_live, route_to_a_loopback_peer_is_lo_with_its_mtu_and_kernel)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(5201) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	struct nb_facts f;
	char mtu[64], rel[256];
	nb_facts_init(&f);
	cr_assert(nb_env_collect("/", (struct sockaddr *)&a, sizeof(a), &f));
	cr_expect_str_eq(nb_facts_value(&f, "iface", "name"), "lo");
	cr_expect_str_eq(nb_facts_value(&f, "iface", "local_addr"), "127.0.0.1");
	cr_expect_str_eq(nb_facts_value(&f, "iface", "mtu"), read_line("/sys/class/net/lo/mtu", mtu, sizeof(mtu)));
	cr_expect_str_eq(nb_facts_value(&f, "host", "kernel"),
			 read_line("/proc/sys/kernel/osrelease", rel, sizeof(rel)));
	cr_expect_str_eq(nb_facts_value(&f, "iface", "numa_node") ? "" : nb_facts_get(&f, "iface", "numa_node")->value,
			 "virtual device (no /sys/class/net/lo/device)");
	nb_facts_free(&f);
}

Test(env_live, every_group_has_facts_each_with_a_value_or_reason)
{
	static const char *const groups[] = { "host", "cpu", "iface", "tcp" };
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_env_collect("/", NULL, 0, &f));
	for (size_t g = 0; g < 4; g++) {
		size_t n = 0;
		for (size_t i = 0; i < f.n; i++)
			n += !strcmp(f.v[i].group, groups[g]);
		cr_expect_gt(n, 3, "group %s has %zu facts", groups[g], n);
	}
	for (size_t i = 0; i < f.n; i++)
		cr_expect(f.v[i].value[0], "%s.%s is empty", f.v[i].group, f.v[i].key);
	/* loopback offloads are read through ETHTOOL_GFEATURES: lo has no LRO, ever. */
	cr_expect_str_eq(nb_facts_value(&f, "iface", "offload.lro"), "off [fixed]");
	nb_facts_free(&f);
}

/* Peers whose traffic the loopback interface carries: 127.0.0.1 and, when this host has one,
 * its own first non-loopback IPv4 address. */
static size_t local_peers(struct sockaddr_in *out, size_t max)
{
	size_t n = 0;
	out[n++] = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(5201),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ifaddrs *list = NULL;
	cr_assert_eq(getifaddrs(&list), 0);
	for (struct ifaddrs *i = list; i && n < max; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK))
			out[n++] = *(struct sockaddr_in *)i->ifa_addr;
	freeifaddrs(list);
	return n > 2 ? 2 : n;
}

/* env.json and the interval rows' interface counters describe one interface: the facts name
 * the interface whose counters the run reads (lo, for a peer that is one of our addresses). */
Test(env_live, facts_and_counters_name_the_same_interface)
{
	struct sockaddr_in peers[8];
	size_t n = local_peers(peers, 8);
	for (size_t i = 0; i < n; i++) {
		char addr[INET_ADDRSTRLEN], counted[IF_NAMESIZE] = "";
		inet_ntop(AF_INET, &peers[i].sin_addr, addr, sizeof(addr));
		struct nb_error err = { "" };
		cr_assert(nb_ifstats_route_ifname((struct sockaddr *)&peers[i], sizeof(peers[i]), counted,
						  sizeof(counted), &err), "%s: %s", addr, err.msg);
		struct nb_facts f;
		nb_facts_init(&f);
		cr_assert(nb_env_collect("/", (struct sockaddr *)&peers[i], sizeof(peers[i]), &f));
		cr_expect_str_eq(counted, "lo", "%s", addr);
		cr_expect_str_eq(nb_facts_value(&f, "iface", "name"), counted, "%s", addr);
		cr_expect_str_eq(nb_facts_value(&f, "iface", "local_addr"), addr);
		nb_facts_free(&f);
	}
}

/* ---- printing ------------------------------------------------------------------ */

static char *print_to_string(const struct nb_facts *l, const struct nb_facts *p, bool diff)
{
	static char buf[8192];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	cr_assert_not_null(m);
	if (diff)
		nb_env_diff(l, p, m);
	else
		nb_env_print(l, p, m);
	fclose(m);
	return buf;
}

Test(env_print, side_by_side_marks_only_comparable_differences)
{
	struct nb_facts l, p;
	nb_facts_init(&l);
	nb_facts_init(&p);
	nb_facts_set(&l, "host", "hostname", "a");
	nb_facts_set(&p, "host", "hostname", "b");
	nb_facts_set(&l, "iface", "mtu", "9000");
	nb_facts_set(&p, "iface", "mtu", "1500");
	nb_facts_set(&l, "iface", "offload.tso", "on");
	nb_facts_set(&p, "iface", "offload.tso", "on");
	nb_facts_unknown(&l, "cpu", "governor", "no cpufreq");
	nb_facts_set(&p, "tcp", "conntrack", "loaded");
	const char *s = print_to_string(&l, &p, false);
	cr_expect_not_null(strstr(s, "  hostname     a                                 b                               \n"), "%s", s);
	cr_expect_not_null(strstr(s, "  mtu          9000                              1500                              <- differs\n"), "%s", s);
	cr_expect_not_null(strstr(s, "  offload.tso  on                                on                              \n"), "%s", s);
	cr_expect_not_null(strstr(s, "  governor     ? (no cpufreq)                    -                                 <- differs\n"), "%s", s);
	cr_expect_not_null(strstr(s, "tcp\n  conntrack    -                                 loaded                            <- differs\n"), "%s", s);
	s = print_to_string(&l, &p, true);
	cr_expect_str_eq(s, "  differs              local                             peer\n"
			    "  iface.mtu            9000                              1500\n"
			    "  cpu.governor         ? (no cpufreq)                    -\n"
			    "  tcp.conntrack        -                                 loaded\n");
	nb_facts_free(&l);
	nb_facts_free(&p);
}

Test(env_print, one_end_lists_groups_in_order_with_reasons)
{
	struct nb_facts l;
	nb_facts_init(&l);
	nb_facts_set(&l, "host", "kernel", "6.1");
	nb_facts_unknown(&l, "cpu", "governor", "not exposed: no cpufreq in this VM");
	nb_facts_set(&l, "host", "os", "Debian");
	cr_expect_str_eq(print_to_string(&l, NULL, false),
			 "host\n  kernel    6.1\n  os        Debian\n"
			 "cpu\n  governor  ? (not exposed: no cpufreq in this VM)\n");
	nb_facts_free(&l);
}
