/* nbrun — the notes of a row (see flags.h). */
#include "flags.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kpace.h"
#include "pps_xdp.h"
#include "udpgso.h"

void nb_flags_add(char *out, size_t n, const char *flag)
{
	size_t used = strlen(out);
	snprintf(out + used, n - used, "%s%s", used ? ";" : "", flag);
}

uint64_t nb_flags_gauge_max(const struct nb_test_result *res, enum nb_gauge g)
{
	uint64_t v = 0;
	const struct nb_snapshot *ends[2] = { res->lfinal, res->pfinal };
	for (int e = 0; e < 2; e++)
		for (uint32_t f = 0; ends[e] && f < ends[e]->nflows; f++)
			if (ends[e]->flow[f].g[g] > v)
				v = ends[e]->flow[f].g[g];
	return v;
}

/* "key=name" when name is not empty (a gauge that does not apply names nothing). */
static void add_fact(char *out, size_t n, const char *key, const char *name)
{
	char f[48];
	if (!name[0])
		return;
	snprintf(f, sizeof(f), "%s=%s", key, name);
	nb_flags_add(out, n, f);
}

/* "1ms", "250us": a burst as the config spells it. */
static void burst_name(uint32_t us, char *buf, size_t len)
{
	if (us && us % 1000 == 0)
		snprintf(buf, len, "%ums", us / 1000);
	else
		snprintf(buf, len, "%uus", us);
}

/* pps on the xdp datapath: the weakest mode of both ends' sockets and programs, the most queues
 * an end has, every queue that carried its frames and the threads that read them (pps_xdp.h). */
static void xdp_facts(const struct nb_test_result *res, char *out, size_t n)
{
	uint64_t g = 0, queues = 0;
	uint32_t readers = 0;
	const struct nb_snapshot *ends[2] = { res->lfinal, res->pfinal };
	for (int e = 0; e < 2; e++)
		for (uint32_t f = 0; ends[e] && f < ends[e]->nflows; f++) {
			uint64_t v = ends[e]->flow[f].g[NB_G_XDP];
			g |= v & ~(uint64_t)0xff00u;
			queues = NB_XDP_G_QUEUES(v) > queues ? NB_XDP_G_QUEUES(v) : queues;
			readers += (v & NB_XDP_G_READER) != 0;
		}
	char words[192];
	nb_pps_xdp_facts(g | queues << 8, readers, words, sizeof(words));
	char *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		nb_flags_add(out, n, w);
}

void nb_flags_data_path(const struct nb_test_result *res, const struct nb_params *p, char *out,
			size_t n)
{
	enum nb_pacing how = (enum nb_pacing)nb_flags_gauge_max(res, NB_G_PACING);
	add_fact(out, n, "pacing", nb_pacing_name(how));
	if (how == NB_PACING_USER) { /* the kernel's pacing has no burst of ours */
		char b[16];
		burst_name(p->burst_us, b, sizeof(b));
		add_fact(out, n, "burst", b);
	}
	add_fact(out, n, "gso", nb_gso_name((enum nb_gso)nb_flags_gauge_max(res, NB_G_GSO)));
	add_fact(out, n, "gro", nb_gro_name((enum nb_gro)nb_flags_gauge_max(res, NB_G_GRO)));
	xdp_facts(res, out, n);
}

/* The whole run of a UDP case whose datagrams carry the sequence header (a directional engine:
 * pps, stream over UDP),
 * from both ends' last readings, after the drain: every datagram the senders put on the wire
 * and every one the receivers took, warm-up, omit and the tail after the window included, and
 * the receivers' own drops (rcvbuf_drops) over the same span. The window's columns count less:
 * these are what an interface's counters over the run add up to. */
void nb_flags_totals(const struct nb_test_result *res, const struct nb_engine *e,
		     const struct nb_params *p, char *out, size_t n)
{
	if (p->proto != NB_PROTO_UDP || !e->traits.directional || !res->lfinal || !res->pfinal)
		return; /* an end without its last reading: no whole-run count to state */
	uint64_t tx = 0, rx = 0, drops = 0;
	const struct nb_snapshot *ends[2] = { res->lfinal, res->pfinal };
	for (int k = 0; k < 2; k++)
		for (uint32_t f = 0; f < ends[k]->nflows; f++) {
			const struct nb_flow_snap *s = &ends[k]->flow[f];
			if (s->sends) {
				tx += s->c[NB_C_TX_PACKETS];
			} else {
				rx += s->c[NB_C_RX_PACKETS];
				drops += s->c[NB_C_RCVBUF_DROPS];
			}
		}
	char f[96];
	snprintf(f, sizeof(f), "tx_total=%" PRIu64 ";rx_total=%" PRIu64 ";rcvbuf_drops_total=%" PRIu64,
		 tx, rx, drops);
	nb_flags_add(out, n, f);
}

/* "key=650ms": a duration of us microseconds, 3 digits, no space (a flag is one word). */
static void add_duration(char *out, size_t n, const char *key, double us)
{
	char f[64];
	if (us >= 1e6)
		snprintf(f, sizeof(f), "%s=%.3gs", key, us / 1e6);
	else if (us >= 1e3)
		snprintf(f, sizeof(f), "%s=%.3gms", key, us / 1e3);
	else
		snprintf(f, sizeof(f), "%s=%.3gus", key, us);
	nb_flags_add(out, n, f);
}

void nb_flags_verdict(const struct nb_run_verdict *v, char *out, size_t n)
{
	if (v->suspect[0])
		nb_flags_add(out, n, "suspect");
	if (v->nothing[0])
		nb_flags_add(out, n, "nothing-received");
	if (v->stall[0])
		add_duration(out, n, "timeline-stall", v->stall_gap_s * 1e6);
}

bool nb_flags_lag_matters(const struct nb_metrics *m)
{
	double p99 = m->v[NB_COL_SCHED_LAG_P99_US], max = m->v[NB_COL_SCHED_LAG_MAX_US];
	double lag = isfinite(p99) ? p99 : max, p50 = m->v[NB_COL_LAT_P50_US];
	return isfinite(lag) && isfinite(p50) && lag > 0 && lag >= p50;
}

void nb_flags_sched_lag(const struct nb_metrics *m, char *out, size_t n)
{
	if (nb_flags_lag_matters(m))
		add_duration(out, n, "schedule-lag", m->v[NB_COL_SCHED_LAG_MAX_US]);
}
