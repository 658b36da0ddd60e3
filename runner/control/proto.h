/* nbrun — the control protocol: message types, encoder and strict decoder.
 *
 * No socket code here, so a fuzzer can drive nb_msg_decode directly.
 *
 * Frame: u32 body length (big-endian, 2 .. NB_FRAME_MAX) then the body:
 * u16 message type, then the type's fields in a fixed order. Integers are
 * big-endian; a string is u16 length + bytes (valid UTF-8 without control
 * characters, at most its field's limit). The decoder rejects, never trusts:
 * unknown types, lengths beyond the body, counts beyond limits, values out of
 * range, strings that are not clean text or too long, and trailing bytes.
 *
 * Session (v6): client HELLO -> agent HELLO (or ERROR version) -> when either
 * HELLO asks for it (a shared secret), AUTH client -> AUTH agent, or ERROR auth
 * or ERROR version (auth.h: a MAC over both nonces, each side proving the secret;
 * an agent with a secret says its version only after the client's proof) -> from
 * here on every frame both ways is sealed (ctl.h) -> the agent
 * reads the client's QUEUE (what its batch plans to take, how long it will wait) and gives it
 * the session: FACTS (its environment) at once, or QUEUE frames (its place in line and the
 * wait the agent estimates) until FACTS, or ERROR busy (the queue is full, the client would not
 * wait, or its wait is over). Nothing about the agent crosses the wire before that. Then per run: SETUP ->
 * READY(port) | ERROR; START; agent sends INTERVAL frames; client sends STOP
 * after the drain; agent answers RESULT -> ... -> BYE. SETUP carries no key:
 * both ends derive the run's data key from the handshake and the run id.
 * Before a batch (and for --check) the client asks CHECK with what its plan needs; the agent
 * answers CHECK_RESULT, one line per problem it finds on its host ("" = none), and its limits
 * on one test (the client holds every case to them): only after authentication, like FACTS.
 * Then (v6) a PROBE per protocol the plan uses proves the data path as a run opens it: the
 * agent binds a data port, answers READY(port), takes one data connection (TCP) or completes
 * one UDP data hello (challenge, echo, ACK) under a key both ends derive from the session's
 * key and the probe's number, from the client's host only (any_source: any host proving the
 * key, as for SETUP), within a bounded time, and answers CHECK_RESULT: "" or what blocked it.
 * Between tests the client may send TIME (t1 = its clock at sending); the agent answers TIME
 * with t1 echoed, t2 = its clock when the request arrived and t3 = when it answered (both
 * CLOCK_REALTIME, ns): the client's fourth stamp gives the agent's clock offset and the control
 * round trip, as NTP does (clock.h).
 * A path between two agents (v5): the client's SETUP to the receiving agent says any_source
 * (READY port as always); its SETUP to the sending agent says end CONNECT with that agent's
 * address and port and a grant: the receiver's run key sealed for this session, run, address and
 * port (a one-time authorisation, for that address and run alone; the sender sends no payload
 * before the receiver proved the key on the data connection). The sender connects, answers READY
 * (port 0) or ERROR, and from START on both agents stream INTERVAL frames to the client.
 */
#ifndef NB_PROTO_H
#define NB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "nb_error.h"
#include "session.h"

/* 2: snapshots carry steal ticks and each flow thread's CPU; 3: authentication (HELLO nonce,
 * AUTH, FACTS after it) and the per-session data key; 4: TIME, the clock exchange */
/* 5: SETUP's end, target and grant (paths between two agents); 6: PROBE (the data path before
 * a batch), CHECK_RESULT's limits, CHECK without longest_ns, and every frame after the
 * handshake sealed, an agent with a secret silent about its version before the proof, QUEUE (a
 * client waits in line for the session) */
/* 7: SETUP's datapath (pps on AF_XDP) and threads (flows over threads, after burst), the NB_G_XDP
 * gauge of every snapshot; a snapshot may end with the loss budget's counters (lossstats.h); the snapshot's
 * bytes_retrans and min_rtt (RFC 6349); COMPANION (a session's companions beside it) */
/* 8: the stream engine's own SETUP row (`self`, after the common rows); RESULT's loss block is
 * the end's reading before START (the whole test's budget, not the last interval's) */
/* 9: a snapshot of an end whose flows record their schedule lag ends with it (NB_SNAP_LAG_TAG,
 * the sparse histogram): the agent's paced senders, for reverse and bidirectional runs */
#define NB_PROTO_VERSION 9
#define NB_SNAP_LAG_TAG 0x4c           /* 'L': a snapshot's lag section (never NB_L_COUNT) */
#define NB_FRAME_MAX (1u << 20)
#define NB_NONCE_LEN 32
#define NB_MAC_LEN 32
#define NB_GRANT_LEN (NB_KEY_LEN + 16) /* a run key sealed (auth.h nb_auth_grant_seal) */
#define NB_KV_MAX 1024
#define NB_KV_KEY_MAX 96
#define NB_KV_VAL_MAX 256
#define NB_TEXT_MAX 512
#define NB_RATE_MAX 10000000000000ull  /* 10 T (bit/s or packets/s): more is no rate */

enum nb_msg_type {
	NB_MSG_HELLO = 1, NB_MSG_AUTH, NB_MSG_SETUP, NB_MSG_READY, NB_MSG_START, NB_MSG_INTERVAL,
	NB_MSG_STOP, NB_MSG_RESULT, NB_MSG_ERROR, NB_MSG_BYE, NB_MSG_CHECK, NB_MSG_CHECK_RESULT,
	NB_MSG_FACTS, NB_MSG_TIME, NB_MSG_PROBE, NB_MSG_QUEUE, NB_MSG_COMPANION,
	NB_MSG_TYPE_MAX = NB_MSG_COMPANION
};

enum nb_err_code {
	NB_ERR_GENERIC = 1, NB_ERR_BUSY, NB_ERR_VERSION, NB_ERR_PROTOCOL, NB_ERR_AUTH, NB_ERR_SETUP,
	NB_ERR_RUN, NB_ERR_LIMIT,
	NB_ERR_CODE_MAX = NB_ERR_LIMIT
};

/** What a HELLO's sender requires: nothing, or proof of the shared secret (crypto_auth). */
enum nb_auth_mode { NB_AUTH_NONE = 0, NB_AUTH_MAC = 1 };
enum nb_role { NB_ROLE_CLIENT = 0, NB_ROLE_AGENT = 1 };

struct nb_kv {
	char k[NB_KV_KEY_MAX + 1];
	char v[NB_KV_VAL_MAX + 1];
};

struct nb_msg_hello {
	uint16_t proto_version;
	char version[33];          /* nbrun version string */
	uint8_t role;              /* enum nb_role */
	uint8_t auth;              /* enum nb_auth_mode the sender requires */
	uint8_t nonce[NB_NONCE_LEN]; /* fresh and random for every connection */
};

/** The agent's environment facts, flattened; sent only once the session is the client's. */
struct nb_msg_facts {
	uint32_t nkv;
	struct nb_kv *kv;          /* owned (decoder allocates; nb_msg_free frees) */
};

/** Which end of a run's data path an agent is (SETUP). */
enum nb_setup_end {
	NB_END_LISTEN = 0,   /* open a data port and take the data connections (every run but one) */
	NB_END_CONNECT = 1,  /* a path between two agents: connect to target, as a client would */
};

/** The address and port of a CONNECT end's receiving agent, as on the wire. */
struct nb_target {
	uint8_t family;            /* 0 (none), 4 or 6 */
	uint8_t addr[16];          /* IPv4: the first 4 bytes */
	uint16_t port;
};

struct nb_msg_setup {
	uint32_t run_id;
	char case_id[160];
	struct nb_params params;
	uint64_t warmup_ns, omit_ns, duration_ns, interval_ns, drain_ns;
	uint8_t end;               /* enum nb_setup_end */
	uint8_t any_source;        /* LISTEN: data connections from any host that proves the run's key
				      (its sender is another agent) instead of the client's host only */
	struct nb_target target;   /* CONNECT: the receiving agent's data address and port */
	uint8_t grant[NB_GRANT_LEN]; /* CONNECT: the receiving agent's run key, sealed under this
					session's key for this run and target (auth.h) */
	uint64_t cooldown_ns;      /* client only (not sent): the tail left out of the result */
};

#define NB_CHECK_MAX_CC 8          /* congestion control algorithms one CHECK asks about */
#define NB_CHECK_MAX_CPUS 256      /* CPUs one CHECK asks about */
#define NB_CHECK_TEXT_MAX 4096     /* CHECK_RESULT: its problem lines */

/** CHECK: what a plan needs of an end, asked before any run. */
struct nb_msg_check {
	uint8_t ncc;
	char cc[NB_CHECK_MAX_CC][16];      /* TCP congestion control algorithms */
	uint16_t ncpus;
	uint16_t cpus[NB_CHECK_MAX_CPUS];  /* CPUs the flows are pinned to */
	uint8_t protocols;                 /* bit 1 << enum nb_proto: a data port of that kind */
	uint32_t max_flows;                /* the most flows of one run */
	uint8_t xdp;                       /* pps on the xdp datapath: NB_CHECK_XDP_* of the asked end */
	uint16_t xdp_senders;              /* the most flows one such case sends from the asked end */
};
#define NB_CHECK_XDP_RX 1u /* the asked end receives on AF_XDP: the program, toward the asker */
#define NB_CHECK_XDP_TX 2u /* it sends: the next hop's MAC toward the asker */

/** An agent's limits on one test (`nbrun serve --max-*`, agent_limits.h); a zero field is no limit
 *  (the embedded agent sets none). CHECK_RESULT carries them. */
struct nb_limits {
	uint64_t max_rate;          /* payload bit/s summed over a test's flows */
	uint32_t max_flows;         /* data connections per test (bidir counts both ways) */
	uint32_t max_duration_s;    /* warm-up + duration + drain */
	uint32_t max_message;       /* bytes of a message, datagram, request or response */
};

/** PROBE: prove the data path of one protocol (TCP or UDP) as a run opens it. */
struct nb_msg_probe {
	uint8_t proto;             /* enum nb_proto: TCP or UDP */
	uint8_t any_source;        /* the data may come from any host that proves the key (a
				      session over ssh, whose client may be a bastion) */
};

#define NB_QUEUE_PLACES_MAX 32            /* --max-queue's ceiling: clients waiting at once */
#define NB_QUEUE_MS_MAX (7ull * 86400000ull) /* no plan or wait in a QUEUE is longer: a week */
#define NB_QUEUE_UNKNOWN UINT64_MAX       /* the agent's QUEUE: it cannot estimate the wait */
#define NB_QUEUE_UPDATE_MS 5000           /* the agent tells a waiting client at least this often */

/** QUEUE: waiting for the session. The client's, right after the handshake (position 0): what
 *  its batch plans to take and how long it waits for the session. The agent's, while the
 *  client waits: its place in line (1: next) and the wait the agent estimates. */
struct nb_msg_queue {
	uint32_t position;         /* 0 (the client's), 1 .. NB_QUEUE_PLACES_MAX (the agent's) */
	uint64_t plan_ms;          /* client: its batch's planned time, 0 = unknown; agent: 0 */
	uint64_t wait_ms;          /* client: how long it waits (0: not at all); agent: the
				      estimate, or NB_QUEUE_UNKNOWN */
};

#define NB_COMPANION_TICKET_LEN 32
#define NB_COMPANIONS_MAX 8                /* companions one session may have at once */

/** COMPANION (v7): a session that holds the agent asks for a companion ticket (all zero) and
 *  the agent answers with one (random, one use, valid while the asking session holds the
 *  agent); a new connection presents it, right after its handshake and instead of QUEUE, and is
 *  a session beside its holder at once (FACTS) or is told ERROR busy. The frames are sealed, so
 *  a ticket is never seen on the path. A working case's parts run at once on one agent so. */
struct nb_msg_companion {
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
};

/** TIME: a clock exchange (request: t1 only; answer: all three). */
struct nb_msg_time {
	uint64_t t1, t2, t3;
};

struct nb_msg_snap {
	int32_t index;             /* interval index; -1 = baseline; RESULT: final */
	uint64_t t_ns;             /* agent clock, since START */
	struct nb_snapshot *snap;  /* owned when decoded */
};

struct nb_msg {
	enum nb_msg_type type;
	union {
		struct nb_msg_hello hello;
		struct { uint8_t mac[NB_MAC_LEN]; } auth;
		struct nb_msg_facts facts;
		struct nb_msg_setup setup;
		struct { uint16_t port; } ready;
		struct nb_msg_snap interval;
		struct { uint8_t ok; char text[NB_TEXT_MAX + 1]; struct nb_msg_snap s; } result;
		struct { uint16_t code; char text[NB_TEXT_MAX + 1]; } error;
		struct nb_msg_check check;
		struct nb_msg_time time;
		struct {
			char text[NB_CHECK_TEXT_MAX + 1]; /* lines ending in \n */
			struct nb_limits limits;           /* the agent's (after a CHECK; zero after PROBE) */
		} check_result;
		struct nb_msg_probe probe;
		struct nb_msg_queue queue;
		struct nb_msg_companion companion;
	} u;
};

/** A growable byte buffer. */
struct nb_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

/** Free the buffer's memory and zero it. */
void nb_buf_free(struct nb_buf *b);
/** Append the whole frame of m (length prefix included) to out. */
bool nb_msg_encode(const struct nb_msg *m, struct nb_buf *out, struct nb_error *err);
/** Decode one frame body (after the length prefix) into m; on error m holds nothing to free. */
bool nb_msg_decode(const uint8_t *body, size_t len, struct nb_msg *m, struct nb_error *err);
/** Free what a decoded message owns; the message itself is the caller's. */
void nb_msg_free(struct nb_msg *m);
/** Parse a frame's 4-byte length prefix; false when out of 2..NB_FRAME_MAX. */
bool nb_frame_len(const uint8_t hdr[4], uint32_t *len, struct nb_error *err);
/** Name of a message type, for errors. */
const char *nb_msg_name(int type);

#endif
