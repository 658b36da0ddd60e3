/* nbrun — a test of an agentless engine (NB_DATAPATH_OWN: icmp, connect): no control session
 * and no agent; the client's flows reach the target by themselves, and the run is the same
 * timeline (warm-up, omit, intervals, cool-down) driven on the local clock alone. The peer's
 * half of every span is an empty snapshot, so every agent column stays empty. */
#ifndef NB_SOLO_H
#define NB_SOLO_H

#include <stdatomic.h>
#include <sys/socket.h>

#include "client.h"
#include "pathsync.h"

/** Where an agentless test goes: the target's address (the port comes from the case's params),
 *  the local interface toward it (for the interface counters), and Ctrl-C. */
struct nb_solo_target {
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char ifname[64];
	const atomic_bool *interrupt;
};

/** Run one test of an agentless engine; never NB_OUT_PEER_LOST (there is no peer to lose). */
enum nb_outcome nb_solo_test(const struct nb_solo_target *to, const struct nb_msg_setup *su,
			     const struct nb_test_sink *sink, struct nb_test_result *out,
			     struct nb_error *err);
/** nb_solo_test as one part of a case whose parts start and stop together (group, pathsync.h:
 *  the common start at START, every part's last tick at CLOSED; NULL: alone). It leaves the
 *  group however it ends. */
enum nb_outcome nb_solo_test_path(const struct nb_solo_target *to, const struct nb_msg_setup *su,
				  struct nb_pathsync *group, const struct nb_test_sink *sink,
				  struct nb_test_result *out, struct nb_error *err);

#endif
