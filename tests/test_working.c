/* The numbers of a case under working conditions (reports/analysis/working.h): the phases'
 * windows where the timing says, every probe sample in its interval's phase, the trimmed mean
 * the responsiveness draft defines, inflation, Jain's index and RPM (TCP) on values whose
 * answer is known by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "working.h"

#define MS 1000000ull
#define S 1000000000ull

/* idle 1 s, then 3 s of load whose first 0.5 s is its ramp, then 1 s after; 0.5 s ticks */
static const struct nb_working_timing timing = {
	.interval_ns = 500 * MS, .idle_ns = 1 * S, .omit_ns = 500 * MS, .duration_ns = 3 * S,
	.after_ns = 1 * S,
};

Test(working, the_phases_lie_where_the_timing_says)
{
	static const enum nb_phase want[] = {
		NB_PHASE_OUTSIDE,                              /* k = 0: no interval */
		NB_PHASE_IDLE, NB_PHASE_IDLE,                  /* (0, 1 s] */
		NB_PHASE_RAMP,                                 /* (1 s, 1.5 s] */
		NB_PHASE_LOADED, NB_PHASE_LOADED, NB_PHASE_LOADED, NB_PHASE_LOADED,
		NB_PHASE_LOADED,                               /* (1.5 s, 4 s] */
		NB_PHASE_AFTER, NB_PHASE_AFTER,                /* (4 s, 5 s] */
		NB_PHASE_OUTSIDE,                              /* past the end */
	};
	cr_assert_eq(nb_working_nticks(&timing), 10);
	cr_assert_eq(nb_working_load_first_tick(&timing), 3);
	for (uint32_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		cr_expect_eq(nb_working_phase_of(&timing, k), want[k], "interval %u: %s, want %s", k,
			     nb_phase_name(nb_working_phase_of(&timing, k)), nb_phase_name(want[k]));
	struct nb_working_timing none = timing;
	none.idle_ns = 0;
	none.omit_ns = 0;
	cr_expect_eq(nb_working_phase_of(&none, 1), NB_PHASE_LOADED, "no idle: the load from tick 1");
	cr_expect_str_eq(nb_phase_name(NB_PHASE_LOADED), "loaded");
}

Test(working, a_phase_off_a_tick_is_refused_naming_it)
{
	struct nb_error err = { { 0 } };
	cr_assert(nb_working_timing_check(&timing, &err), "%s", err.msg);
	struct nb_working_timing t = timing;
	t.idle_ns = 700 * MS;
	cr_assert_not(nb_working_timing_check(&t, &err));
	cr_expect(strstr(err.msg, "idle 0.700s is not a whole number of intervals of 0.500s"),
		  "%s", err.msg);
	t = timing;
	t.omit_ns = t.duration_ns;
	cr_assert_not(nb_working_timing_check(&t, &err));
	cr_expect(strstr(err.msg, "omit 3.000s leaves the load no measured interval"), "%s", err.msg);
	t = timing;
	t.after_ns = 250 * MS;
	cr_assert_not(nb_working_timing_check(&t, &err));
	cr_expect(strstr(err.msg, "after 0.250s"), "%s", err.msg);
}

Test(working, every_probe_sample_lands_in_its_intervals_phase)
{
	/* interval k holds k samples of k µs: which phase a sample reached says where it came from */
	struct nb_hist *ivl[12] = { NULL };
	for (uint32_t k = 1; k <= 11; k++) {
		ivl[k] = nb_hist_create();
		cr_assert_not_null(ivl[k]);
		for (uint32_t i = 0; i < k; i++)
			nb_hist_record(ivl[k], k * 1000ull);
	}
	ivl[6] = (nb_hist_destroy(ivl[6]), NULL); /* an interval without samples */
	struct nb_hist *ph[NB_PHASES];
	for (int p = 0; p < NB_PHASES; p++)
		cr_assert_not_null(ph[p] = nb_hist_create());
	cr_assert_eq(nb_working_split(&timing, ivl, 11, ph), 11, "interval 11 is past the end");
	static const struct { uint64_t count, min, max; } want[NB_PHASES] = {
		[NB_PHASE_IDLE] = { 1 + 2, 1000, 2000 },
		[NB_PHASE_RAMP] = { 3, 3000, 3000 },
		[NB_PHASE_LOADED] = { 4 + 5 + 7 + 8, 4000, 8000 },
		[NB_PHASE_AFTER] = { 9 + 10, 9000, 10000 },
		[NB_PHASE_OUTSIDE] = { 11, 11000, 11000 },
	};
	uint64_t total = 0;
	for (int p = 0; p < NB_PHASES; p++) {
		struct nb_hist_summary s;
		nb_hist_summarize(ph[p], &s);
		total += s.count;
		cr_expect_eq(s.count, want[p].count, "%s: %lu samples", nb_phase_name(p),
			     (unsigned long)s.count);
		cr_expect_eq(s.min_ns, want[p].min, "%s: min %lu", nb_phase_name(p),
			     (unsigned long)s.min_ns);
		cr_expect_eq(s.max_ns, want[p].max, "%s: max %lu", nb_phase_name(p),
			     (unsigned long)s.max_ns);
	}
	cr_expect_eq(total, 66 - 6, "the phases hold every sample once");
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_destroy(ph[p]);
	for (uint32_t k = 1; k <= 11; k++)
		nb_hist_destroy(ivl[k]);
}

Test(working, the_trimmed_mean_leaves_out_the_top_five_percent)
{
	struct nb_hist *h = nb_hist_create();
	cr_assert_not_null(h);
	cr_expect(isnan(nb_hist_trimmed_mean(h, 0.95)), "empty: no mean");
	for (uint64_t v = 1; v <= 100; v++) /* below 128 ns every value has its own bucket */
		nb_hist_record(h, v);
	cr_expect_float_eq(nb_hist_trimmed_mean(h, 0.95), 48.0, 1e-9, "mean of 1..95");
	cr_expect_float_eq(nb_hist_trimmed_mean(h, 1.0), 50.5, 1e-9, "nothing trimmed");
	nb_hist_init(h);
	for (int i = 0; i < 99; i++)
		nb_hist_record(h, 100 * 1000);
	nb_hist_record(h, 10 * S); /* one outlier of 10 s among 99 of 100 µs */
	cr_expect_float_eq(nb_hist_trimmed_mean(h, 0.95), 100000.0, 1e-6, "the outlier is out");
	nb_hist_init(h);
	nb_hist_record(h, 200 * S); /* beyond the histogram's range: at its max */
	cr_expect_float_eq(nb_hist_trimmed_mean(h, 0.95), 200.0 * S, 1, "overflow at max");
	nb_hist_destroy(h);
}

Test(working, inflation_is_loaded_less_idle_and_their_ratio)
{
	struct nb_hist *idle = nb_hist_create(), *loaded = nb_hist_create();
	cr_assert(idle && loaded);
	struct nb_probe_phases pp;
	nb_working_probe(idle, loaded, &pp);
	cr_expect(isnan(pp.inflation_p50_ns) && isnan(pp.ratio_p50), "nothing measured: no inflation");
	for (int i = 0; i < 50; i++) {
		nb_hist_record(idle, 100 * 1000);         /* 100 µs idle */
		nb_hist_record(loaded, 50100 * 1000);     /* 50.1 ms behind a full queue */
	}
	nb_working_probe(idle, loaded, &pp);
	cr_expect_eq(pp.idle.p50_ns, 100000);
	cr_expect_eq(pp.loaded.p99_ns, 50100000);
	cr_expect_float_eq(pp.inflation_p50_ns, 50e6, 1e-3);
	cr_expect_float_eq(pp.inflation_p99_ns, 50e6, 1e-3);
	cr_expect_float_eq(pp.ratio_p50, 501.0, 1e-9);
	cr_expect_float_eq(pp.tm_loaded_ns, 50.1e6, 1e-3);
	nb_hist_destroy(idle);
	nb_hist_destroy(loaded);
}

Test(working, a_loads_intervals_split_on_the_probes_axis)
{
	/* idle 2 s, omit 1 s, duration 3 s, after 1 s in 1 s intervals: the load's interval 1 is
	 * the probes' 3 (ramp), its 2 and 3 their 4 and 5 (loaded) */
	struct nb_working_timing t = { .interval_ns = 1000000000ull, .idle_ns = 2000000000ull,
				       .omit_ns = 1000000000ull, .duration_ns = 3000000000ull,
				       .after_ns = 1000000000ull };
	struct nb_hist *ivl[4] = { NULL }, *ph[NB_PHASES];
	for (int p = 0; p < NB_PHASES; p++)
		ph[p] = nb_hist_create();
	for (int k = 1; k <= 3; k++) {
		ivl[k] = nb_hist_create();
		for (int n = 0; n < k; n++)
			nb_hist_record(ivl[k], 1000u * (unsigned)k);
	}
	cr_expect_eq(nb_working_split_load(&t, ivl, 3, ph), 0);
	cr_expect_eq(ph[NB_PHASE_IDLE]->count, 0, "a self probe has no idle phase");
	cr_expect_eq(ph[NB_PHASE_RAMP]->count, 1);
	cr_expect_eq(ph[NB_PHASE_LOADED]->count, 5);
	cr_expect_eq(ph[NB_PHASE_AFTER]->count, 0);
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_destroy(ph[p]);
	for (int k = 1; k <= 3; k++)
		nb_hist_destroy(ivl[k]);
}

Test(working, jains_index_of_known_shares)
{
	const double equal[] = { 5, 5, 5, 5 }, one[] = { 0, 0, 9, 0 }, ramp[] = { 1, 2, 3, 4 };
	cr_expect_float_eq(nb_jain(equal, 4), 1.0, 1e-12);
	cr_expect_float_eq(nb_jain(one, 4), 0.25, 1e-12, "one flow has all: 1/n");
	cr_expect_float_eq(nb_jain(ramp, 4), 100.0 / 120.0, 1e-12);
	cr_expect(isnan(nb_jain(equal, 0)) && isnan(nb_jain(one, 2)), "no shares, or none > 0");
}

Test(working, rpm_tcp_is_the_drafts_formula_with_its_weights)
{
	/* connect 10 ms, crr 30 ms (so 20 ms of it the request/response), loaded rr 50 ms:
	 * 60000 / (10/4 + 20/4 + 50/2) = 60000 / 32.5 */
	struct nb_rpm r;
	nb_rpm_tcp(&(struct nb_rpm_in){ .tcp_f_ns = 10e6, .crr_ns = 30e6, .rr_l_ns = 50e6 }, &r);
	cr_expect_float_eq(r.rr_f_ns, 20e6, 1e-6);
	cr_expect_float_eq(r.foreign, 60000.0 / 15.0, 1e-9);
	cr_expect_float_eq(r.loaded, 60000.0 / 50.0, 1e-9);
	cr_expect_float_eq(r.rpm, 60000.0 / 32.5, 1e-9);
	cr_expect_float_eq(r.rpm, 2 / (1 / r.foreign + 1 / r.loaded), 1e-9, "the halves' harmonic mean");
	cr_expect_not(r.self, "the stand-in");
	/* a self probe's 80 ms takes the self half, the stand-in left aside */
	nb_rpm_tcp(&(struct nb_rpm_in){ .tcp_f_ns = 10e6, .crr_ns = 30e6, .rr_l_ns = 50e6,
					 .rr_s_ns = 80e6 }, &r);
	cr_expect(r.self);
	cr_expect_float_eq(r.loaded, 60000.0 / 80.0, 1e-9);
	cr_expect_float_eq(r.rpm, 60000.0 / (2.5 + 5 + 40), 1e-9);
	nb_rpm_tcp(&(struct nb_rpm_in){ .tcp_f_ns = NAN, .crr_ns = 30e6, .rr_l_ns = 50e6 }, &r);
	cr_expect(isnan(r.foreign) && isnan(r.rpm) && r.loaded == 1200.0,
		  "no connect probe: no foreign RPM, and no RPM made up without it");
	nb_rpm_tcp(&(struct nb_rpm_in){ .tcp_f_ns = 10e6, .crr_ns = 8e6, .rr_l_ns = 50e6 }, &r);
	cr_expect_float_eq(r.rr_f_ns, 0, 1e-9, "crr below connect (noise): the rest is 0, not < 0");
}
