/* nbrun — pitfalls: methodology checks on the facts of both ends and on case results.
 * Each finding is one line: what is wrong, the evidence, what to do. */
#include "pitfalls.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "params.h"
#include "stats.h"

#define MAX_CPUS 4096
#define STEAL_PCT 5.0 /* stolen CPU time worth a warning */

static const char *const side_name[2] = { "local", "peer" };

static bool add(struct nb_pitfalls *out, const char *code, const char *case_id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool add(struct nb_pitfalls *out, const char *code, const char *case_id, const char *fmt, ...)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 16;
		struct nb_pitfall *v = realloc(out->v, cap * sizeof(*v));
		if (!v)
			return false;
		out->v = v;
		out->cap = cap;
	}
	struct nb_pitfall *p = &out->v[out->n++];
	snprintf(p->code, sizeof(p->code), "%s", code);
	snprintf(p->case_id, sizeof(p->case_id), "%s", case_id ? case_id : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
	return true;
}

bool nb_pitfalls_add(struct nb_pitfalls *out, const char *code, const char *case_id, const char *text)
{
	return add(out, code, case_id, "%s", text);
}

void nb_pitfalls_free(struct nb_pitfalls *p)
{
	if (!p)
		return;
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

/* The case ids of the findings with code, each once, into g. */
static bool group_cases(const struct nb_pitfalls *p, const char *code, struct nb_pitfall_group *g)
{
	g->cases = calloc(p->n, sizeof(*g->cases));
	g->also = calloc(p->n, sizeof(*g->also));
	if (!g->cases || !g->also)
		return false;
	for (size_t i = 0; i < p->n; i++) {
		const struct nb_pitfall *f = &p->v[i];
		if (strcmp(f->code, code) != 0)
			continue;
		g->n++;
		if (f != g->first && f->case_id[0] && strcmp(f->case_id, g->first->case_id) == 0)
			g->also[g->nalso++] = f;
		bool seen = !f->case_id[0];
		for (size_t k = 0; k < g->ncases && !seen; k++)
			seen = strcmp(g->cases[k], f->case_id) == 0;
		if (!seen)
			g->cases[g->ncases++] = f->case_id;
	}
	g->more = g->n - (g->ncases ? g->ncases : 1);
	return true;
}

bool nb_pitfalls_group(const struct nb_pitfalls *p, struct nb_pitfall_group **out, size_t *n)
{
	*n = 0;
	*out = calloc(p->n + 1, sizeof(**out));
	if (!*out)
		return false;
	for (size_t i = 0; i < p->n; i++) {
		bool first = true;
		for (size_t k = 0; k < *n && first; k++)
			first = strcmp((*out)[k].first->code, p->v[i].code) != 0;
		if (!first)
			continue;
		struct nb_pitfall_group *g = &(*out)[(*n)++];
		g->first = &p->v[i];
		if (!group_cases(p, p->v[i].code, g)) {
			nb_pitfalls_groups_free(*out, *n);
			return false;
		}
	}
	return true;
}

void nb_pitfalls_groups_free(struct nb_pitfall_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].cases);
		free(g[i].also);
	}
	free(g);
}

static void print_group(const struct nb_pitfall_group *g, FILE *out)
{
	fprintf(out, "warning: %s", g->first->code);
	if (g->ncases == 1)
		fprintf(out, " %s", g->cases[0]);
	if (g->ncases > 1)
		fprintf(out, " in %zu cases (", g->ncases);
	for (size_t k = 0; g->ncases > 1 && k < g->ncases && k < 3; k++)
		fprintf(out, "%s%s", k ? ", " : "", g->cases[k]);
	if (g->ncases > 3)
		fprintf(out, " and %zu more", g->ncases - 3);
	char more[48];
	fprintf(out, "%s: %s", g->ncases > 1 ? ")" : "", g->first->text);
	if (nb_pitfalls_more(g, more, sizeof(more))[0])
		fprintf(out, " (%s)", more);
	fputc('\n', out);
	for (size_t k = 0; k < g->nalso; k++) /* the first case's other end or direction */
		fprintf(out, "  also: %s\n", g->also[k]->text);
}

const char *nb_pitfalls_more(const struct nb_pitfall_group *g, char *buf, size_t n)
{
	size_t more = g->more > g->nalso ? g->more - g->nalso : 0;
	buf[0] = '\0';
	if (more)
		snprintf(buf, n, "+%zu more like it", more);
	return buf;
}

void nb_pitfalls_print(const struct nb_pitfalls *p, FILE *out)
{
	struct nb_pitfall_group *g;
	size_t n;
	if (!nb_pitfalls_group(p, &g, &n))
		return;
	for (size_t i = 0; i < n; i++)
		print_group(&g[i], out);
	nb_pitfalls_groups_free(g, n);
}

/* Known fact as a number; false when absent, unknown or not numeric. */
static bool num(const struct nb_facts *f, const char *group, const char *key, double *out)
{
	const char *v = nb_facts_value(f, group, key);
	char *end;
	if (!v)
		return false;
	*out = strtod(v, &end);
	return end != v;
}

/* ---- environment checks ------------------------------------------------------ */

static bool check_governor(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	const char *gov = nb_facts_value(f, "cpu", "governor");
	if (!gov || !strcmp(gov, "performance"))
		return true;
	return add(out, "governor", NULL,
		   "CPU frequency scaling is active on the %s end: governor %s; set the performance "
		   "governor (cpupower frequency-set -g performance) or results vary with the clock",
		   who, gov);
}

/* Which NUMA node holds each CPU of engine_cpus; true (and the first foreign node) when one
 * of them lies outside nic_node. */
static bool foreign_node(const struct nb_facts *f, const bool *engine, long nic_node, long *other)
{
	static bool node_cpus[MAX_CPUS];
	char key[48];
	for (long node = 0; node < 1024; node++) {
		snprintf(key, sizeof(key), "numa.node%ld.cpus", node);
		const char *list = nb_facts_value(f, "cpu", key);
		if (!list)
			continue;
		if (node == nic_node || nb_cpulist_parse(list, node_cpus, MAX_CPUS) < 0)
			continue;
		for (size_t c = 0; c < MAX_CPUS; c++)
			if (node_cpus[c] && engine[c]) {
				*other = node;
				return true;
			}
	}
	return false;
}

static bool check_numa(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	static bool engine[MAX_CPUS];
	double nic;
	const char *cpus = nb_facts_value(f, "nbrun", "engine_cpus");
	const char *ifname = nb_facts_value(f, "iface", "name");
	long other;
	if (!num(f, "iface", "numa_node", &nic) || nic < 0 || !cpus ||
	    nb_cpulist_parse(cpus, engine, MAX_CPUS) <= 0 || !foreign_node(f, engine, (long)nic, &other))
		return true;
	return add(out, "numa", NULL,
		   "NIC and engine on different NUMA nodes on the %s end: %s is on node %.0f, engine "
		   "threads ran on CPUs %s (node %ld among them); pin the engine to CPUs of node %.0f",
		   who, ifname ? ifname : "the interface", nic, cpus, other, nic);
}

static bool check_path_mtu(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	double mtu, pmtu;
	/* IP_MTU tops out at 65535 (the IP limit), below loopback's 65536. */
	if (!num(f, "iface", "mtu", &mtu) || !num(f, "iface", "path_mtu", &pmtu) ||
	    pmtu >= (mtu < 65535 ? mtu : 65535))
		return true;
	return add(out, "path-mtu", NULL,
		   "path MTU below the interface MTU on the %s end: path %.0f, interface %.0f; packets "
		   "are fragmented or segmented smaller than configured: set the same MTU along the path",
		   who, pmtu, mtu);
}

/* The module being loaded costs nothing by itself: only a netns whose rules need conntrack
 * registers its hooks, and then every flow, the control connection first, gets an entry. The
 * count is read after the control connection is up (nb_env_collect on the client, the agent's
 * hello), so 0 means the test's own flows are not tracked either. */
static bool check_conntrack(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	const char *ct = nb_facts_value(f, "tcp", "conntrack");
	double count = 0;
	if (!ct || strcmp(ct, "loaded") || !num(f, "tcp", "conntrack_count", &count) || !(count > 0))
		return true;
	return add(out, "conntrack", NULL,
		   "conntrack tracks connections on the %s end (%.0f entries with the test connected): "
		   "every packet of the test pays for stateful tracking; add a NOTRACK rule for the "
		   "test traffic or remove the rules that need conntrack",
		   who, count);
}

static bool check_irqs(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	double irqs = 0, rxq = 0;
	const char *cpus = nb_facts_value(f, "iface", "irq.cpus");
	const char *ifname = nb_facts_value(f, "iface", "name");
	num(f, "iface", "irq.count", &irqs);
	num(f, "iface", "queues.rx", &rxq);
	if (!cpus || nb_cpulist_parse(cpus, NULL, MAX_CPUS) != 1 || (irqs < 2 && rxq < 2))
		return true;
	return add(out, "irq-concentrated", NULL,
		   "NIC interrupts concentrated on one CPU on the %s end: %s has %.0f IRQs and %.0f rx "
		   "queues, all handled on CPU %s; spread them (irqbalance or /proc/irq/N/smp_affinity_list)",
		   who, ifname ? ifname : "the interface", irqs, rxq, cpus);
}

static bool check_mtu_pair(const struct nb_facts *l, const struct nb_facts *p, const char *who,
			   struct nb_pitfalls *out)
{
	double a, b;
	if (!num(l, "iface", "mtu", &a) || !num(p, "iface", "mtu", &b) || a == b)
		return true;
	return add(out, "mtu-mismatch", NULL,
		   "MTU differs between the ends: local %.0f, %s %.0f; the path runs at the smaller one "
		   "and the larger end may fragment or drop: set the same MTU on both ends", a, who, b);
}

/* "on [fixed]" and "on" are the same state for comparison. */
static bool state_on(const char *v)
{
	return !strncmp(v, "on", 2);
}

static bool check_offloads(const struct nb_facts *l, const struct nb_facts *p, const char *who,
			   struct nb_pitfalls *out)
{
	bool peer = strcmp(who, "peer") == 0;
	char diff[400] = "";
	size_t len = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct nb_fact *a = &l->v[i];
		if (strcmp(a->group, "iface") || strncmp(a->key, "offload.", 8) || !a->ok)
			continue;
		const char *b = nb_facts_value(p, "iface", a->key);
		if (!b || state_on(a->value) == state_on(b) || len >= sizeof(diff) - 1)
			continue;
		len += (size_t)snprintf(diff + len, sizeof(diff) - len, "%s%s %s here, %s at %s%s",
					len ? ", " : "", a->key + 8, state_on(a->value) ? "on" : "off",
					state_on(b) ? "on" : "off", peer ? "the " : "", who);
	}
	if (!len)
		return true;
	return add(out, "offload-mismatch", NULL,
		   "offload settings differ between the ends: %s; align them (ethtool -K) or the "
		   "comparison measures the offloads", diff);
}

static bool check_env(const struct nb_facts *f, const char *who, struct nb_pitfalls *out)
{
	return check_governor(f, who, out) && check_numa(f, who, out) &&
	       check_path_mtu(f, who, out) && check_conntrack(f, who, out) &&
	       check_irqs(f, who, out);
}

/* ---- result checks ----------------------------------------------------------- */

/* The directions a case is judged by: each of a bidir case's, else the case as a whole. */
static uint32_t views(const struct nb_pitfall_case *c, struct nb_pitfall_dir v[2])
{
	if (c->ndirs == 2) {
		v[0] = c->dirs[0];
		v[1] = c->dirs[1];
		return 2;
	}
	v[0] = (struct nb_pitfall_dir){ NULL, c->target_rate, c->achieved_rate, c->rcvbuf_drops,
					c->snd_errs };
	return 1;
}

static bool dir_met(const struct nb_pitfall_dir *d)
{
	return isfinite(d->target_rate) && d->target_rate > 0 && isfinite(d->achieved_rate) &&
	       d->achieved_rate >= 0.99 * d->target_rate;
}

/* A paced sender that met its target (every direction's) was not limited by its CPU, whatever
 * its threads used: the pacer spins for the last microseconds before each send on purpose. */
static bool paced_and_met(const struct nb_pitfall_case *c)
{
	struct nb_pitfall_dir v[2];
	uint32_t n = views(c, v);
	for (uint32_t i = 0; i < n; i++)
		if (!dir_met(&v[i]))
			return false;
	return true;
}

/* Only nbrun's own busiest thread at a core shows that the number measures the CPU; *bound
 * says whether one did. */
static bool check_threads(const struct nb_pitfall_case *c, int s, bool met, bool *bound,
			  struct nb_pitfalls *out)
{
	bool dir = !c->eng || c->eng->traits.directional;
	const char *role[2] = { dir ? "sending" : "requesting", dir ? "receiving" : "answering" };
	for (int r = met ? 1 : 0; r < 2; r++) { /* a paced sender at its target: its receiver only */
		double v = c->cpu_thread_max_pct[s][r];
		if (!(isfinite(v) && v >= 90.0))
			continue;
		*bound = true;
		if (!add(out, "cpu-bound", c->case_id,
			 "CPU bound on the %s end: its busiest %s thread used %.0f %% of a core; the "
			 "number measures the CPU, not the network: add streams/threads or use faster CPUs",
			 side_name[s], role[r], v))
			return false;
	}
	return true;
}

static bool check_cpu(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	bool met = paced_and_met(c);
	const double host[2] = { c->host_cpu_local_max_pct, c->host_cpu_peer_max_pct };
	for (int s = 0; s < 2; s++) {
		/* an end whose threads only send at a met pace is busy by design */
		bool only_paced = met && !isfinite(c->cpu_thread_max_pct[s][1]), bound = false;
		if (!check_threads(c, s, met, &bound, out))
			return false;
		/* a busy host is no evidence that our threads ran out of CPU: whoever kept it busy */
		if (!only_paced && !bound && isfinite(host[s]) && host[s] >= 90.0 &&
		    !add(out, "host-busy", c->case_id,
			 "the host was %.0f %% busy on the %s end (other processes or tenants; softirq "
			 "included, steal not): this number may be low; run on a quieter host or check "
			 "what else ran (top, pidstat)", host[s], side_name[s]))
			return false;
		if (isfinite(c->steal_max_pct[s]) && c->steal_max_pct[s] >= STEAL_PCT &&
		    !add(out, "cpu-steal", c->case_id,
			 "the hypervisor took %.0f %% of the %s end's CPU time (steal, counted apart "
			 "from busy): the VM ran on less CPU than it has; use dedicated vCPUs or repeat "
			 "when the host is quieter", c->steal_max_pct[s], side_name[s]))
			return false;
	}
	return true;
}

/* " in the forward direction (client to agent)" for a bidir direction, "" for a whole case. */
static void dir_words(const struct nb_pitfall_dir *d, char *buf, size_t len)
{
	if (!d->name)
		buf[0] = '\0';
	else
		snprintf(buf, len, " in the %s direction (%s)", d->name,
			 strcmp(d->name, "reverse") ? "client to agent" : "agent to client");
}

static bool check_rate(const struct nb_pitfall_case *c, const struct nb_pitfall_dir *d,
		       struct nb_pitfalls *out)
{
	if (!(d->target_rate > 0) || !isfinite(d->achieved_rate) || dir_met(d))
		return true;
	char w[64], a[64], t[64];
	const char *u = c->eng && c->eng->traits.rate_unit ? c->eng->traits.rate_unit : "";
	dir_words(d, w, sizeof(w));
	nb_fmt_value(d->achieved_rate, u, a, sizeof(a));
	nb_fmt_value(d->target_rate, u, t, sizeof(t));
	return add(out, "rate-short", c->case_id,
		   "the sender%s reached %s of its %s target (%.1f %%, lowest run): the result is "
		   "not at the rate asked for; find what held the sender back (CPU, send buffer, a "
		   "shaper on its own interface)", w, a, t, 100.0 * d->achieved_rate / d->target_rate);
}

static bool check_udp_drops(const struct nb_pitfall_case *c, const struct nb_pitfall_dir *d,
			    struct nb_pitfalls *out)
{
	char w[64];
	dir_words(d, w, sizeof(w));
	if (d->rcvbuf_drops > 0 &&
	    !add(out, "rcvbuf-drops", c->case_id,
		 "the receiver's socket buffer dropped %.0f datagrams%s (highest of a run): the "
		 "receiving host lost them, not the network; raise `window` (SO_RCVBUF) or give the "
		 "receiver more CPU", d->rcvbuf_drops, w))
		return false;
	return !(d->snd_errs > 0) ||
	       add(out, "send-errors", c->case_id,
		   "the sender met %.0f send errors (ENOBUFS/EAGAIN)%s (highest of a run): local "
		   "back-pressure, not network loss; lower the rate or raise the send buffer",
		   d->snd_errs, w);
}

/* Datagrams that reached a flow's port but are not the run's: counted apart, never in loss,
 * jitter or data, but someone sent them. */
static bool check_foreign(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	return !(c->foreign_max > 0) ||
	       add(out, "foreign-datagrams", c->case_id,
		   "%.0f datagrams reached a receiving flow's port without this run's cookie or far "
		   "beyond its sequence (highest of a run): another sender's or forged datagrams, "
		   "counted apart in `foreign` and in no other number; find who sends to the data "
		   "ports", c->foreign_max);
}

static bool check_rates_and_drops(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	struct nb_pitfall_dir v[2];
	uint32_t n = views(c, v);
	for (uint32_t i = 0; i < n; i++)
		if (!check_rate(c, &v[i], out) || !check_udp_drops(c, &v[i], out))
			return false;
	return check_foreign(c, out);
}

/* Slow start shapes the first seconds of a bulk TCP transfer: one sender per flow (a
 * directional engine) over TCP. */
static bool check_slow_start(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	enum nb_proto proto = NB_PROTO_UDP;
	if (!c->eng || !c->eng->traits.directional || !nb_proto_parse(c->protocol, &proto) ||
	    proto != NB_PROTO_TCP ||
	    c->omit_s > 0 || !isfinite(c->first_interval) || !isfinite(c->median_interval) ||
	    c->median_interval <= 0 || c->first_interval >= 0.8 * c->median_interval)
		return true;
	char first[48], median[48];
	nb_fmt_value(c->first_interval, c->eng->traits.headline.unit, first, sizeof(first));
	nb_fmt_value(c->median_interval, c->eng->traits.headline.unit, median, sizeof(median));
	return add(out, "slow-start", c->case_id,
		   "slow start not excluded: omit is 0 and the first interval (%s) is %.0f %% of the "
		   "median interval (%s); set omit to a few seconds",
		   first, 100.0 * c->first_interval / c->median_interval, median);
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool check_single_stream(const struct nb_pitfall_case *c, const struct nb_pitfall_case *all,
				size_t n, struct nb_pitfalls *out)
{
	const struct nb_pitfall_case *best = NULL;
	/* Throughput of a directional engine only (stream, pps): lower latency is better, and
	 * transactions are meant to scale with flows. */
	if (!c->eng || !c->eng->traits.directional || c->streams != 1 || !isfinite(c->mean) ||
	    c->mean <= 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		const struct nb_pitfall_case *o = &all[i];
		if (o->streams > 1 && isfinite(o->mean) && same_str(o->test, c->test) &&
		    same_str(o->protocol, c->protocol) && same_str(o->variant, c->variant) &&
		    (!best || o->mean > best->mean))
			best = o;
	}
	if (!best || c->mean >= 0.7 * best->mean)
		return true;
	char one[48], many[48];
	nb_fmt_value(c->mean, c->eng->traits.headline.unit, one, sizeof(one));
	nb_fmt_value(best->mean, c->eng->traits.headline.unit, many, sizeof(many));
	return add(out, "single-stream", c->case_id,
		   "one stream reached %s, %.0f %% of %u streams (%s in %s): a single flow is "
		   "limited by one CPU or window, not the path; quote the multi-stream result for capacity",
		   one, 100.0 * c->mean / best->mean, best->streams, many, best->case_id);
}

/* The same estimate (and cap) summary.csv's reps_for_ci2pct gives. */
unsigned nb_pitfalls_reps_for_ci(double cv, double rel)
{
	return nb_stats_reps_for_cv(cv, rel, NB_STATS_REPS_CAP);
}

static bool check_unstable(const struct nb_pitfall_case *c, double threshold, struct nb_pitfalls *out)
{
	if (c->n < 2 || !isfinite(c->cv) || c->cv <= threshold)
		return true;
	unsigned need = nb_pitfalls_reps_for_ci(c->cv, 0.02);
	if (need > NB_PITFALLS_REPS_REASONABLE) /* advice nobody takes is no advice */
		return add(out, "unstable", c->case_id,
			   "unstable result: CV %.1f %% over %u repetitions (threshold %.1f %%); a ±2 %% "
			   "CI would take more than %u repetitions: the variance is the finding, see this "
			   "case's repetitions and per-interval charts and find its source",
			   100.0 * c->cv, c->n, 100.0 * threshold, NB_PITFALLS_REPS_REASONABLE);
	return add(out, "unstable", c->case_id,
		   "unstable result: CV %.1f %% over %u repetitions (threshold %.1f %%); about %u "
		   "repetitions bring the 95 %% CI under ±2 %%, or find the source of the variance",
		   100.0 * c->cv, c->n, 100.0 * threshold, need);
}

/* What the engine's numbers leave out, and what else its lost requests may mean. */
static bool check_engine_notes(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	const struct nb_engine_note *k = c->eng ? &c->eng->traits.caveat : NULL;
	const struct nb_engine_note *l = c->eng ? &c->eng->traits.loss_cause : NULL;
	if (k && k->code && !add(out, k->code, c->case_id, "%s", k->text))
		return false;
	if (!l || !l->code || !(c->lost_max > 0))
		return true;
	return add(out, l->code, c->case_id, "up to %.0f requests (%.2f %%) of a run went unanswered; %s",
		   c->lost_max, isfinite(c->loss_pct_max) ? c->loss_pct_max : 0.0, l->text);
}

/* Attempts refused in a run that still connected (one with none connected failed): the port
 * was closed part of the time, or the listener's accept queue overflowed. */
static bool check_refused(const struct nb_pitfall_case *c, struct nb_pitfalls *out)
{
	if (!(c->refused_max > 0))
		return true;
	return add(out, "refused", c->case_id, "up to %.0f connection attempts of a run were refused "
		   "(RST) and have no handshake time: the port was closed part of the time, or its "
		   "listener's accept queue was full", c->refused_max);
}

bool nb_pitfalls_check(const struct nb_facts *local, const struct nb_facts *peer,
		       const struct nb_pitfall_case *cases, size_t ncases, double cv_threshold,
		       struct nb_pitfalls *out)
{
	const struct nb_pitfall_host one = { side_name[1], peer }; /* the one agent host */
	if ((local && !check_env(local, side_name[0], out)) ||
	    (peer && !nb_pitfalls_check_hosts(local, &one, 1, out)))
		return false;
	for (size_t i = 0; i < ncases; i++) {
		const struct nb_pitfall_case *c = &cases[i];
		if (!check_cpu(c, out) || !check_rates_and_drops(c, out) || !check_slow_start(c, out) ||
		    !check_single_stream(c, cases, ncases, out) || !check_unstable(c, cv_threshold, out) ||
		    !check_engine_notes(c, out) || !check_refused(c, out))
			return false;
	}
	return true;
}

bool nb_pitfalls_check_hosts(const struct nb_facts *local, const struct nb_pitfall_host *hosts,
			     size_t n, struct nb_pitfalls *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct nb_pitfall_host *h = &hosts[i];
		if (!check_env(h->facts, h->name, out) ||
		    (local && (!check_mtu_pair(local, h->facts, h->name, out) ||
			       !check_offloads(local, h->facts, h->name, out))))
			return false;
	}
	return true;
}

bool nb_pitfalls_add_text(struct nb_pitfalls *out, const char *code, const char *case_id,
			  const char *text)
{
	return add(out, code, case_id, "%s", text);
}
