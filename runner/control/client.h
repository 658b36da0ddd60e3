/* nbrun — the client end of a control session: handshake, and one test run
 * driven on the same timeline as the agent, pairing both ends' snapshots. */
#ifndef NB_CLIENT_H
#define NB_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "auth.h"
#include "cols.h"
#include "ctl.h"
#include "facts.h"
#include "metrics.h"
#include "proto.h"
#include "runcheck.h"

enum nb_outcome {
	NB_OUT_OK,           /* the run measured */
	NB_OUT_CASE_FAILED,  /* the agent refused or the run failed: record it and go on */
	NB_OUT_PEER_LOST,    /* the agent died, stopped answering or spoke garbage: stop the batch */
	NB_OUT_INTERRUPTED,  /* stopped early (a signal, or the results could not be written): the
				run has no result and is no failed measurement */
};

struct nb_client {
	struct nb_ctl ctl;              /* the control connection (ctl.fd -1: closed) */
	char peer_name[160];
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char ifname[64];            /* local interface toward the peer */
	char peer_version[40];          /* clean text: safe to print */
	unsigned char session_key[NB_KEY_LEN]; /* from the handshake: each run's data key derives from it */
	struct nb_facts peer_facts;
	const atomic_bool *interrupt;   /* set (a signal): end the current run early */
	atomic_bool abort;              /* set by the caller's sink (e.g. a write failed): the same */
	bool proven;                    /* both ends proved the secret: the agent holds one (and so
					   may send on a grant) */
	bool any_source;                /* its runs' data may come from any host that proves the run's
					   key: a control session over ssh, where the agent sees ssh's
					   client (maybe a bastion), not this host's data address */
	uint32_t probes;                /* data path probes asked in this session (probe.h) */
	bool busy;                      /* open failed: the agent stayed busy with others (its
					   queue full, or the wait over) */
};

/** Receives each measured interval as soon as both ends' counters for it are in. */
struct nb_test_sink {
	void *ctx;
	/** Interval k (1-based) spans ticks k-1..k; hist is its RTT histogram or NULL. */
	void (*interval)(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *hist);
};

struct nb_test_result {
	struct nb_metrics m;        /* the run's result over the non-omitted intervals */
	struct nb_hist *hist;       /* the run's RTT histogram (caller frees), or NULL */
	struct nb_snapshot *lfinal; /* both ends' counters after the drain (caller frees), or NULL */
	struct nb_snapshot *pfinal;
	char error[NB_TEXT_MAX + 64]; /* NB_OUT_CASE_FAILED: why (agent text sanitised) */
	struct nb_run_verdict verdict; /* NB_OUT_OK: what the readings hold against the run */
};

/** How a client waits when the agent's session is another's (proto.h QUEUE). */
struct nb_client_wait {
	uint64_t plan_ms;               /* what this batch plans to take (0 = unknown): the agent
					   tells those who wait behind it */
	uint32_t timeout_ms;            /* how long to wait in line (0: not at all) */
	const atomic_bool *interrupt;   /* set (a signal): stop waiting */
	/** Each QUEUE: c's place in line (1: next) and the agent's estimate (NB_QUEUE_UNKNOWN). */
	void (*told)(void *ctx, const struct nb_client *c, uint32_t position, uint64_t wait_ms);
	void *ctx;
	const uint8_t *companion;       /* a ticket of a session holding the agent: be its companion
					   (proto.h COMPANION) instead of waiting in line; NULL: none */
};

/** A ticket for a companion of holder's session (proto.h COMPANION): one use, while holder
 *  holds the agent; err says why not (an agent before v7 has none). */
bool nb_client_companion_ticket(struct nb_client *holder, uint8_t ticket[NB_COMPANION_TICKET_LEN],
				struct nb_error *err);

/** Connect and shake hands (proving secret when it is set, auth.h), then take the agent's
 *  session, waiting in line as w says (NULL: plan unknown, no wait); busy, version and
 *  authentication errors come back as one line in err, agent text sanitised, and c->busy says
 *  the agent stayed busy (its queue full, or the wait over). */
bool nb_client_open(struct nb_client *c, const char *peer_name, const struct sockaddr_storage *addr,
		    socklen_t len, const struct nb_secret *secret, const struct nb_client_wait *w,
		    struct nb_error *err);
/** The same on fd, a control stream already connected (ssh's stdin and stdout, sshlaunch.h),
 *  which c owns from now on (closed on failure); data_addr is where the agent's data ports
 *  are (the port is each test's). */
bool nb_client_open_fd(struct nb_client *c, const char *peer_name, int fd,
		       const struct sockaddr_storage *data_addr, socklen_t len,
		       const struct nb_secret *secret, const struct nb_client_wait *w,
		       struct nb_error *err);
/** "2nd in line, about 3 min" (or "wait unknown"): what a waiting client is told, as text. */
void nb_client_wait_str(uint32_t position, uint64_t wait_ms, char *out, size_t n);
/** Say BYE and close; safe on a closed client. */
void nb_client_close(struct nb_client *c);
/** Free what a test result owns. */
void nb_test_result_free(struct nb_test_result *r);
/** Ask the agent whether its host has what need asks (CHECK); problems gets its lines ("" =
 *  none), limits its limits on one test. False with err when the agent did not answer (then
 *  the session is over). */
bool nb_client_check(struct nb_client *c, const struct nb_msg_check *need, char *problems,
		     size_t len, struct nb_limits *limits, struct nb_error *err);
struct nb_pathsync;

/** Run one test. err holds the peer-lost message for NB_OUT_PEER_LOST. */
enum nb_outcome nb_client_test(struct nb_client *c, const struct nb_msg_setup *su,
			       const struct nb_test_sink *sink, struct nb_test_result *out,
			       struct nb_error *err);
/** Run one test as one path of a case whose paths start and stop together (group, pathsync.h;
 *  NULL: alone, as nb_client_test). The sink is called from the caller's thread. */
enum nb_outcome nb_client_test_path(struct nb_client *c, const struct nb_msg_setup *su,
				    struct nb_pathsync *group, const struct nb_test_sink *sink,
				    struct nb_test_result *out, struct nb_error *err);
/** nb_client_test_path whose START goes out start_after_ns after the group's common start (a
 *  working case's load after its idle phase, docs/design.md): its timeline runs from then, and it
 *  leaves the group at once (the others' windows hold its own; none waits for another at CLOSED). */
enum nb_outcome nb_client_test_path_after(struct nb_client *c, const struct nb_msg_setup *su,
					  struct nb_pathsync *group, uint64_t start_after_ns,
					  const struct nb_test_sink *sink, struct nb_test_result *out,
					  struct nb_error *err);
/** Run one test as a path between two agents: src sends, dst receives, neither is this host
 *  (client_relay.c); group as for nb_client_test_path (NULL: alone). */
enum nb_outcome nb_client_test_relay(struct nb_client *src, struct nb_client *dst,
				     const struct nb_msg_setup *su, struct nb_pathsync *group,
				     const struct nb_test_sink *sink, struct nb_test_result *out,
				     struct nb_error *err);

#endif
