/* The simulated device and sender of the sweep tests (see sweep_sim.h). */
#include "sweep_sim.h"

#include <criterion/criterion.h>
#include <math.h>

static double uniform(struct nbt_sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / 9007199254740992.0;
}

static double sim_loss(struct nbt_sim *s, double r, bool full)
{
	double k = (double)s->knee;
	if (s->noise > 0 && r > k * (1 - s->noise) && r < k * (1 + s->noise))
		return uniform(s) < (r - k * (1 - s->noise)) / (2 * s->noise * k) ? 0.02 : 0.0;
	if (s->knee && r > k)
		return (r - k) / r;
	if (s->win_hi && r >= (double)s->win_lo && r <= (double)s->win_hi)
		return 0.05;
	if (s->long_knee && full && r > (double)s->long_knee)
		return 0.01;
	if (s->ndr_knee && r > (double)s->ndr_knee)
		return 0.002;
	return 0.0;
}

/* The current call is listed in calls[8]. */
static bool listed(const uint32_t *calls, uint32_t call)
{
	for (size_t i = 0; i < 8; i++)
		if (calls[i] == call)
			return true;
	return false;
}

/* What the simulated sender sends when asked for r (0: unpaced, as fast as it can). */
static double sim_sent(const struct nbt_sim *s, double r)
{
	if (r == 0)
		r = s->line ? (double)s->line : 1e10;
	if (s->host_max && r > (double)s->host_max)
		r = (double)s->host_max;
	if (s->busy_from && s->calls >= s->busy_from && r > (double)s->busy_max)
		r = (double)s->busy_max;
	return listed(s->hiccup, s->calls) ? r * 0.95 : r;
}

bool nbt_sim_run(void *ctx, struct nb_trial *t)
{
	struct nbt_sim *s = ctx;
	if (s->calls < 128)
		s->rates[s->calls] = t->offered;
	s->calls++;
	if (s->stop_at && s->calls == s->stop_at)
		return false;
	t->ok = !(s->broken_from && s->calls >= s->broken_from);
	double r = (double)t->offered;
	t->sent_rate = sim_sent(s, r);
	bool caught_up = listed(s->catch_up, s->calls);
	t->valid = t->sent_rate >= r * (1 - NB_SWEEP_SHORTFALL) && !caught_up;
	t->host = t->valid ? (struct nb_trial_host){ .cpu_pct = 30, .host_cpu_pct = 40 } : s->on_short;
	t->loss_ratio = sim_loss(s, t->sent_rate, t->duration_ns >= s->full_ns);
	if (caught_up)
		t->loss_ratio = fmax(t->loss_ratio, 0.005);
	t->recv_rate = s->blind ? NAN : t->sent_rate * (1 - t->loss_ratio);
	t->jitter_us = 1;
	return true;
}

struct nb_sweep nbt_search_cfg(uint64_t from, uint64_t to, double loss, double precision)
{
	struct nb_sweep s = { .enabled = true, .search = true, .from = from, .to = to,
			      .loss = { loss }, .nloss = 1, .precision = precision,
			      .trial_ns = 5 * S, .short_trial_ns = 1 * S, .confirm = 2 };
	return s;
}

void nbt_sim_search(const struct nb_sweep *cfg, struct nbt_sim *sim, struct nb_sweep_outcome *out)
{
	sim->full_ns = cfg->trial_ns;
	cr_assert(nb_sweep_execute(cfg, NULL, nbt_sim_run, sim, out));
}

/* Loss of goal g at a rate over all trials: whether any trial failed / passed it. */
void nbt_rate_record(const struct nb_sweep_outcome *o, uint64_t rate, uint32_t g, bool *failed,
			bool *passed)
{
	*failed = *passed = false;
	for (size_t i = 0; i < o->ntrials; i++) {
		const struct nb_trial *t = &o->trials[i];
		if (t->offered != rate || !t->ok || !t->valid)
			continue;
		if (t->pass_mask & (1u << g))
			*passed = true;
		else
			*failed = true;
	}
}

/* What every search result must satisfy, whatever the device did. */
void nbt_check_invariants(const struct nb_sweep *cfg, const struct nb_sweep_outcome *o)
{
	cr_assert_leq(o->ntrials, NB_SWEEP_MAX_TRIALS);
	for (size_t i = 0; i < o->ntrials; i++) {
		cr_assert_geq(o->trials[i].offered, cfg->from, "trial %zu below from", i);
		cr_assert_leq(o->trials[i].offered, cfg->to, "trial %zu above to", i);
	}
	for (uint32_t g = 0; g < o->ngoals; g++) {
		const struct nb_sweep_goal *goal = &o->goal[g];
		bool failed, passed;
		if (goal->threshold) {
			nbt_rate_record(o, goal->threshold, g, &failed, &passed);
			cr_assert(passed && !failed, "goal %u: threshold %llu failed a trial", g,
				  (unsigned long long)goal->threshold);
		}
		if (goal->threshold && goal->lowest_fail)
			cr_assert_lt(goal->threshold, goal->lowest_fail);
		if (goal->status == NB_SWEEP_FOUND)
			cr_assert_leq((double)(goal->lowest_fail - goal->threshold),
				      cfg->precision * (double)goal->threshold + 1e-9,
				      "goal %u: bracket %llu..%llu wider than precision", g,
				      (unsigned long long)goal->threshold,
				      (unsigned long long)goal->lowest_fail);
	}
}
