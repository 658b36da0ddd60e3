/* nbrun — what a finished run's own readings hold against it (see runcheck.h). */
#include "runcheck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

/* The counters' names as the sentences give them. */
static const char *const counter_name[NB_C_COUNT] = {
	[NB_C_TX_BYTES] = "tx_bytes", [NB_C_TX_PACKETS] = "tx_packets", [NB_C_RX_BYTES] = "rx_bytes",
	[NB_C_RX_PACKETS] = "rx_packets", [NB_C_DUP] = "dup", [NB_C_REORDER] = "reorder",
	[NB_C_SND_ERRS] = "snd_errs", [NB_C_RCVBUF_DROPS] = "rcvbuf_drops",
	[NB_C_TRANSACTIONS] = "transactions", [NB_C_TIMEOUTS] = "timeouts",
	[NB_C_CONNECTS] = "connects", [NB_C_CONNECT_NS] = "connect time", [NB_C_RETRANS] = "retrans",
	[NB_C_TX_SETTLED] = "settled tx_packets", [NB_C_RX_SETTLED] = "settled rx_packets",
	[NB_C_LATE] = "late", [NB_C_WIN_SENT] = "window's sent", [NB_C_WIN_ANSWERED] = "window's answered",
	[NB_C_PACE_FORGIVEN] = "pace_forgiven", [NB_C_REFUSED] = "refused",
	[NB_C_BYTES_RETRANS] = "bytes_retrans",
};

static const char *name_of(int c)
{
	return counter_name[c] ? counter_name[c] : "a counter";
}

bool nb_runcheck_init(struct nb_runcheck *rc, const char *who0, const char *who1)
{
	*rc = (struct nb_runcheck){ .who = { who0, who1 }, .late_end = -1 };
	rc->last[0] = nb_snapshot_create(false);
	rc->last[1] = nb_snapshot_create(false);
	return rc->last[0] && rc->last[1];
}

void nb_runcheck_free(struct nb_runcheck *rc)
{
	nb_snapshot_destroy(rc->last[0]);
	nb_snapshot_destroy(rc->last[1]);
	rc->last[0] = rc->last[1] = NULL;
}

static void suspect(struct nb_runcheck *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void suspect(struct nb_runcheck *rc, const char *fmt, ...)
{
	if (rc->suspect[0])
		return; /* the first one found is the one to show */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rc->suspect, sizeof(rc->suspect), fmt, ap);
	va_end(ap);
}

/* Whether counter c may go back at tick k: a UDP receiver's live gap count always; a TCP
 * receiver's bytes once the window is past (k > K), when its estimate of the bytes waiting out
 * of order is dropped for the in-order count exactly (tcprx.h). */
static bool may_go_back(int c, uint32_t k, uint32_t nticks)
{
	return c == NB_C_LOST || (c == NB_C_RX_BYTES && k > nticks);
}

/* Every cumulative counter of every flow at least where it was at the end's last reading. */
static void monotonic(struct nb_runcheck *rc, int end, uint32_t k, uint32_t nticks,
		      const struct nb_snapshot *s)
{
	const struct nb_snapshot *a = rc->last[end];
	if (s->nflows != a->nflows) {
		suspect(rc, "the %s's tick %u reads %u flows, its tick %u %u", rc->who[end], k,
			s->nflows, rc->last_k[end], a->nflows);
		return;
	}
	for (uint32_t f = 0; f < s->nflows; f++)
		for (int c = 0; c < NB_C_COUNT; c++)
			if (!may_go_back(c, k, nticks) && s->flow[f].c[c] < a->flow[f].c[c])
				suspect(rc, "the %s's %s of flow %u went back from %llu at tick %u to %llu "
					"at tick %u (a cumulative counter never decreases)", rc->who[end],
					name_of(c), f, (unsigned long long)a->flow[f].c[c],
					rc->last_k[end], (unsigned long long)s->flow[f].c[c], k);
}

/* CPU time per second of an end's engine threads from t0 to reading b (NAN: no time). */
static double cpu_rate(uint64_t t0, uint64_t cpu0, const struct nb_snapshot *b)
{
	return b->t_ns > t0 ? (double)(b->engine_cpu_ns - cpu0) / (double)(b->t_ns - t0) : NAN;
}

/* Whether an end's engine threads kept their pace over the gap before reading s, while its
 * tick came late: their CPU time per second at least half of what it was from the end's start
 * to its reading before (which must be at least 1 % of a core: below that, nothing tells a
 * stopped thread from an idle one). */
static bool threads_ran(const struct nb_runcheck *rc, int end, uint64_t start_ns,
			const struct nb_snapshot *s, bool have_last)
{
	const struct nb_snapshot *a = rc->last[end];
	if (!have_last || s->engine_cpu_ns < a->engine_cpu_ns)
		return false;
	double before = cpu_rate(start_ns, 0, a), during = cpu_rate(a->t_ns, a->engine_cpu_ns, s);
	return before >= 0.01 && during >= NB_STALL_PACE * before;
}

/* How late tick k of an end came, against its own schedule; a late tick whose engine threads
 * stopped too outranks any other. Only the ticks that close an interval of the run's result
 * count: a late baseline or first kept tick only moves where the window starts, the omitted
 * and cool-down intervals are no part of it, and the ticks after the drain come back to back
 * by design. */
static void lateness(struct nb_runcheck *rc, const struct nb_timeline *tl, int end, uint64_t start_ns,
		     uint32_t k, const struct nb_snapshot *s, bool have_last)
{
	if (k <= nb_timeline_first_kept(tl) || k > nb_timeline_last_kept(tl))
		return;
	uint64_t due = start_ns + tl->warmup + nb_timeline_tick_offset(tl, k);
	uint64_t late = s->t_ns > due ? s->t_ns - due : 0;
	double tol = fmax(NB_STALL_FRACTION * (double)tl->interval, (double)NB_STALL_MIN_NS);
	if ((double)late <= tol)
		return;
	bool ran = threads_ran(rc, end, start_ns, s, have_last);
	rc->stalled |= !ran;
	if (rc->late_end >= 0 && (ran ? !rc->late_ran || late <= rc->late_ns
				      : !rc->late_ran && late <= rc->late_ns))
		return;
	rc->late_ns = late;
	rc->late_tick = k;
	rc->late_end = end;
	rc->late_ran = ran;
	rc->gap_ns = have_last && s->t_ns > rc->last[end]->t_ns ? s->t_ns - rc->last[end]->t_ns : 0;
}

void nb_runcheck_reading(struct nb_runcheck *rc, const struct nb_timeline *tl, int end,
			 uint64_t start_ns, uint32_t k, const struct nb_snapshot *s)
{
	if (end < 0 || end > 1 || !rc->last[end])
		return;
	if (rc->seen[end])
		monotonic(rc, end, k, tl->nticks, s);
	lateness(rc, tl, end, start_ns, k, s, rc->seen[end]);
	struct nb_snapshot *l = rc->last[end];
	*l = *s;
	l->hist = l->lag = NULL; /* the reading's own; only the counters are kept */
	rc->last_k[end] = k;
	rc->seen[end] = true;
}

static double cdiff(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t f,
		    enum nb_counter c)
{
	return (double)b->flow[f].c[c] - (double)a->flow[f].c[c];
}

/* One flow of a directional engine: its receiver never counts more than its sender sent. */
static void flow_identities(struct nb_runcheck *rc, const struct nb_params *p, const struct nb_span *sp,
			    const struct nb_snapshot *lend, const struct nb_snapshot *pend, uint32_t f)
{
	bool cs = nb_params_client_sends(p, f);
	const char *sw = rc->who[cs ? 0 : 1], *rw = rc->who[cs ? 1 : 0];
	const struct nb_snapshot *sfin = cs ? lend : pend, *rfin = cs ? pend : lend;
	if (p->proto == NB_PROTO_TCP) {
		/* the sender's last reading may come before its socket sent what it still held */
		uint64_t rx = rfin->flow[f].c[NB_C_RX_BYTES], tx = sfin->flow[f].c[NB_C_TX_BYTES];
		uint64_t slack = 2ull * p->window > NB_INFLIGHT_SLACK ? 2ull * p->window : NB_INFLIGHT_SLACK;
		if (rx > tx + slack)
			suspect(rc, "flow %u: the %s received %llu bytes over the whole flow, more than "
				"the %s put on the wire (%llu, retransmissions included) and could still "
				"hold (%llu)", f, rw, (unsigned long long)rx, sw, (unsigned long long)tx,
				(unsigned long long)slack);
		return;
	}
	const struct nb_snapshot *s0 = cs ? sp->l0 : sp->p0, *s1 = cs ? sp->l1 : sp->p1;
	const struct nb_snapshot *r0 = cs ? sp->p0n : sp->l0n, *r1 = cs ? sp->p1n : sp->l1n;
	double txp = cdiff(s0, s1, f, NB_C_TX_SETTLED), rxp = cdiff(r0, r1, f, NB_C_RX_SETTLED);
	if (rxp > txp)
		suspect(rc, "flow %u: the %s counted %.0f datagrams received of the %.0f the %s sent in "
			"the run's window (each is counted once, by its sequence number)", f, rw, rxp,
			txp, sw);
}

void nb_runcheck_result(struct nb_runcheck *rc, const struct nb_engine *e, const struct nb_params *p,
			const struct nb_span *span, const struct nb_snapshot *lend,
			const struct nb_snapshot *pend, const struct nb_metrics *m)
{
	if (!e->traits.directional || !lend || !pend || !span)
		return;
	uint32_t n = nb_params_nflows(p);
	if (lend->nflows < n || pend->nflows < n) {
		suspect(rc, "the ends read %u and %u flows of the run's %u", lend->nflows, pend->nflows, n);
		return;
	}
	for (uint32_t f = 0; f < n; f++)
		flow_identities(rc, p, span, lend, pend, f);
	if (p->proto == NB_PROTO_TCP && m->v[NB_COL_RX_BYTES] == 0 && m->v[NB_COL_TX_BYTES] > 0)
		suspect(rc, "the receivers counted no byte in the run's window while the senders put %.0f "
			"on the wire", m->v[NB_COL_TX_BYTES]);
}

static void stall_text(const struct nb_runcheck *rc, const struct nb_timeline *tl,
		       struct nb_run_verdict *v)
{
	if (rc->late_end < 0)
		return;
	char gap[64] = "";
	if (rc->gap_ns)
		snprintf(gap, sizeof(gap), ", %.3g s after tick %u", (double)rc->gap_ns / 1e9,
			 rc->late_tick - 1);
	snprintf(v->stall, sizeof(v->stall), "the %s's tick %u came %.3g s late%s (interval %.3g s): "
		 "%s", rc->who[rc->late_end], rc->late_tick, (double)rc->late_ns / 1e9, gap,
		 (double)tl->interval / 1e9, rc->late_ran ? "its engine threads kept their pace "
		 "meanwhile, so the counts hold" : "its process did not run meanwhile");
	v->stall_gap_s = (double)(rc->gap_ns ? rc->gap_ns : rc->late_ns) / 1e9;
	v->stalled = rc->stalled;
}

/* UDP datagrams are counted by sequence number: a run whose receivers got none measured no
 * path, whether what left was lost or the kernel refused to send it at all (an interface that
 * cannot carry the datagram answers ENOBUFS). */
static void nothing_text(const struct nb_metrics *m, const struct nb_params *p,
			 const struct nb_engine *e, struct nb_run_verdict *v)
{
	double tx = m->v[NB_COL_TX_PACKETS], errs = m->v[NB_COL_SND_ERRS];
	if (!e->traits.directional || p->proto != NB_PROTO_UDP || !(m->v[NB_COL_RX_PACKETS] == 0))
		return;
	if (tx > 0)
		snprintf(v->nothing, sizeof(v->nothing), "nothing received: none of the %.0f datagrams "
			 "of %u B sent in the run's window arrived", tx, p->size);
	else if (errs > 0)
		snprintf(v->nothing, sizeof(v->nothing), "nothing received: no datagram of %u B left, "
			 "the kernel refused all %.0f sends (ENOBUFS/EAGAIN)", p->size, errs);
	else
		snprintf(v->nothing, sizeof(v->nothing), "nothing received: nothing was sent either");
}

void nb_runcheck_verdict(const struct nb_runcheck *rc, const struct nb_timeline *tl,
			 const struct nb_metrics *m, const struct nb_params *p,
			 const struct nb_engine *e, struct nb_run_verdict *v)
{
	memset(v, 0, sizeof(*v));
	stall_text(rc, tl, v);
	snprintf(v->suspect, sizeof(v->suspect), "%s", rc->suspect);
	nothing_text(m, p, e, v);
}

bool nb_run_verdict_any(const struct nb_run_verdict *v)
{
	return v->stalled || v->suspect[0] || v->nothing[0];
}

void nb_run_verdict_take_stall(struct nb_run_verdict *v, const struct nb_run_verdict *part,
			       const char *name)
{
	if (!part->stall[0] || part->stalled < v->stalled ||
	    (part->stalled == v->stalled && part->stall_gap_s <= v->stall_gap_s))
		return;
	snprintf(v->stall, sizeof(v->stall), "%.60s: %.180s", name, part->stall);
	v->stall_gap_s = part->stall_gap_s;
	v->stalled = part->stalled;
}

void nb_run_verdict_text(const struct nb_run_verdict *v, char *out, size_t n)
{
	if (!nb_run_verdict_any(v))
		return;
	const char *stall = v->stalled ? v->stall : "";
	snprintf(out, n, "%s%s%s%s%s%s%s", v->suspect[0] ? "suspect counters: " : "", v->suspect,
		 v->suspect[0] && (v->nothing[0] || stall[0]) ? "; " : "", v->nothing,
		 v->nothing[0] && stall[0] ? "; " : "", stall[0] ? "timeline stall: " : "", stall);
}
