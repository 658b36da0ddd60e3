/* nbrun — the numbers of a case under working conditions (see working.h). */
#include "working.h"

#include <math.h>

static const char *const phase_names[NB_PHASES] = { "idle", "ramp", "loaded", "after", "outside" };

const char *nb_phase_name(enum nb_phase p)
{
	return p < NB_PHASES ? phase_names[p] : "outside";
}

static bool whole(uint64_t v, uint64_t interval)
{
	return v % interval == 0;
}

bool nb_working_timing_check(const struct nb_working_timing *t, struct nb_error *err)
{
	if (t->interval_ns == 0)
		return nb_error_set(err, "interval is 0 (expected a whole number of ms)");
	const struct { const char *name; uint64_t v; } f[] = {
		{ "idle", t->idle_ns }, { "omit", t->omit_ns }, { "duration", t->duration_ns },
		{ "after", t->after_ns },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!whole(f[i].v, t->interval_ns))
			return nb_error_set(err, "%s %.3fs is not a whole number of intervals of %.3fs "
					    "(expected the phases to start on a tick)", f[i].name,
					    (double)f[i].v / 1e9, (double)t->interval_ns / 1e9);
	if (t->omit_ns + t->interval_ns > t->duration_ns)
		return nb_error_set(err, "omit %.3fs leaves the load no measured interval of duration "
				    "%.3fs (expected omit < duration)", (double)t->omit_ns / 1e9,
				    (double)t->duration_ns / 1e9);
	return true;
}

uint32_t nb_working_nticks(const struct nb_working_timing *t)
{
	if (!t->interval_ns)
		return 0;
	return (uint32_t)((t->idle_ns + t->duration_ns + t->after_ns) / t->interval_ns);
}

uint32_t nb_working_load_first_tick(const struct nb_working_timing *t)
{
	return t->interval_ns ? (uint32_t)(t->idle_ns / t->interval_ns) + 1 : 0;
}

enum nb_phase nb_working_phase_of(const struct nb_working_timing *t, uint32_t k)
{
	if (!t->interval_ns || k == 0)
		return NB_PHASE_OUTSIDE;
	uint64_t end = (uint64_t)k * t->interval_ns; /* interval k spans (end - I, end] */
	if (end <= t->idle_ns)
		return NB_PHASE_IDLE;
	if (end <= t->idle_ns + t->omit_ns)
		return NB_PHASE_RAMP;
	if (end <= t->idle_ns + t->duration_ns)
		return NB_PHASE_LOADED;
	if (end <= t->idle_ns + t->duration_ns + t->after_ns)
		return NB_PHASE_AFTER;
	return NB_PHASE_OUTSIDE;
}

uint64_t nb_working_split(const struct nb_working_timing *t, struct nb_hist *const *ivl,
			  uint32_t nk, struct nb_hist *const phase[NB_PHASES])
{
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_init(phase[p]);
	for (uint32_t k = 1; k <= nk; k++)
		if (ivl[k])
			nb_hist_merge(phase[nb_working_phase_of(t, k)], ivl[k]);
	return atomic_load_explicit(&phase[NB_PHASE_OUTSIDE]->count, memory_order_relaxed);
}

uint64_t nb_working_split_load(const struct nb_working_timing *t, struct nb_hist *const *ivl,
			       uint32_t nk, struct nb_hist *const phase[NB_PHASES])
{
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_init(phase[p]);
	uint32_t off = nb_working_load_first_tick(t) - 1;
	for (uint32_t k = 1; k <= nk; k++)
		if (ivl[k])
			nb_hist_merge(phase[nb_working_phase_of(t, k + off)], ivl[k]);
	return atomic_load_explicit(&phase[NB_PHASE_OUTSIDE]->count, memory_order_relaxed);
}

static uint64_t ld(const _Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

/* Bucket i's value: its midpoint, clamped to what the histogram saw (hist.c does the same for
 * its percentiles, so a single repeated value is exact). */
static double value_of(const struct nb_hist *h, size_t i)
{
	uint64_t lo = nb_hist_bucket_lower(i);
	uint64_t hi = i + 1 < NB_HIST_BUCKETS ? nb_hist_bucket_lower(i + 1) : lo + 1;
	uint64_t mid = lo + (hi - lo) / 2;
	uint64_t mn = ld(&h->min_ns), mx = ld(&h->max_ns);
	return (double)(mid < mn ? mn : mid > mx ? mx : mid);
}

double nb_hist_trimmed_mean(const struct nb_hist *h, double keep)
{
	uint64_t total = ld(&h->overflow);
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++)
		total += ld(&h->counts[i]);
	if (!total)
		return NAN;
	keep = keep < 0 ? 0 : keep > 1 ? 1 : keep;
	uint64_t want = (uint64_t)ceil(keep * (double)total - 1e-9);
	if (!want)
		want = 1;
	double sum = 0;
	uint64_t got = 0;
	for (size_t i = 0; i < NB_HIST_BUCKETS && got < want; i++) {
		uint64_t c = ld(&h->counts[i]);
		if (c > want - got)
			c = want - got;
		sum += (double)c * value_of(h, i);
		got += c;
	}
	sum += (double)(want - got) * (double)ld(&h->max_ns); /* the rest lies in the overflow */
	return sum / (double)want;
}

static double diff_or_nan(uint64_t loaded, uint64_t idle, bool have)
{
	return have ? (double)loaded - (double)idle : NAN;
}

static double ratio_or_nan(uint64_t loaded, uint64_t idle, bool have)
{
	return have && idle ? (double)loaded / (double)idle : NAN;
}

void nb_working_probe(const struct nb_hist *idle, const struct nb_hist *loaded,
		      struct nb_probe_phases *out)
{
	nb_hist_summarize(idle, &out->idle);
	nb_hist_summarize(loaded, &out->loaded);
	out->tm_idle_ns = nb_hist_trimmed_mean(idle, 0.95);
	out->tm_loaded_ns = nb_hist_trimmed_mean(loaded, 0.95);
	bool have = out->idle.count && out->loaded.count;
	out->inflation_p50_ns = diff_or_nan(out->loaded.p50_ns, out->idle.p50_ns, have);
	out->inflation_p99_ns = diff_or_nan(out->loaded.p99_ns, out->idle.p99_ns, have);
	out->ratio_p50 = ratio_or_nan(out->loaded.p50_ns, out->idle.p50_ns, have);
	out->ratio_p99 = ratio_or_nan(out->loaded.p99_ns, out->idle.p99_ns, have);
}

double nb_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return n && s2 > 0 ? s * s / ((double)n * s2) : NAN;
}

/* Round trips per minute of a mean round trip of ms milliseconds. */
static double per_minute(double ms)
{
	return isfinite(ms) && ms > 0 ? 60000.0 / ms : NAN;
}

void nb_rpm_tcp(const struct nb_rpm_in *in, struct nb_rpm *out)
{
	out->rr_f_ns = NAN;
	if (isfinite(in->crr_ns) && isfinite(in->tcp_f_ns))
		out->rr_f_ns = in->crr_ns > in->tcp_f_ns ? in->crr_ns - in->tcp_f_ns : 0;
	out->self = isfinite(in->rr_s_ns) && in->rr_s_ns > 0; /* 0: not given */
	double rr = out->self ? in->rr_s_ns : in->rr_l_ns;
	out->foreign = per_minute((in->tcp_f_ns + out->rr_f_ns) / 2 / 1e6);
	out->loaded = per_minute(rr / 1e6);
	/* NaN when any term is */
	out->rpm = per_minute((in->tcp_f_ns / 4 + out->rr_f_ns / 4 + rr / 2) / 1e6);
}
