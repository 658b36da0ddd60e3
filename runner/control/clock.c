/* nbrun — an agent's clock offset and the control round trip (see clock.h). */
#include "clock.h"

#include <time.h>

#include "ctl.h"

#define TIME_MS 5000

uint64_t nb_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void nb_clock_calc(uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4, int64_t *offset_ns,
		   uint64_t *rtt_ns)
{
	int64_t there = (int64_t)(t2 - t1), back = (int64_t)(t3 - t4);
	int64_t held = (int64_t)(t3 - t2), total = (int64_t)(t4 - t1);
	*offset_ns = there / 2 + back / 2 + (there % 2 + back % 2) / 2;
	*rtt_ns = total > held ? (uint64_t)(total - held) : 0;
}

/* One exchange; false when the agent did not answer it as TIME. */
static bool exchange(struct nb_ctl *c, int64_t *offset, uint64_t *rtt, struct nb_error *err)
{
	struct nb_msg m = { .type = NB_MSG_TIME };
	uint64_t t1 = m.u.time.t1 = nb_clock_now();
	if (!nb_ctl_send(c, &m, TIME_MS, err))
		return false;
	int r = nb_ctl_recv(c, &m, TIME_MS, err);
	uint64_t t4 = nb_clock_now();
	if (r != 1)
		return r == 0 ? nb_error_set(err, "no answer to TIME within %d s", TIME_MS / 1000) : false;
	bool ok = m.type == NB_MSG_TIME;
	if (ok)
		nb_clock_calc(t1, m.u.time.t2, m.u.time.t3, t4, offset, rtt);
	else
		nb_error_set(err, "expected TIME, got %s", nb_msg_name(m.type));
	nb_msg_free(&m);
	return ok;
}

bool nb_clock_measure(struct nb_ctl *c, uint32_t rounds, struct nb_clock *out, struct nb_error *err)
{
	*out = (struct nb_clock){ 0 };
	for (uint32_t i = 0; i < rounds; i++) {
		int64_t offset;
		uint64_t rtt;
		if (!exchange(c, &offset, &rtt, err))
			return false;
		if (!out->known || rtt < out->rtt_ns)
			*out = (struct nb_clock){ .known = true, .offset_ns = offset, .rtt_ns = rtt };
	}
	return true;
}
