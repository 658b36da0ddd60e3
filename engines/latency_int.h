/* nbrun — the latency engine's window by due time, shared by its two files: latency.c runs the
 * flows, latency_window.c keeps each client flow's window behind f->priv (its flow_init op),
 * sets it, merges its round trips and makes the run's result from its counts. Internal to
 * those two files. */
#ifndef NB_LATENCY_INT_H
#define NB_LATENCY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <string.h>

#include "engine.h"
#include "hist.h"
#include "flowloop.h"
#include "io.h"
#include "schedule.h"

#define NB_LAT_HDR 24u                 /* magic, flow, sequence number, due time */
#define NB_LAT_MAGIC 0x4e424c54u       /* "NBLT" */
#define NB_LAT_DEFAULT_TIMEOUT_MS 1000u
#define NB_LAT_WIN_MAX (1ull << 26)    /* UDP: most messages in flight tracked (8 MiB bitmap) */
#define NB_LAT_TCP_IN_BUF (64u * 1024)

/** A latency flow's own state: the run's window by due time and its round trips. */
struct nb_latency_flow {
	uint64_t win_start_ns, win_end_ns; /* [start, end) on CLOCK_MONOTONIC; 0, 0 = none */
	struct nb_hist *win_hist;          /* client: round-trip times of the window's messages */
};

static inline const struct nb_latency_flow *nb_latency_of(const struct nb_flow *f)
{
	return f->priv;
}

/** Whether a message due (ping-pong: sent) at due_ns belongs to the run's window. */
static inline bool nb_latency_in_window(const struct nb_flow *f, uint64_t due_ns)
{
	const struct nb_latency_flow *l = nb_latency_of(f);
	return due_ns >= l->win_start_ns && due_ns < l->win_end_ns;
}

/* ---- the message header, what both flows of a client count ---- */

static inline void nb_lat_hdr_put(unsigned char *b, uint32_t flow, uint64_t seq, uint64_t sched_ns)
{
	uint32_t m = NB_LAT_MAGIC;
	memcpy(b, &m, 4);
	memcpy(b + 4, &flow, 4);
	memcpy(b + 8, &seq, 8);
	memcpy(b + 16, &sched_ns, 8);
}

static inline bool nb_lat_hdr_get(const unsigned char *b, size_t len, uint32_t flow, uint64_t *seq,
		    uint64_t *sched_ns)
{
	uint32_t m, fl;
	if (len < NB_LAT_HDR)
		return false;
	memcpy(&m, b, 4);
	memcpy(&fl, b + 4, 4);
	memcpy(seq, b + 8, 8);
	memcpy(sched_ns, b + 16, 8);
	return m == NB_LAT_MAGIC && fl == flow;
}

static inline uint64_t nb_lat_timeout_ns(const struct nb_params *p)
{
	return (uint64_t)(p->timeout_ms ? p->timeout_ms : NB_LAT_DEFAULT_TIMEOUT_MS) * 1000000ull;
}

static inline void nb_lat_count_io(struct nb_flow *f, bool tx, size_t bytes, uint64_t msgs)
{
	nb_count(f, tx ? NB_C_TX_BYTES : NB_C_RX_BYTES, bytes);
	nb_count(f, tx ? NB_C_TX_PACKETS : NB_C_RX_PACKETS, msgs);
}

/* A message of the window went out: the window counts it until it is answered. */
static inline void nb_lat_window_sent(struct nb_flow *f, uint64_t due_ns)
{
	if (nb_latency_in_window(f, due_ns))
		nb_count(f, NB_C_WIN_SENT, 1);
}

static inline void nb_lat_answered(struct nb_flow *f, uint64_t due_ns, uint64_t rtt_ns)
{
	if (f->hist)
		nb_hist_record(f->hist, rtt_ns);
	nb_count(f, NB_C_TRANSACTIONS, 1);
	if (!nb_latency_in_window(f, due_ns))
		return;
	if (nb_latency_of(f)->win_hist)
		nb_hist_record(nb_latency_of(f)->win_hist, rtt_ns);
	nb_count(f, NB_C_WIN_ANSWERED, 1);
}

/** A client flow under load (rate > 0): its schedule, what it sent and what came back
 *  (latency_load.c). */
/* One flow's sender/receiver state under load. */
struct nb_lat_ul {
	struct nb_flow *f;
	uint32_t size;
	bool udp;
	uint64_t rate, t0, tmo_ns;
	uint64_t next;            /* next sequence number to send */
	uint64_t got;             /* TCP: replies received */
	unsigned char *out;       /* the message being sent */
	size_t out_off;           /* bytes of it already sent */
	bool out_busy;            /* a message is partly sent */
	bool want_write;          /* the socket pushed back: wait for POLLOUT */
	unsigned char *in;        /* TCP: reassembly of echoed messages */
	size_t in_len, in_cap;
	struct nb_sched_timer timer; /* how late its timed sleeps end (schedule.h) */
	uint64_t *bits;           /* UDP: answered flags of seq oldest .. next-1 (bit seq % win) */
	uint64_t win, oldest;     /* UDP: window size (power of two); lowest unresolved seq */
};

/** Set up u for flow f (its socket non-blocking; out: a message, in: NB_LAT_TCP_IN_BUF or the
 *  size); false with f->err set (then free u->bits). */
bool nb_lat_ul_init(struct nb_lat_ul *u, struct nb_flow *f, unsigned char *out,
		    unsigned char *in);
/** One pass, never blocking: send what is due, read what came, expire what is late;
 *  NB_IO_STOP once nothing is to be sent or answered any more. */
enum nb_io nb_lat_ul_pass(struct nb_lat_ul *u);
/** What u waits for after a pass at now: the next due time or UDP expiry (0: none before a
 *  slice), and whether the socket's room (*write). */
uint64_t nb_lat_ul_next_ns(const struct nb_lat_ul *u, bool *write);
/** The blocking client under load (a thread per flow). */
int nb_lat_ul_client(struct nb_flow *f, unsigned char *out, unsigned char *in);

/** The client and server flows as steps (latency_steps.c), `wait: block` only. */
extern const struct nb_flow_steps nb_latency_steps;

/** The engine's ops over that state (latency_window.c; see engine.h). */
bool nb_latency_flow_init(struct nb_flow *f, struct nb_error *err);
void nb_latency_flow_fini(struct nb_flow *f);
void nb_latency_set_window(struct nb_flow *f, uint64_t start_ns, uint64_t end_ns);
void nb_latency_window_hist(const struct nb_flow *f, struct nb_hist *out);
void nb_latency_report_run(const struct nb_snapshot *lfinal, struct nb_metrics *out);

#endif
