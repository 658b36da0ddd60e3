/* A case's loss budget over its runs, and the bottleneck sentence (loss_budget.h). A place is
 * named only when it holds more than half of what was lost (or, with nothing lost, of what the
 * sender's kernel refused); else the verdict is "unknown", with the split. */
#include "loss_budget.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double or0(double v)
{
	return isfinite(v) ? v : 0;
}

static double larger(double a, double b)
{
	return !isfinite(a) ? b : !isfinite(b) ? a : fmax(a, b);
}

/* The budget's own column, or for a folder written before it had one (the run's budget was
 * then the window's) the window's. */
static double covered(const double *v, enum nb_col own, enum nb_col window)
{
	return or0(isfinite(v[own]) ? v[own] : v[window]);
}

static void add_run(const struct nb_metrics *m, struct nb_loss_budget *b)
{
	const double *v = m->v;
	b->runs++;
	b->sent += covered(v, NB_COL_LB_SENT, NB_COL_TX_PACKETS);
	b->lost += covered(v, NB_COL_LB_LOST, NB_COL_LOST);
	b->refused += covered(v, NB_COL_LB_SND_ERRS, NB_COL_SND_ERRS);
	b->tx_qdisc += or0(v[NB_COL_LB_TX_QDISC]);
	b->tx_if += or0(v[NB_COL_LB_TX_IF]);
	b->rx_if += or0(v[NB_COL_LB_RX_IF]);
	b->rx_ip_udp += or0(v[NB_COL_LB_RX_IP]) + or0(v[NB_COL_LB_RX_UDP]);
	b->sock += covered(v, NB_COL_LB_RCVBUF, NB_COL_RCVBUF_DROPS);
	b->path += or0(v[NB_COL_LB_PATH]);
	b->excess += or0(v[NB_COL_LB_EXCESS]);
	b->target += or0(v[NB_COL_TARGET_RATE]);
	b->achieved += or0(v[NB_COL_ACHIEVED_RATE]);
	if (v[NB_COL_LB_EXCESS] > 0)
		b->noisy_runs++;
	const enum nb_col tx[2] = { NB_COL_CPU_LOCAL_TX_THREAD_PCT, NB_COL_CPU_PEER_TX_THREAD_PCT };
	const enum nb_col rx[2] = { NB_COL_CPU_LOCAL_RX_THREAD_PCT, NB_COL_CPU_PEER_RX_THREAD_PCT };
	for (int k = 0; k < 2; k++) {
		b->tx_thread = larger(b->tx_thread, v[tx[k]]);
		b->rx_thread = larger(b->rx_thread, v[rx[k]]);
	}
}

bool nb_loss_budget_of_case(const struct nb_results *res, size_t ci, struct nb_loss_budget *out)
{
	*out = (struct nb_loss_budget){ .tx_thread = NAN, .rx_thread = NAN,
					.size = res->cases[ci].size };
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || strcmp(r->kind, "run") != 0 ||
		    (r->path && r->path[0] && strcmp(r->path, NB_PATH_ALL) != 0))
			continue;
		/* a budget is in a row when its parts were read: a path figure or an excess */
		if (!isfinite(r->m.v[NB_COL_LB_PATH]) && !isfinite(r->m.v[NB_COL_LB_EXCESS]))
			continue;
		add_run(&r->m, out);
	}
	return out->runs > 0;
}

static const char *pct(double part, double whole, char *buf, size_t n)
{
	snprintf(buf, n, "%.3g %%", whole > 0 ? 100.0 * part / whole : 0.0);
	return buf;
}

/* The receiver thread's share of a core, as a clause ("" when unknown). */
static const char *thread_clause(double pctv, const char *role, char *buf, size_t n)
{
	if (!isfinite(pctv))
		return "";
	snprintf(buf, n, "; its busiest %s thread used %.0f %% of a core%s", role, pctv,
		 pctv >= 90 ? " (the CPU)" : "");
	return buf;
}

/* Nothing lost: what held the sender back, if anything did. */
static void nothing_lost(const struct nb_loss_budget *b, char *buf, size_t n)
{
	char t[96];
	if (b->refused > 0 && b->tx_qdisc >= 0.5 * b->refused)
		snprintf(buf, n, "the sender's qdisc: it dropped %.0f datagrams, which its socket got "
			 "back as ENOBUFS (%.0f sends refused and made again), none lost on the way%s",
			 b->tx_qdisc, b->refused, thread_clause(b->tx_thread, "sender", t, sizeof(t)));
	else if (b->refused > 0)
		snprintf(buf, n, "the sender's socket: the kernel refused %.0f sends (ENOBUFS/EAGAIN, "
			 "a full send buffer), none lost", b->refused);
	else if (b->tx_thread >= 90 || b->rx_thread >= 90)
		snprintf(buf, n, "the CPU: the busiest %s thread used %.0f %% of a core, nothing lost",
			 or0(b->tx_thread) >= or0(b->rx_thread) ? "sender" : "receiver",
			 fmax(or0(b->tx_thread), or0(b->rx_thread)));
	else if (b->target > 0 && b->achieved >= 0.99 * b->target)
		snprintf(buf, n, "none: the offered rate was sent and carried without a loss or a "
			 "refused send");
	else
		snprintf(buf, n, "unknown: nothing was lost or refused and no thread was at a core");
}

void nb_loss_budget_verdict(const struct nb_loss_budget *b, char *buf, size_t n)
{
	if (b->lost <= 0)
		return nothing_lost(b, buf, n);
	char p[32], t[96];
	const double silent = fmax(0, b->tx_qdisc - b->refused);
	const struct {
		double v;
		const char *what;
	} place[] = {
		{ b->path, "the path: dropped where neither end counts (a router or shaper between "
			   "them, a filter, an MTU below the datagrams)" },
		{ b->sock, "the receiver's socket buffer: it overflowed (a receiver that did not keep "
			   "up, or a buffer (window) too small for the bursts)" },
		{ b->rx_if, "the receiver's interface: its rx drops, missed and errors" },
		{ b->rx_ip_udp, "the receiver's IP and UDP input: discards and errors" },
		{ b->tx_if, "the sender's interface: its tx drops and errors" },
		{ silent, "the sender's qdisc: drops its socket was not told of" },
	};
	size_t best = 0;
	for (size_t i = 1; i < sizeof(place) / sizeof(place[0]); i++)
		if (place[i].v > place[best].v)
			best = i;
	double v = place[best].v;
	if (v <= 0.5 * b->lost) {
		snprintf(buf, n, "unknown: no one place holds most of the %.0f lost datagrams (path "
			 "%.0f, receiver socket %.0f, receiver interface %.0f, receiver IP/UDP %.0f, "
			 "sender interface %.0f, sender qdisc %.0f%s)", b->lost, b->path, b->sock,
			 b->rx_if, b->rx_ip_udp, b->tx_if, silent,
			 b->noisy_runs ? "; the budget is noisy" : "");
		return;
	}
	int k = snprintf(buf, n, "%s — %.0f of %.0f lost datagrams (%s)", place[best].what, v,
			 b->lost, pct(v, b->lost, p, sizeof(p)));
	if (k < 0 || (size_t)k >= n)
		return;
	if (best == 1)
		k += snprintf(buf + k, n - (size_t)k, "%s",
			      thread_clause(b->rx_thread, "receiver", t, sizeof(t)));
	else if (best == 0 && b->sent > 0 && b->lost >= b->sent && isfinite(b->size) && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, "; every datagram was lost: with %.0f-byte "
			      "datagrams (%.0f B on the wire with UDP/IPv4 headers), look for an MTU "
			      "below that inside the path whose ICMP \"fragmentation needed\" is "
			      "filtered (an MTU black hole), or a filter", b->size, b->size + 28);
	if (b->noisy_runs && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "; the budget is noisy in %zu of %zu runs (the host's "
			 "counters saw %.0f drops more than were lost)", b->noisy_runs, b->runs, b->excess);
}

/* The largest of two columns' highest values over the counted runs, and which one it was. */
static double top2(const struct nb_case_stats *c, enum nb_col a, enum nb_col b, bool *second)
{
	double x = c->metric_max[a], y = c->metric_max[b];
	*second = isfinite(y) && (!isfinite(x) || y > x);
	return *second ? y : x;
}

bool nb_case_bottleneck(const struct nb_case_stats *c, char *buf, size_t n)
{
	if (c->value.n == 0)
		return false;
	bool peer;
	double tx = top2(c, NB_COL_CPU_LOCAL_TX_THREAD_PCT, NB_COL_CPU_PEER_TX_THREAD_PCT, &peer);
	bool tx_peer = peer;
	double rx = top2(c, NB_COL_CPU_LOCAL_RX_THREAD_PCT, NB_COL_CPU_PEER_RX_THREAD_PCT, &peer);
	bool rx_peer = peer;
	double host = top2(c, NB_COL_HOST_CPU_LOCAL_PCT, NB_COL_HOST_CPU_PEER_PCT, &peer);
	double retrans = c->metric_mean[NB_COL_RETRANS];
	if (or0(tx) >= 90 || or0(rx) >= 90) {
		bool is_tx = or0(tx) >= or0(rx);
		snprintf(buf, n, "the CPU: the %s's busiest %s thread used %.0f %% of a core",
			 (is_tx ? tx_peer : rx_peer) ? "agent" : "client", is_tx ? "sending" : "receiving",
			 is_tx ? tx : rx);
	} else if (host >= 90)
		snprintf(buf, n, "the %s host's CPU: %.0f %% busy while no flow thread was at a core "
			 "(softirq, interrupts or other processes)", peer ? "agent" : "client", host);
	else if (retrans > 0)
		snprintf(buf, n, "the path or a queue between the ends: TCP retransmitted %.0f segments "
			 "a run (losses it repaired; TCP has no per-place budget)", retrans);
	else
		snprintf(buf, n, "unknown: no thread at a core, no busy host%s",
			 isfinite(retrans) ? ", no retransmission" : "");
	return true;
}

void nb_loss_budget_json(const struct nb_results *res, const struct nb_case_stats *c, json_t *o)
{
	size_t ci = nb_results_case(res, c->pc->case_id);
	struct nb_loss_budget b;
	char v[768];
	bool have = ci != (size_t)-1 && nb_loss_budget_of_case(res, ci, &b);
	json_t *j = !have ? json_null()
			  : json_pack("{s:I s:I s:f s:f s:f s:f s:f s:f s:f s:f s:f s:f}", "runs",
				      (json_int_t)b.runs, "noisy_runs", (json_int_t)b.noisy_runs,
				      "sent", b.sent, "lost", b.lost, "refused", b.refused, "tx_qdisc",
				      b.tx_qdisc, "tx_if", b.tx_if, "rx_if", b.rx_if, "rx_ip_udp",
				      b.rx_ip_udp, "rx_socket", b.sock, "path", b.path, "excess", b.excess);
	json_object_set_new(o, "loss_budget", j ? j : json_null());
	bool said = have ? (nb_loss_budget_verdict(&b, v, sizeof(v)), true)
			 : nb_case_bottleneck(c, v, sizeof(v));
	json_object_set_new(o, "bottleneck", said ? json_string(v) : json_null());
}
