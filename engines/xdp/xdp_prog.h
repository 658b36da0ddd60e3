/* nbrun — the XDP program of the AF_XDP data path on one interface: load the embedded object,
 * attach it, hand it the queues' sockets, read its counters, and take it away again.
 *
 * Attaching: a BPF link (bpf_link_create, BPF_XDP; kernel 5.9 and later) in driver ("native")
 * mode where the driver has XDP, else in generic (skb) mode; the mode that ran is reported. A
 * link belongs to its file descriptor: when the process ends in any way, SIGKILL included, the
 * kernel closes the descriptor and the program leaves the interface. No bpffs is needed (the
 * link is not pinned), so a fresh network namespace works as is. Where the kernel has no XDP
 * links, the program is attached through netlink instead (NB_XDP_ATTACH_NETLINK), which
 * outlives its process: the next attach on that interface finds a program by our name
 * (NB_XDP_PROG_NAME) that no link holds, and detaches it first. A program of anyone else's,
 * or ours held by a live link (another test on the same interface), is left alone and the
 * attach is refused saying whose it is.
 */
#ifndef NB_XDP_PROG_H
#define NB_XDP_PROG_H

#include <stdbool.h>
#include <stdint.h>

struct nb_error; /* the caller's error text (engine.h) */
#include "xdp_cfg.h"

#define NB_XDP_PROG_NAME "nb_xdp_redirect"   /* the program's name, as the kernel lists it */

/** Where the program runs. */
enum nb_xdp_mode {
	NB_XDP_MODE_AUTO,       /* driver where the driver has XDP, else generic */
	NB_XDP_MODE_DRIVER,     /* native XDP in the driver's receive path (only) */
	NB_XDP_MODE_GENERIC,    /* skb mode: after the stack built the skb; every driver */
};

/** How it is attached. */
enum nb_xdp_attach {
	NB_XDP_ATTACH_LINK,     /* a BPF link: gone with the process (falls back to netlink on
				   a kernel without XDP links) */
	NB_XDP_ATTACH_NETLINK,  /* netlink: stays after the process; the next attach removes it */
};

/** What to attach where. */
struct nb_xdp_prog_config {
	const char *ifname;
	uint16_t port_lo, port_hi;      /* the test's UDP destination ports (host order) */
	const uint16_t *ports;          /* optional: exactly these ports of the range (nports) */
	uint32_t nports;
	uint32_t queues;                /* the XSKMAP's size: the interface's queue count */
	enum nb_xdp_mode mode;
	enum nb_xdp_attach attach;
};

struct nb_xdp_prog;

/** Load the embedded program, set its ports and attach it to cfg->ifname (see above). False
 *  with err naming what is missing (privilege, interface, driver support, a program there). */
bool nb_xdp_prog_attach(const struct nb_xdp_prog_config *cfg, struct nb_xdp_prog **out,
			struct nb_error *err);
/** Load the embedded program and free it again, attaching nothing: whether this process may
 *  load it (for a check before a run). False with err as nb_xdp_prog_attach says it. */
bool nb_xdp_prog_probe(struct nb_error *err);
/** Load the program with cfg's ports and queues and attach it nowhere (cfg->ifname unused):
 *  for running it on frames of our own with nb_xdp_prog_run. Free with nb_xdp_prog_detach. */
bool nb_xdp_prog_load(const struct nb_xdp_prog_config *cfg, struct nb_xdp_prog **out,
		      struct nb_error *err);
/** Run the program once on a frame (BPF_PROG_TEST_RUN) and give its verdict (XDP_PASS ...)
 *  in *action; its counters count the frame as on an interface. False with err. */
bool nb_xdp_prog_run(const struct nb_xdp_prog *p, const void *frame, uint32_t len,
		     uint32_t *action, struct nb_error *err);
/** Detach and free; NULL is a no-op. */
void nb_xdp_prog_detach(struct nb_xdp_prog *p);
/** Steer queue's test frames to the AF_XDP socket xsk_fd. */
bool nb_xdp_prog_add_socket(struct nb_xdp_prog *p, uint32_t queue, int xsk_fd,
			    struct nb_error *err);
/** The mode it runs in: NB_XDP_MODE_DRIVER or NB_XDP_MODE_GENERIC. */
enum nb_xdp_mode nb_xdp_prog_mode(const struct nb_xdp_prog *p);
/** How it ended up attached. */
enum nb_xdp_attach nb_xdp_prog_attached_by(const struct nb_xdp_prog *p);
/** Its counters (enum nb_xdp_stat), summed over the CPUs; false with err. */
bool nb_xdp_prog_stats(const struct nb_xdp_prog *p, uint64_t out[NB_XDP_STAT_N],
		       struct nb_error *err);
/** The id of the XDP program on ifname in any mode (0: none), and its name into name (16
 *  bytes, may be NULL); false with err when the interface cannot be asked. */
bool nb_xdp_prog_query(const char *ifname, uint32_t *id, char *name, struct nb_error *err);
/** "driver" / "generic" / "auto". */
const char *nb_xdp_mode_name(enum nb_xdp_mode m);

#endif
