/* nbrun — what every kind of target shares (see target.h): the optional ops, and the sink a
 * single path's test calls, which hands its intervals on to the case's sink under the run's
 * path name. */
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "target.h"
#include "target_int.h"

size_t nb_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
		       struct nb_error *err)
{
	return t->impl->check ? t->impl->check(t, chk, err) : 0;
}

void nb_target_close(struct nb_run_target *t)
{
	if (t && t->impl && t->impl->close)
		t->impl->close(t);
}

static void forward(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *hist)
{
	const struct nb_target_run *r = ctx;
	r->sink->interval(r->sink->ctx, r->path, k, span, hist);
}

struct nb_test_sink nb_target_test_sink(const struct nb_target_run *r)
{
	return (struct nb_test_sink){ .ctx = (void *)r, .interval = forward };
}

static void *kid_main(void *arg)
{
	struct nb_target_kid *k = arg;
	k->outcome = k->kid->impl->run(k->kid, &k->r, &k->res, &k->err);
	return NULL;
}

/* A child that never ran: failed, and gone from the meeting points. */
static void not_started(struct nb_target_kid *k, const char *why)
{
	memset(&k->res, 0, sizeof(k->res));
	nb_metrics_clear(&k->res.m);
	snprintf(k->res.error, sizeof(k->res.error), "%s", why);
	k->outcome = NB_OUT_CASE_FAILED;
	nb_pathsync_leave(k->r.group);
}

void nb_target_kids_run(struct nb_target_kid *const *kids, size_t n)
{
	struct nb_pathsync group;
	bool grouped = nb_pathsync_init(&group, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		struct nb_target_kid *k = kids[i];
		k->r.group = grouped ? &group : NULL;
		k->err = (struct nb_error){ { 0 } };
		k->started = false;
		if (!grouped) {
			not_started(k, "cannot start the parts together (out of resources)");
			continue;
		}
		int rc = pthread_create(&k->thread, NULL, kid_main, k);
		k->started = rc == 0;
		if (rc != 0)
			not_started(k, strerror(rc));
	}
	for (size_t i = 0; i < n; i++)
		if (kids[i]->started)
			pthread_join(kids[i]->thread, NULL);
	if (grouped)
		nb_pathsync_destroy(&group);
}
