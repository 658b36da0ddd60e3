/* nbrun — where a case's lost datagrams went: its runs' loss budget columns (lb_*, docs/reports.md
 * "Where the packets were lost") added up over its repetitions, and a one-sentence verdict on
 * the bottleneck from that and what else the rows record (the busiest threads). */
#ifndef NB_LOSS_BUDGET_H
#define NB_LOSS_BUDGET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "results.h"
#include "summary.h"

/** A case's budget over its runs (kind run, path all, a budget in the row: any status, so a run
 *  that received nothing shows where it all went). Counts are sums over those runs. */
struct nb_loss_budget {
	size_t runs, noisy_runs;        /* runs with a budget; of them, those whose parts exceed the loss */
	double sent, lost, refused;     /* lb_sent, lb_lost, lb_snd_errs: the whole tests' */
	double tx_qdisc, tx_if;         /* the sending end(s) */
	double rx_if, rx_ip_udp, sock;  /* the receiving end(s); sock = lb_rcvbuf_drops */
	double path, excess;            /* lb_path over the runs that add up; lb_excess over all */
	double tx_thread, rx_thread;    /* the busiest sender / receiver thread, % of a core (max) */
	double size;                    /* datagram payload, bytes (NAN unknown) */
	double target, achieved;        /* paced: target_rate and achieved_rate summed (0 unpaced) */
};

/** Case ci's budget; false when none of its runs has one (not a UDP stream or pps case). */
bool nb_loss_budget_of_case(const struct nb_results *res, size_t ci, struct nb_loss_budget *out);
/** The bottleneck in one sentence (no trailing period), "unknown: ..." when the evidence does not
 *  decide. */
void nb_loss_budget_verdict(const struct nb_loss_budget *b, char *buf, size_t n);

/** The bottleneck of a case without a budget (TCP, rr, latency ...), from its counted runs'
 *  statistics: a flow thread at a core (the CPU), a host busy with no thread at a core (softirq
 *  or other work), TCP's retransmissions (loss somewhere on the path or in a queue, repaired),
 *  else "unknown: ..."; false when the case has no counted run. */
bool nb_case_bottleneck(const struct nb_case_stats *c, char *buf, size_t n);

/** results.json's "loss_budget" of case c ({runs, noisy_runs, sent, lost, refused, tx_qdisc,
 *  tx_if, rx_if, rx_ip_udp, rx_socket, path, excess}; null without a budget) and its
 *  "bottleneck" sentence (null without one), set on the case's object o. */
void nb_loss_budget_json(const struct nb_results *res, const struct nb_case_stats *c, json_t *o);

#endif
