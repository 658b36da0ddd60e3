/* nbrun — the engine interface: data plane only.
 *
 * An engine is one file exporting one `const struct nb_engine` table. It knows
 * sockets, threads, pacing and counters; it knows nothing of YAML, CSV or the
 * control protocol. The harness in session.c sets up the data connections
 * (one connected socket per flow, each proving the run's key), runs one thread per
 * flow calling the engine's client_flow or server_flow (or, for an engine with steps, fewer
 * threads each driving several flows: flowloop.h), and lets the runner
 * read every flow's cumulative counters at any time (single-writer atomics).
 */
#ifndef NB_ENGINE_H
#define NB_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nb_error.h"
#include "hist.h"

#define NB_MAX_FLOWS 256
#define NB_MAX_CPUS 64
#define NB_UDP_MAX_PAYLOAD 65507u
#define NB_KEY_LEN 32           /* bytes of a run's data key (params.key) */
#define NB_PARAMS_OWN_MAX 64    /* bytes of an engine's own parameters (params.own) */
#define NB_OWN_COUNTERS_MAX 4   /* an engine's own counters (nb_flow.own, its counters rows) */

/* The names of these three enums, and the flow layout of a case: params.h. */
enum nb_proto { NB_PROTO_TCP, NB_PROTO_UDP, NB_PROTO_ICMP };
#define NB_NPROTO 3 /* values of enum nb_proto (params.h names them NB_PROTO_N) */
enum nb_dir { NB_DIR_FORWARD, NB_DIR_REVERSE, NB_DIR_BIDIR };
/** How a requester waits for its answer: blocking syscalls, a user-space spin on a
 *  non-blocking socket, or kernel busy polling (SO_BUSY_POLL). */
enum nb_wait { NB_WAIT_BLOCK, NB_WAIT_SPIN, NB_WAIT_BUSY_POLL };
/* Epochs: the intervals of a run, on each end's own clock. The harness opens epoch k + 1 at
 * the end's tick k (nb_session_tick): epoch 0 is the warm-up, epoch k the interval that ends at
 * tick k. A UDP sender tags every datagram with the epoch it is sent in and counts what it
 * sent per epoch; a receiver counts the distinct datagrams it got per epoch (NB_EPOCH_SLOTS
 * epochs at a time). A send or a receive batch is counted between nb_flow_enter and
 * nb_flow_leave, and a tick waits out one that read the old epoch, then settles: the sender's
 * tick k adds epoch k to NB_C_TX_SETTLED, the receiver's adds epoch k - lag to NB_C_RX_SETTLED
 * (what was sent before the sender's tick is still on its way: lag ticks cover the drain, see
 * epoch.h). So a row's tx and rx count the same datagrams and lost = tx - rx holds in every
 * row. What arrives after its epoch settled, or too late to be told from a duplicate, counts
 * NB_C_LATE. */
#define NB_EPOCH_SLOTS 64u
#define NB_EPOCH_LAG_MAX (NB_EPOCH_SLOTS - 8u) /* a receiver settles epoch e at tick e + lag */
enum nb_side { NB_SIDE_CLIENT, NB_SIDE_SERVER };

/** Fully resolved parameters of one case: what both sides' engines need, nothing more. Each
 *  field but engine, the axes (proto .. rate) and key is a row of engines/param_defs.c, which
 *  says its key, default, range, wire and plan.csv cell. */
struct nb_params {
	char engine[16];        /* "stream", "pps", "rr", "crr", "latency", "icmp", "connect" */
	enum nb_proto proto;
	enum nb_dir direction;  /* stream, pps */
	uint32_t size;          /* message / datagram payload bytes (stream, pps, latency) */
	uint32_t request;       /* rr, crr: request bytes */
	uint32_t response;      /* rr, crr: response bytes */
	uint32_t streams;       /* parallel flows, 1..NB_MAX_FLOWS (bidir doubles them) */
	uint64_t rate;          /* per flow: bit/s (stream), packet/s (pps), message/s (latency); 0 = unlimited */
	uint32_t window;        /* SO_SNDBUF / SO_RCVBUF bytes; 0 = kernel default */
	uint32_t mss;           /* TCP_MAXSEG; 0 = default */
	bool nodelay;           /* TCP_NODELAY */
	char congestion[16];    /* TCP_CONGESTION; "" = default */
	int32_t tos;            /* IP_TOS / IPV6_TCLASS; -1 = leave */
	enum nb_wait wait;      /* rr, crr, latency */
	bool gso;               /* stream, pps: UDP_SEGMENT where the kernel offers it (udpgso.h) */
	uint32_t batch;         /* pps: messages per sendmmsg/recvmmsg; 0 = engine default */
	uint32_t timeout_ms;    /* udp rr / latency: a reply not back after this counts as a timeout */
	uint32_t burst_us;      /* stream, pps: paced UDP: most of the schedule sent back to back (pace.h) */
	uint32_t threads;       /* flow threads per end (engines with steps); 0 = min(flows, CPUs) (flowloop.h) */
	uint32_t ncpus;         /* CPU affinity: flow i runs on cpus[i % ncpus]; 0 = not pinned */
	int16_t cpus[NB_MAX_CPUS];
	/* The run's data key: every data connection and hello datagram proves it (dhello.h). Each
	 * end derives it from the control session's handshake; it never crosses the wire. */
	unsigned char key[NB_KEY_LEN];
	uint16_t port;          /* agentless engines (connect): the target's port; not sent to agents */
	uint32_t datapath;      /* pps: enum nb_pkt_datapath, the sockets or AF_XDP (engines/xdp/) */
	uint64_t bottleneck_bps; /* stream: the path's bottleneck bandwidth, bit/s, for the report's
				    RFC 6349 numbers (0 = unknown); the runner's own, not sent */
	/* The engine's own parameters: its own struct, which its table's params rows describe
	 * (param_defs.h NB_PARAM_OWN); opaque to everyone else. */
	_Alignas(8) unsigned char own[NB_PARAMS_OWN_MAX];
};

/** Per-flow counters: cumulative, written only by the flow's thread. */
enum nb_counter {
	NB_C_TX_BYTES,          /* payload bytes sent */
	NB_C_TX_PACKETS,        /* datagrams / messages sent */
	NB_C_RX_BYTES,          /* payload bytes received */
	NB_C_RX_PACKETS,        /* datagrams / messages received */
	NB_C_LOST,              /* UDP receiver: sequence numbers not seen (yet), live gap count */
	NB_C_DUP,               /* UDP receiver, icmp: sequence numbers seen twice */
	NB_C_REORDER,           /* UDP receiver: arrived after a higher sequence number */
	NB_C_SND_ERRS,          /* ENOBUFS / EAGAIN on send: local back-pressure, not network loss */
	NB_C_RCVBUF_DROPS,      /* UDP receiver: dropped by our own full socket buffer (SO_MEMINFO, harness) */
	NB_C_TRANSACTIONS,      /* rr/crr/latency: completed round trips */
	NB_C_TIMEOUTS,          /* rr/latency over UDP, icmp, connect: requests whose reply never came */
	NB_C_CONNECTS,          /* crr: connections opened */
	NB_C_CONNECT_NS,        /* crr: total time spent in connect() */
	NB_C_RETRANS,           /* TCP_INFO tcpi_total_retrans (sender, harness) */
	NB_C_TX_SETTLED,        /* UDP sender: datagrams of the settled epochs (harness) */
	NB_C_RX_SETTLED,        /* UDP receiver: distinct datagrams of the settled epochs (harness) */
	NB_C_LATE,              /* UDP receiver: after their epoch settled, or too old to tell a dup */
	NB_C_WIN_SENT,          /* latency: messages due in the run's window, sent */
	NB_C_WIN_ANSWERED,      /* latency: of those, answered (within timeout_ms over UDP) */
	NB_C_PACE_FORGIVEN,     /* pacer: send times forgiven (the sender ran > 10 ms late) */
	NB_C_REFUSED,           /* connect: attempts answered with a RST (port closed) */
	NB_C_FOREIGN,           /* UDP receiver: datagrams not of this flow (no run cookie, or a
				   sequence out of the sender's reach, udpseq.h): nothing else */
	NB_C_BYTES_RETRANS,     /* TCP_INFO tcpi_bytes_retrans: bytes sent again (sender, harness) */
	NB_C_COUNT
};

/** One of an engine's own counters: its index in nb_flow.own is its row's in the table. */
struct nb_counter_def {
	const char *name; /* "ticks" */
	const char *doc;  /* what one count is */
};

/** Per-flow gauges: the latest value, not a sum. */
enum nb_gauge {
	NB_G_JITTER_NS,         /* RFC 3550 interarrival jitter, receiver */
	NB_G_CWND,              /* TCP_INFO snd_cwnd (segments), sender */
	NB_G_SRTT_US,           /* TCP_INFO rtt (us), sender */
	NB_G_MAX_BURST,         /* pacer: largest burst (packets) sent back to back */
	NB_G_ICMP_SOCKET,       /* icmp: the socket used: 1 = unprivileged ping socket, 2 = raw */
	NB_G_PACING,            /* sender: how its rate is kept (enum nb_pacing, kpace.h) */
	NB_G_GSO,               /* UDP sender: UDP_SEGMENT used or not (enum nb_gso, udpgso.h) */
	NB_G_GRO,               /* UDP receiver: UDP_GRO asked for or not (enum nb_gro, udpgso.h) */
	NB_G_XDP,               /* pps on the xdp datapath: its socket's mode and queues (pps_xdp.h) */
	NB_G_MIN_RTT_US,        /* TCP_INFO tcpi_min_rtt (us): the lowest RTT seen, sender */
	NB_G_COUNT
};

/** Which packet path a pps flow uses (params.datapath): the kernel's UDP sockets, or AF_XDP
 *  sockets on the interface toward the peer (pps_xdp.h). */
enum nb_pkt_datapath { NB_PKT_SOCKET, NB_PKT_XDP, NB_PKT_DATAPATH_N };

/** How an engine's flows reach their other end: the one thing about a data path the harness
 *  (session*.c) branches on, and the only place that does. */
enum nb_datapath {
	/* one data socket per flow, connected and proven by the harness (stream, pps, rr, latency) */
	NB_DATAPATH_CONNECTED,
	/* each flow opens its own connections: the client to reach->peer per transaction, the
	 * server accepting on reach->listen_fd (crr) */
	NB_DATAPATH_PER_CONNECTION,
	/* the client's flows reach their target by themselves (reach->peer), with sockets, rings or
	 * queues of their own: no agent, no control session, no data-connection hello; facts are
	 * the local end's only (icmp, connect) */
	NB_DATAPATH_OWN,
};

/** Where the flows of a PER_CONNECTION or OWN engine go: one per session, set by the harness. */
struct nb_flow_reach {
	int listen_fd;                  /* PER_CONNECTION, server: the listener every flow accepts on */
	struct sockaddr_storage peer;   /* client: the target; server: the only host it takes
					   connections from (AF_UNSPEC: any that proves the key) */
	socklen_t peer_len;
};

/** One flow as its thread sees it. Owned by the harness; what only one engine needs is that
 *  engine's, behind priv (its flow_init op). */
struct nb_flow {
	const struct nb_params *p;
	uint32_t index;                 /* 0 .. nflows-1 */
	enum nb_side side;
	bool sends;                     /* stream/pps: this side is the sender of this flow */
	int fd;                         /* CONNECTED: the data socket; -1 for the other data paths */
	const struct nb_flow_reach *reach;   /* PER_CONNECTION, OWN: where the flow goes */
	void *priv;                     /* the engine's own state of this flow (flow_init), or NULL */
	const atomic_bool *stop;        /* set by the harness: leave the loop promptly */
	const atomic_bool *quiesce;     /* senders stop sending; receivers count until stop */
	const _Atomic uint32_t *epoch;  /* the epoch this end is in (see above) */
	_Atomic uint32_t busy;          /* odd while a send or a receive batch is being counted */
	_Atomic uint64_t ep_count[NB_EPOCH_SLOTS];  /* datagrams sent, or received, in epoch ep_tag[i] */
	_Atomic uint32_t ep_tag[NB_EPOCH_SLOTS];
	uint32_t unsettled;             /* harness: the lowest epoch not yet settled */
	uint32_t lag;                   /* receiver: epoch e settles at tick e + lag (1 .. LAG_MAX) */
	_Atomic uint64_t c[NB_C_COUNT];
	_Atomic uint64_t g[NB_G_COUNT];
	_Atomic uint64_t own[NB_OWN_COUNTERS_MAX]; /* the engine's own counters (its counters rows) */
	struct nb_hist *hist;           /* round-trip times, when the engine records them */
	struct nb_hist *lag_hist;       /* scheduled senders: send time - due time of each request
					   (schedule.h); client flows of engines that record latency */
	_Atomic uint64_t cpu_ns;        /* this thread's CPU time, updated by the harness (a thread
					   driving several flows: its first flow's, flowloop.h) */
	struct nb_error err;            /* why the flow failed */
	void *run;                      /* the engine's running state of a flow driven as steps
					   (its steps' open, flowloop.h), or NULL */
};

/** Add to a counter (single writer: a relaxed load and store, no locked instruction). */
static inline void nb_count(struct nb_flow *f, enum nb_counter c, uint64_t n)
{
	atomic_store_explicit(&f->c[c], atomic_load_explicit(&f->c[c], memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/** Add to the engine's own counter i (a row of its counters table; single writer). */
static inline void nb_count_own(struct nb_flow *f, unsigned i, uint64_t n)
{
	atomic_store_explicit(&f->own[i], atomic_load_explicit(&f->own[i], memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/** Set a gauge. */
static inline void nb_gauge_set(struct nb_flow *f, enum nb_gauge g, uint64_t v)
{
	atomic_store_explicit(&f->g[g], v, memory_order_relaxed);
}

/** Store a counter the harness owns from a wrapping 32-bit kernel reading (single writer). */
static inline void nb_count_wrapped32(struct nb_flow *f, enum nb_counter c, uint32_t v)
{
	uint64_t old = atomic_load_explicit(&f->c[c], memory_order_relaxed);
	atomic_store_explicit(&f->c[c], old + (uint32_t)(v - (uint32_t)old), memory_order_relaxed);
}

/** Begin counting a send or a receive batch; returns the epoch to tag or count it in. */
static inline uint32_t nb_flow_enter(struct nb_flow *f)
{
	atomic_fetch_add(&f->busy, 1); /* seq_cst: ordered before the epoch is read */
	return atomic_load(f->epoch);
}

/** The batch of nb_flow_enter is counted. */
static inline void nb_flow_leave(struct nb_flow *f)
{
	atomic_fetch_add_explicit(&f->busy, 1, memory_order_release);
}

/** True once the harness asked the flow to stop. */
static inline bool nb_flow_stopping(const struct nb_flow *f)
{
	return atomic_load_explicit(f->stop, memory_order_relaxed);
}

/** True once senders should stop sending (the drain before the last count). */
static inline bool nb_flow_quiet(const struct nb_flow *f)
{
	return atomic_load_explicit(f->quiesce, memory_order_relaxed) || nb_flow_stopping(f);
}

/** What an engine's `rate:` paces, and so the unit its rates are written and reported in. */
enum nb_rate_kind {
	NB_RATE_KIND_NONE,      /* no rate: the flows run closed loop (rr, crr) */
	NB_RATE_KIND_BITS,      /* bit/s per flow (stream); a packet rate is converted with the size */
	NB_RATE_KIND_PACKETS,   /* packets or messages per second per flow (pps, latency) */
};

/** How an engine's flows load the path: on a schedule (open loop), or one request in flight. */
enum nb_loop {
	NB_LOOP_OPEN,           /* senders follow their own schedule (stream, pps) */
	NB_LOOP_CLOSED,         /* the next request waits for the last answer (rr, crr) */
	NB_LOOP_CLOSED_UNPACED, /* closed loop at rate 0 (ping-pong), open loop when paced (latency) */
};

/** The headline number of a case: the column it is judged by, its unit, which way is better. */
struct nb_headline {
	const char *column;     /* a metric column of runs.csv ("rx_bps", "lat_p50_us" ...) */
	const char *unit;       /* "bit/s", "pkt/s", "trans/s", "us" */
	bool higher_is_better;
};

/** What an engine is, for everything outside engines/ (config, plan, metrics, reports): these
 *  fields are the only place that knows it, so no code outside engines/ compares engine names. */
/** A sentence the report states about an engine's cases, under a stable pitfall code. */
struct nb_engine_note {
	const char *code; /* "icmp-kernel" */
	const char *text; /* one sentence, no case id */
};

/** A probe's term in RPM's TCP variant (draft-ietf-ippm-responsiveness, TCP-only). */
enum nb_rpm_role {
	NB_RPM_NONE = 0,
	NB_RPM_HANDSHAKE,       /* a TCP handshake on a new connection (tcp_f): connect */
	NB_RPM_NEW_RR,          /* handshake + request/response on a new connection: crr */
	NB_RPM_RR,              /* a request/response on an open connection (rr_l): latency, rr */
};

struct nb_engine_traits {
	bool directional;             /* one sender per flow: forward / reverse / bidir apply */
	enum nb_loop loop;
	enum nb_rate_kind rate;
	const char *rate_unit;        /* how its rates print: "bit/s", "pkt/s", "msg/s"; NULL = none */
	unsigned protocols;           /* bit (1u << NB_PROTO_x) of each protocol it runs over */
	enum nb_proto default_proto;
	uint32_t default_size[NB_NPROTO]; /* by protocol; 0 = no `size` (rr, crr) or not that protocol */
	uint32_t min_size[NB_NPROTO]; /* by protocol: the smallest `size` it accepts; 0 as above */
	uint32_t default_request;     /* rr, crr: request and response bytes; 0 = not used */
	uint32_t default_response;
	/** When it runs over one protocol only: why, as the config error says it after "engine
	 *  NAME " ("sends UDP only"); NULL = it runs over both. */
	const char *protocols_note;
	/** The config keys that mean something to this engine beyond the common ones (protocol,
	 *  streams, timing, repetitions, socket options, cpus); NULL-terminated. */
	const char *const *keys;
	/** The `gso` key's default where keys list it: true = UDP_SEGMENT where the kernel offers
	 *  it (stream), false = only when asked (pps, whose GSO rows on a local path are artefacts). */
	bool gso_default;
	struct nb_headline headline;
	/** true: the client's flows record round-trip times (f->hist, and the schedule lag of each
	 *  request in f->lag_hist): rr, crr, latency, icmp, connect. */
	bool records_latency;
	/** What every number of this engine leaves out, stated beside each of its cases in the
	 *  report (a pitfall with this code and text); {NULL, NULL} = nothing to say. */
	struct nb_engine_note caveat;
	/** Why this engine's requests may go unanswered other than the network dropping them,
	 *  stated when a case lost any; {NULL, NULL} = loss means the network. */
	struct nb_engine_note loss_cause;
	/** What its round trips are in RPM's TCP variant (issue 32; reports/analysis/working.h),
	 *  over TCP only; NB_RPM_NONE: none of its terms. */
	enum nb_rpm_role rpm;
};

struct nb_param_def; /* param_defs.h */
struct nb_span;      /* span.h */
struct nb_snapshot;  /* session.h */
struct nb_metrics;   /* cols.h */
struct nb_col_def;   /* cols.h */
struct nb_flow_steps; /* flowloop.h */

/** The ops table of one engine. */
struct nb_engine {
	const char *name;                /* as written in the config's `engine:` */
	const char *summary;             /* one line for --help and the report */
	struct nb_engine_traits traits;  /* what the engine is (see above) */
	/** How its flows reach their other end (see enum nb_datapath). */
	enum nb_datapath datapath;
	/** Optional (NULL = every parameter runs): reject parameters it cannot run, with why. */
	bool (*validate)(const struct nb_params *p, struct nb_error *err);
	/** Optional (NULL = none): set up one flow's own state (f->priv) before any thread runs,
	 *  f's fields but fd set; false with err when it cannot (out of memory). flow_fini frees it,
	 *  once the flow's thread is joined; it is called for every flow flow_init set up. */
	bool (*flow_init)(struct nb_flow *f, struct nb_error *err);
	void (*flow_fini)(struct nb_flow *f);
	/** Thread body of one flow on the client; returns 0, or -1 with f->err set. */
	int (*client_flow)(struct nb_flow *f);
	/** Thread body of one flow on the server (agent); returns 0, or -1 with f->err set. NULL:
	 *  the engine has no agent side (an OWN data path). */
	int (*server_flow)(struct nb_flow *f);
	/** Optional (NULL = none): set options on a flow's data socket once it is connected, before
	 *  any flow thread starts, e.g. a receiver's SO_RCVBUF, so that the first datagrams of a
	 *  peer that starts sending earlier never meet a default-sized buffer. */
	bool (*prepare_socket)(int fd, const struct nb_params *p, bool sends, struct nb_error *err);
	/** Optional: read the flow socket's kernel counters (TCP_INFO, the UDP drop counter) into
	 *  the counters the harness owns; called by the harness at every reading, so each is exact
	 *  at its tick. The flow's own thread never writes those counters. */
	void (*kernel_counters)(struct nb_flow *f);
	/** Optional (NULL = none): how long receivers need after the senders stop for the last
	 *  epoch's datagrams or answers to arrive (UDP: in flight; latency: timeout_ms). */
	uint64_t (*drain_ns)(const struct nb_params *p);
	/** Optional (NULL = none), both or neither: the client's flows count the run's window by due
	 *  time (latency). set_window, before the flow's thread starts: the window [start_ns,
	 *  end_ns) on CLOCK_MONOTONIC; window_hist: the round trips of the window's messages into
	 *  out (merged). The run's result then takes the window's (report_run). */
	void (*set_window)(struct nb_flow *f, uint64_t start_ns, uint64_t end_ns);
	void (*window_hist)(const struct nb_flow *f, struct nb_hist *out);
	/** Optional (NULL = none): the engine's own parameters, ending with a NULL key: rows over
	 *  its own struct in params.own (param_defs.h NB_PARAM_OWN). A config takes them in a test
	 *  of this engine only, the wire carries them after the common ones, and plan.csv has their
	 *  columns when its plan has a case of this engine. */
	const struct nb_param_def *params;
	/** Optional (NULL = none): whether a run that ran to its end measured anything, judged on
	 *  its kept window's counters summed over the flows (sum[NB_C_*]); false with err when it
	 *  did not (connect: every attempt refused). target: "ADDR:PORT" the flows went to. */
	bool (*judge)(const struct nb_params *p, const uint64_t sum[NB_C_COUNT], const char *target,
		      struct nb_error *err);
	/** Optional (NULL = none): its own counters, ending with a NULL name: row i is
	 *  nb_flow.own[i] (nb_count_own), read at every tick like the shared ones. This version
	 *  carries them from the client's flows only: the agent's are not on the wire. */
	const struct nb_counter_def *counters;
	/** Optional (NULL = none): its own columns, ending with a NULL name: row i is
	 *  nb_metrics.own[i], which its report op fills. runs.csv and intervals.csv have them after
	 *  `path` (every registered engine's, in registry order: empty in another engine's rows). */
	const struct nb_col_def *columns;
	/** Its counters into its columns (neper's fn_report): the columns of the flows [lo, hi)
	 *  over the span s, into out (every column NAN before), its own columns in out->own. The
	 *  one place a counter of this engine becomes a column; the shapes several engines share
	 *  are report_shapes.h. */
	void (*report)(const struct nb_engine *e, const struct nb_params *p, const struct nb_span *s,
		       uint32_t lo, uint32_t hi, struct nb_metrics *out);
	/** Optional (NULL = none): the run's own result where it differs from its span's, from
	 *  the client's reading after the drain (latency: the window by due time). */
	void (*report_run)(const struct nb_snapshot *lfinal, struct nb_metrics *out);
	/** Optional (NULL = none): once every flow of this end has its data socket (and
	 *  prepare_socket ran), before any flow thread starts: set up what the flows share (pps on
	 *  the xdp datapath: the interface, the XDP program, the AF_XDP sockets, behind each flow's
	 *  priv). False with err: the session fails before any data. What it set up is freed by
	 *  flow_fini. */
	bool (*prepare_flows)(struct nb_flow *flows, uint32_t n, struct nb_error *err);
	/** Optional (NULL = one thread per flow): the flow as non-blocking steps, so that one
	 *  thread drives several flows over epoll (`threads`, flowloop.h). Where threads = flows
	 *  the harness still runs client_flow / server_flow, one thread each. */
	const struct nb_flow_steps *steps;
	/** Optional (NULL = traits.records_latency alone): whether a case with p records round
	 *  trips though its traits say no (stream with self probes, stream_self.h). */
	bool (*records_latency)(const struct nb_params *p);
};

/** Add e after the shipped engines (a test's engine of its own); false with err when its name
 *  is taken, it has no client_flow or no report op, the registry is full, or its own rows are
 *  too many, outside params.own or named like a common parameter. */
bool nb_engine_register(const struct nb_engine *e, struct nb_error *err);
/** Find an engine by name; NULL if none. */
const struct nb_engine *nb_engine_find(const char *name);
/** The NULL-terminated list of all engines, in registry order. */
const struct nb_engine *const *nb_engine_list(void);
/** The engine that probes latency beside a load over UDP at a message rate through an agent
 *  (a search's latency at % of PDR): the first registered one that records round trips over a
 *  connected UDP socket and is paced when given a rate; NULL when none is. */
const struct nb_engine *nb_engine_udp_probe(void);
/** How long e's receivers drain after its senders stop (its drain_ns op; 0 without one). */
uint64_t nb_engine_drain_ns(const struct nb_engine *e, const struct nb_params *p);
/** Whether e runs over proto; false for e NULL (an unknown engine). */
bool nb_engine_runs_over(const struct nb_engine *e, enum nb_proto proto);
/** Whether key is one of e's own config keys (traits.keys, or an own parameter row); false for
 *  e NULL. */
bool nb_engine_has_key(const struct nb_engine *e, const char *key);
/** Whether e's sizes are a request and a response (rr, crr), not one `size`; false for NULL. */
bool nb_engine_request_response(const struct nb_engine *e);
/** Whether e needs no agent (its flows reach their target by themselves: NB_DATAPATH_OWN);
 *  false for e NULL. */
bool nb_engine_agentless(const struct nb_engine *e);
/** Whether e's client flows record round-trip times (traits.records_latency); false for NULL. */
bool nb_engine_records_latency(const struct nb_engine *e);
/** Whether a case of e with p records round trips: its traits, or its records_latency op. */
bool nb_case_records_latency(const struct nb_engine *e, const struct nb_params *p);
/** Whether a case's client flows record their schedule lag (f->lag_hist, schedule.h): those that
 *  record round trips, and UDP senders paced in user space at a rate (each release's oldest
 *  datagram: what a loss search judges a failing trial's sender by). */
bool nb_case_records_lag(const struct nb_engine *e, const struct nb_params *p);
/** Whether e's run result counts the run's window by due time (its set_window op: latency);
 *  false for e NULL. */
bool nb_engine_due_window(const struct nb_engine *e);
/** Whether a case of e at this per-flow rate runs closed loop (one request in flight per
 *  flow, so mean RTT = flows / rate by Little's law); false for e NULL. */
bool nb_engine_closed_loop(const struct nb_engine *e, uint64_t rate);

#endif
