/* nbrun — one run's readings on the client's side, paired into intervals (see client_int.h). */
#include "client_int.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"
#include "sock.h"
#include "text.h"

uint32_t nb_pairs_last(const struct nb_pairs *t)
{
	return t->tl.nticks + t->lag;
}

bool nb_pairs_init(struct nb_pairs *t, struct nb_test_result *out)
{
	const struct nb_msg_setup *su = t->su;
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	t->lag = nb_timeline_settle_lag(&tl, su->drain_ns);
	t->nslots = tl.nticks + t->lag + 1;
	if (nb_timeline_first_kept(&tl) >= tl.nticks) {
		snprintf(out->error, sizeof(out->error), "no measured window: omit %gs leaves no whole "
			 "interval of %gs in duration %gs", (double)su->omit_ns / 1e9,
			 (double)su->interval_ns / 1e9, (double)su->duration_ns / 1e9);
		return false;
	}
	t->with_hist = nb_case_records_latency(t->e, &t->su->params);
	t->with_lag = nb_case_records_lag(t->e, &t->su->params);
	t->L = calloc(t->nslots, sizeof(*t->L));
	t->P = calloc(t->nslots, sizeof(*t->P));
	t->scratch = t->with_hist ? nb_hist_create() : NULL;
	if (!t->L || !t->P || (t->with_hist && !t->scratch) ||
	    !nb_runcheck_init(&t->rc, "client", "agent")) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		return false;
	}
	return true;
}

void nb_pairs_free(struct nb_pairs *t)
{
	for (uint32_t k = 0; k < t->nslots; k++) {
		if (t->L)
			nb_snapshot_destroy(t->L[k]);
		if (t->P)
			nb_snapshot_destroy(t->P[k]);
	}
	free(t->L);
	free(t->P);
	nb_hist_destroy(t->scratch);
	nb_runcheck_free(&t->rc);
	nb_session_destroy(t->s);
	t->L = t->P = NULL;
	t->scratch = NULL;
	t->s = NULL;
}

void nb_pairs_timeline(struct nb_pairs *t, uint64_t t0)
{
	t->t0 = t0;
	nb_timeline_init(&t->tl, t0, t->su->warmup_ns, t->su->omit_ns, t->su->duration_ns,
			 t->su->interval_ns);
	nb_timeline_set_cooldown(&t->tl, t->su->cooldown_ns);
	t->first_kept = nb_timeline_first_kept(&t->tl);
	t->next_pair = 1;
}

static void release(struct nb_pairs *t, uint32_t k)
{
	uint32_t j = t->first_kept, K = t->tl.nticks, c = nb_timeline_last_kept(&t->tl);
	if (k == j || k == j + t->lag || k == K || k == c || k == c + t->lag || k == nb_pairs_last(t))
		return;
	nb_snapshot_destroy(t->L[k]);
	nb_snapshot_destroy(t->P[k]);
	t->L[k] = t->P[k] = NULL;
}

/* Interval k: both ends' readings at ticks k - 1 and k, and at ticks k - 1 + lag and k + lag,
 * where the receivers settled the datagrams of those ticks' intervals. */
static void emit(struct nb_pairs *t, uint32_t k)
{
	uint32_t a = k - 1, b = k, n = t->lag;
	struct nb_span span = { t->L[a], t->L[b], t->P[a], t->P[b],
				t->L[a + n], t->L[b + n], t->P[a + n], t->P[b + n],
				nb_metrics_catch_up_s(&t->tl, k) };
	const struct nb_hist *h = NULL;
	if (t->with_hist) {
		nb_hist_diff(t->scratch, t->L[b]->hist, t->L[a]->hist);
		h = t->scratch;
	}
	t->sink->interval(t->sink->ctx, k, &span, h);
}

void nb_pairs_emit(struct nb_pairs *t)
{
	uint32_t n = t->lag;
	while (t->next_pair <= t->tl.nticks && t->L[t->next_pair + n] && t->P[t->next_pair + n]) {
		uint32_t k = t->next_pair++;
		emit(t, k);
		if (k >= 2)
			release(t, k - 1);
	}
}

bool nb_pairs_closed(const struct nb_pairs *t)
{
	return t->L[t->tl.nticks] && t->P[t->tl.nticks];
}

enum nb_outcome nb_pairs_lost(struct nb_pairs *t, const struct nb_client *who, const char *why)
{
	double after = (double)(nb_now_ns() - t->t0) / 1e9;
	if (who->ctl.altered) /* not a peer that went quiet: someone on the path changed a frame */
		nb_error_set(t->err, "peer %s: %s during %s (after %.0f s): the run failed, none of its counters are used",
			     who->peer_name, NB_CTL_ALTERED, t->su->case_id, after);
	else
		nb_error_set(t->err, "peer %s stopped answering during %s (after %.0f s): %s",
			     who->peer_name, t->su->case_id, after, why); /* why may be t->err's text */
	return NB_OUT_PEER_LOST;
}

void nb_pairs_agent_text(struct nb_test_result *out, const char *text)
{
	char clean[NB_TEXT_MAX + 1];
	snprintf(out->error, sizeof(out->error), "agent: %s", nb_text_sanitize(clean, sizeof(clean), text));
}

enum nb_outcome nb_pairs_frame(struct nb_pairs *t, const struct nb_client *who,
			       struct nb_snapshot **side, struct nb_msg *m, struct nb_test_result *out)
{
	if (m->type == NB_MSG_INTERVAL) {
		int32_t k = m->u.interval.index;
		if (k < 0 || (uint32_t)k > nb_pairs_last(t) || side[k])
			return nb_pairs_lost(t, who, "an interval frame out of sequence");
		side[k] = m->u.interval.snap;
		m->u.interval.snap = NULL;
		/* an agent's stamps count from its own START */
		nb_runcheck_reading(&t->rc, &t->tl, side == t->L ? 0 : 1, 0, (uint32_t)k, side[k]);
		nb_pairs_emit(t);
		return NB_OUT_OK;
	}
	if (m->type == NB_MSG_ERROR) {
		nb_pairs_agent_text(out, m->u.error.text);
		return NB_OUT_CASE_FAILED;
	}
	return nb_pairs_lost(t, who, "an unexpected message");
}

/* The run's result: the kept window's readings (ticks j and K), and the readings that settled
 * those ticks' intervals (j + lag and K + lag). */
void nb_pairs_result(struct nb_pairs *t, struct nb_test_result *out, const struct nb_snapshot *lres,
		     const struct nb_snapshot *pres)
{
	uint32_t j = t->first_kept, K = nb_timeline_last_kept(&t->tl), n = t->lag;
	struct nb_span span = { t->L[j], t->L[K], t->P[j], t->P[K],
				t->L[j + n], t->L[K + n], t->P[j + n], t->P[K + n], 0 };
	if (t->with_hist && (out->hist = nb_hist_create())) {
		if (nb_engine_due_window(t->e) && t->s)
			nb_session_window_hist(t->s, out->hist);
		else
			nb_hist_diff(out->hist, t->L[K]->hist, t->L[j]->hist);
	}
	nb_metrics_span(t->e, &t->su->params, &span, -1, out->hist, &out->m);
	nb_metrics_window(t->e, t->L[nb_pairs_last(t)], &out->m);
	struct nb_lossstats lpre = lres ? nb_metrics_loss_of(lres) : t->pre;
	struct nb_lossstats ppre = nb_metrics_loss_of(pres);
	nb_metrics_loss_budget_run(t->e, &t->su->params, &lpre, t->L[nb_pairs_last(t)], &ppre,
				   t->P[nb_pairs_last(t)], &out->m);
	if (nb_engine_due_window(t->e)) /* the window's late sends go out after its last tick, and count */
		nb_metrics_sched_lag(t->L[j], t->L[nb_pairs_last(t)], &out->m);
	nb_runcheck_result(&t->rc, t->e, &t->su->params, &span, t->L[nb_pairs_last(t)],
			   t->P[nb_pairs_last(t)], &out->m);
}

bool nb_pairs_stop_asked(const struct nb_client *c)
{
	return (c->interrupt && atomic_load(c->interrupt)) || atomic_load(&c->abort);
}

enum nb_outcome nb_pairs_setup(struct nb_pairs *t, struct nb_client *who,
			       const struct nb_msg_setup *su, uint16_t *port, struct nb_test_result *out)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	m.u.setup = *su;
	sodium_memzero(m.u.setup.params.key, sizeof(m.u.setup.params.key)); /* never sent anyway */
	if (!nb_ctl_send(&who->ctl, &m, 5000, t->err))
		return nb_pairs_lost(t, who, t->err->msg);
	int r = nb_ctl_recv(&who->ctl, &m, NB_PAIRS_SETUP_MS, t->err);
	if (r <= 0)
		return nb_pairs_lost(t, who, r == 0 ? "no answer to SETUP" : t->err->msg);
	enum nb_outcome o = NB_OUT_OK;
	if (m.type == NB_MSG_READY) {
		*port = m.u.ready.port;
	} else if (m.type == NB_MSG_ERROR) {
		nb_pairs_agent_text(out, m.u.error.text);
		o = NB_OUT_CASE_FAILED;
	} else {
		o = nb_pairs_lost(t, who, "an unexpected answer to SETUP");
	}
	nb_msg_free(&m);
	return o;
}

enum nb_outcome nb_pairs_await_result(struct nb_pairs *t, struct nb_client *who,
				      struct nb_snapshot **side, struct nb_msg *m,
				      struct nb_test_result *out)
{
	int r;
	while ((r = nb_ctl_recv(&who->ctl, m, NB_PAIRS_RESULT_MS, t->err)) == 1 &&
	       m->type != NB_MSG_RESULT) {
		enum nb_outcome o = nb_pairs_frame(t, who, side, m, out);
		nb_msg_free(m);
		if (o != NB_OUT_OK)
			return o;
	}
	return r == 1 ? NB_OUT_OK : nb_pairs_lost(t, who, "no RESULT after STOP");
}

enum nb_outcome nb_pairs_stop_end(struct nb_pairs *t, struct nb_client *who)
{
	struct nb_msg stop = { .type = NB_MSG_STOP }, m;
	if (!nb_ctl_send(&who->ctl, &stop, 5000, t->err))
		return nb_pairs_lost(t, who, "cannot send STOP");
	int r;
	while ((r = nb_ctl_recv(&who->ctl, &m, NB_PAIRS_RESULT_MS, t->err)) == 1) {
		enum nb_msg_type type = m.type;
		nb_msg_free(&m);
		if (type == NB_MSG_RESULT || type == NB_MSG_ERROR)
			break;
	}
	return r == 1 ? NB_OUT_INTERRUPTED : nb_pairs_lost(t, who, "no RESULT after STOP");
}

void nb_pairs_finals(struct nb_pairs *t, struct nb_msg *result, struct nb_test_result *out)
{
	out->lfinal = t->L[nb_pairs_last(t)];
	t->L[nb_pairs_last(t)] = NULL;
	out->pfinal = result->u.result.s.snap;
	result->u.result.s.snap = NULL;
	nb_msg_free(result);
	if (out->pfinal) /* the RESULT reading comes after the last tick's, and counts no less */
		nb_runcheck_reading(&t->rc, &t->tl, 1, 0, nb_pairs_last(t) + 1, out->pfinal);
	nb_runcheck_verdict(&t->rc, &t->tl, &out->m, &t->su->params, t->e, &out->verdict);
}
