/* nbrun — environment facts of this host, read directly from the kernel (/proc, /sys,
 * ioctl, netlink; never by running ethtool or lscpu). Every reader takes a root prefix for
 * /proc and /sys (and /etc/os-release, /.dockerenv) so tests can point it at a fixture tree;
 * ioctls and syscalls are skipped under a fixture root with NB_ENV_FIXTURE as the reason.
 * Reading facts never fails a run: what cannot be read is recorded with the reason.
 * The readers return false only when out of memory. */
#ifndef NB_ENV_H
#define NB_ENV_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#include "nb_error.h"
#include "facts.h"

/** Every group (host, cpu, iface, tcp) for the interface that routes to peer (NULL: loopback),
 *  found by nb_ifstats_route: the interface whose counters the run reads. */
bool nb_env_collect(const char *root, const struct sockaddr *peer, socklen_t peer_len,
		    struct nb_facts *out);
/** Every group, for a named interface (no route lookup; for fixtures and `--iface`). */
bool nb_env_collect_iface(const char *root, const char *ifname, struct nb_facts *out);
/** The nbrun group: version, build, engine thread placement and CPUs (NULL: not known yet). */
bool nb_env_add_nbrun(struct nb_facts *out, const char *placement, const char *engine_cpus);

/** Print the facts grouped and aligned; with a peer, side by side with a "differs" marker. */
void nb_env_print(const struct nb_facts *local, const struct nb_facts *peer, FILE *out);
/** Print only the comparable facts that differ between the ends; returns how many. */
size_t nb_env_diff(const struct nb_facts *local, const struct nb_facts *peer, FILE *out);

/** Host group: hostname, kernel, os, virt.*, boot_time, clocksource, time_sync. */
bool nb_env_host(const char *root, struct nb_facts *out);
/** CPU group: model, threads/sockets/cores, online, numa.*, smt, governor, cpufreq.*, loadavg. */
bool nb_env_cpu(const char *root, struct nb_facts *out);
/** TCP group: congestion control, buffers, busy polling, backlog, conntrack, port range. */
bool nb_env_tcp(const char *root, struct nb_facts *out);
/** Interface group for ifname: mtu, link, driver, offloads, queues, NUMA node, qdisc, IRQs. */
bool nb_env_iface(const char *root, const char *ifname, struct nb_facts *out);
/** irq.count/numbers/cpus/affinity of ifname from /proc/interrupts and /proc/irq. */
bool nb_env_irqs(const char *root, const char *ifname, struct nb_facts *out);
/** ETHTOOL_GDRVINFO: driver, driver_version, firmware, bus (live kernel). */
bool nb_env_drvinfo(const char *ifname, struct nb_facts *out);
/** ETHTOOL_GLINKSETTINGS: speed, duplex (live kernel). */
bool nb_env_link(const char *ifname, struct nb_facts *out);
/** ETHTOOL_GCHANNELS: channels (live kernel). */
bool nb_env_channels(const char *ifname, struct nb_facts *out);
/** ETHTOOL_GFEATURES: offload.{tso,gso,gro,lro,rx_csum,tx_csum,sg} as on/off[ [fixed]]. */
bool nb_env_offloads(const char *ifname, struct nb_facts *out);
/** Root qdisc kind over rtnetlink (live kernel). */
bool nb_env_qdisc(const char *ifname, struct nb_facts *out);

#endif
