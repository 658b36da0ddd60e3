/* nbrun — what every kind of target shares (see target.h): the optional ops, and the sink a
 * single path's test calls, which hands its intervals on to the case's sink under the run's
 * path name. */
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
