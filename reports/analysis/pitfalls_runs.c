/* nbrun — the warnings of what the run side held against its runs (see pitfalls_runs.h). */
#include "pitfalls_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

#define TEXT 512

/* The value of flag word in a ';'-separated list ("" for a bare word), or NULL without it. */
static const char *flag_value(const char *flags, const char *word, char *buf, size_t n)
{
	size_t w = strlen(word);
	for (const char *p = flags; p && *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= w && strncmp(p, word, w) == 0 && (len == w || p[w] == '=')) {
			size_t v = len > w ? len - w - 1 : 0;
			snprintf(buf, n, "%.*s", (int)v, len > w ? p + w + 1 : "");
			return buf;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* A flag's duration ("2.49s", "650ms", "45us") in seconds; 0 when it has none. */
static double flag_seconds(const char *v)
{
	char *end;
	double x = strtod(v, &end);
	return !strcmp(end, "s") ? x : !strcmp(end, "ms") ? x / 1e3 : !strcmp(end, "us") ? x / 1e6 : 0;
}

/* One case's rows that carry one flag: how many of how many, and the worst of them. */
struct tally {
	size_t n, of;
	bool trials;                   /* the case's rows are sweep trials */
	const struct nb_run *worst;    /* the largest flag value (the first when none has one) */
	double worst_s;
	double lag_max_us, lag_p99_us; /* schedule-lag: the largest over the flagged rows */
};

static void tally(const struct nb_results *res, size_t ci, const char *word, struct tally *t)
{
	*t = (struct tally){ .lag_max_us = NAN, .lag_p99_us = NAN };
	char v[64];
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || !strcmp(r->status, "interrupted"))
			continue;
		t->of++;
		t->trials |= !strcmp(r->kind, "trial");
		if (!flag_value(r->flags, word, v, sizeof(v)))
			continue;
		t->n++;
		double s = flag_seconds(v);
		if (!t->worst || s > t->worst_s) {
			t->worst = r;
			t->worst_s = s;
		}
		t->lag_max_us = fmax(t->lag_max_us, r->m.v[NB_COL_SCHED_LAG_MAX_US]);
		t->lag_p99_us = fmax(t->lag_p99_us, r->m.v[NB_COL_SCHED_LAG_P99_US]);
	}
}

/* " (1 of 3 runs, status invalid: left out of the statistics)" or the trials' words. */
static void count_words(const struct tally *t, const char *status, const char *fate, char *buf,
			size_t n)
{
	snprintf(buf, n, " (%zu of %zu %s, status %s: %s)", t->n, t->of, t->trials ? "trials" : "runs",
		 status, fate);
}

/* One finding of a row's error column, which lists them "LEAD: evidence; LEAD: evidence"
 * (runcheck.h): the evidence after lead, up to the next finding; buf holds it. */
static const char *evidence(const struct nb_run *r, const char *lead, char *buf, size_t n)
{
	const char *at = strstr(r->error, lead);
	if (!at)
		return r->error;
	at += strlen(lead);
	const char *end = strstr(at, "; ");
	snprintf(buf, n, "%.*s", end ? (int)(end - at) : (int)strlen(at), at);
	return buf;
}

/* A late tick: the process stalled (the invalid rows, their error says where), or only the
 * reading thread woke late while the flows went on (ok rows, the flag's gap). */
static bool stall(const struct nb_results *res, size_t ci, struct nb_pitfalls *out)
{
	struct tally t;
	char text[TEXT], words[128], ev[TEXT];
	tally(res, ci, "timeline-stall", &t);
	if (!t.n)
		return true;
	size_t invalid = 0;
	const struct nb_run *worst = NULL;
	double worst_s = -1;
	char v[64];
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || strcmp(r->status, "invalid") || !strstr(r->error, "timeline stall: "))
			continue;
		invalid++;
		double gap = flag_value(r->flags, "timeline-stall", v, sizeof(v)) ? flag_seconds(v) : 0;
		if (gap > worst_s) {
			worst = r;
			worst_s = gap;
		}
	}
	if (invalid) {
		struct tally iv = t;
		iv.n = invalid;
		const char *fate = t.trials ? "retried" : "left out of the statistics, run again";
		count_words(&iv, "invalid", fate, words, sizeof(words));
		snprintf(text, sizeof(text), "the measuring process stalled%.100s: the longest, %.200s; what it "
			 "measured meanwhile was its own stop, not the network: run it again on a quieter "
			 "host, or give nbrun CPUs of its own (cpus:, chrt -f 20)", words,
			 evidence(worst, "timeline stall: ", ev, sizeof(ev)));
	} else {
		snprintf(text, sizeof(text), "a tick came late in %zu of %zu %s, up to %.3g s after the one "
			 "before (interval %.3g s), while the engine threads kept their pace: the counts "
			 "hold and each interval row has its real length (duration_s), but the rows around "
			 "it are uneven; on a loaded host give nbrun CPUs of its own (cpus:, chrt -f 20)",
			 t.n, t.of, t.trials ? "trials" : "runs", t.worst_s, res->cases[ci].interval_s);
	}
	return nb_pitfalls_add(out, "timeline-stall", res->cases[ci].case_id, text);
}

static bool suspect(const struct nb_results *res, size_t ci, struct nb_pitfalls *out)
{
	struct tally t;
	char text[TEXT], words[128], ev[TEXT];
	tally(res, ci, "suspect", &t);
	if (!t.n)
		return true;
	count_words(&t, "suspect", "never a result", words, sizeof(words));
	snprintf(text, sizeof(text), "impossible counters%.100s: %.200s; an end's counters are wrong (a "
		 "bug, or an agent that lies): run the same nbrun build on both ends and report it",
		 words, evidence(t.worst, "suspect counters: ", ev, sizeof(ev)));
	return nb_pitfalls_add(out, "suspect", res->cases[ci].case_id, text);
}

static bool num(const struct nb_facts *f, const char *key, double *v)
{
	const char *s = nb_facts_value(f, "iface", key);
	char *end;
	if (!s)
		return false;
	*v = strtod(s, &end);
	return end != s;
}

/* Why a UDP case may have received nothing: a datagram above the receiving end's MTU (a veth
 * or bridge drops what does not fit, unfragmented, without a word), else what is left. */
static void nothing_cause(const struct nb_results *res, const struct nb_plan_case *pc, char *buf,
			  size_t n)
{
	const char *addr = nb_facts_value(&res->local, "iface", "local_addr");
	int hdr = addr && strchr(addr, ':') ? 48 : 28;
	double wire = pc->size + hdr, lm = NAN, pm = NAN;
	bool l = num(&res->local, "mtu", &lm), p = res->peer.n && num(&res->peer, "mtu", &pm);
	const char *who = NULL;
	double mtu = NAN, other = NAN;
	if (p && wire > pm && (!l || lm > pm))
		who = "peer", mtu = pm, other = lm;
	else if (l && wire > lm && (!p || pm > lm))
		who = "local", mtu = lm, other = pm;
	if (who)
		snprintf(buf, n, "likely cause: each datagram is %.0f B on the wire (%.0f B + %d B of "
			 "UDP/IP headers), above the MTU %.0f of the %s end%s%.0f (mtu-mismatch): lower "
			 "size or set the same MTU on both ends", wire, pc->size, hdr, mtu, who,
			 isfinite(other) ? ", the other's " : "", isfinite(other) ? other : 0.0);
	else
		snprintf(buf, n, "no MTU below the datagrams (%.0f B on the wire) was seen at either "
			 "end: look for a firewall or route that drops UDP to the agent's data ports, or a "
			 "smaller MTU inside the path", wire);
}

static bool nothing(const struct nb_results *res, size_t ci, struct nb_pitfalls *out)
{
	struct tally t;
	char text[TEXT], words[128], cause[256], ev[TEXT];
	tally(res, ci, "nothing-received", &t);
	if (!t.n)
		return true;
	count_words(&t, "failed", "no result", words, sizeof(words));
	nothing_cause(res, &res->cases[ci], cause, sizeof(cause));
	snprintf(text, sizeof(text), "the receivers got none of the datagrams sent%.100s: %.120s; %.230s", words,
		 evidence(t.worst, "nothing received: ", ev, sizeof(ev)), cause);
	return nb_pitfalls_add(out, "nothing-received", res->cases[ci].case_id, text);
}

static bool schedule_lag(const struct nb_results *res, size_t ci, struct nb_pitfalls *out)
{
	struct tally t;
	char text[TEXT], max[32], p99[48] = "";
	tally(res, ci, "schedule-lag", &t);
	if (!t.n)
		return true;
	nb_fmt_value(t.lag_max_us, "us", max, sizeof(max));
	if (isfinite(t.lag_p99_us)) {
		char v[32];
		nb_fmt_value(t.lag_p99_us, "us", v, sizeof(v));
		snprintf(p99, sizeof(p99), ", p99 %s", v);
	}
	snprintf(text, sizeof(text), "the sender fell up to %s behind its schedule (%zu of %zu %s%s): "
		 "these latencies include that wait; they are timed from each request's due time, as "
		 "they should be, but the sender, not the path, made them wait: lower the rate or give "
		 "the sender a CPU of its own (cpus:)", max, t.n, t.of, t.trials ? "trials" : "runs",
		 p99);
	return nb_pitfalls_add(out, "schedule-lag", res->cases[ci].case_id, text);
}

bool nb_pitfalls_check_runs(const struct nb_results *res, struct nb_pitfalls *out)
{
	for (size_t ci = 0; ci < res->ncases; ci++)
		if (!stall(res, ci, out) || !suspect(res, ci, out) || !nothing(res, ci, out) ||
		    !schedule_lag(res, ci, out))
			return false;
	return true;
}
