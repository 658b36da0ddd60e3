/* net suite: self probes of a TCP stream (engines/stream_self.h) end to end on loopback, both
 * ways: every request written is answered in order or counted waiting at a row's end, in every
 * interval row and in the run; the round trips land in the flow's histogram; the stream's bytes
 * (frame headers included) are the kernel's at both ends. And the frames themselves. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engine.h"
#include "nbt_stream.h"
#include "stream_self.h"

TestSuite(stream_self, .init = nbt_stream_open, .fini = nbt_stream_close, .timeout = 120);

static struct nb_msg_setup self_setup(enum nb_dir dir, uint32_t rate)
{
	struct nb_msg_setup su = nbt_stream_setup(NB_PROTO_TCP, dir, 1, 131072, 0);
	struct nb_stream_own o = { .self_rate = rate };
	memcpy(su.params.own, &o, sizeof(o));
	return su;
}

enum { SENT, ANSWERED, WAITING }; /* the self columns: nb_metrics.own */

static void assert_self(enum nb_dir dir)
{
	struct nb_msg_setup su = self_setup(dir, 50);
	struct nbt_capture cap;
	struct nb_test_result res;
	cr_assert_eq(nbt_stream_run(&su, &cap, &res), NB_OUT_OK, "%s", res.error);
	const double *o = res.m.own;
	cr_assert_gt(o[ANSWERED], 0, "self probes were answered");
	/* every request answered or still waiting: answered = sent + waiting before - after */
	cr_assert_eq(cap.intervals, 2);
	const double *r1 = cap.row[1].own, *r2 = cap.row[2].own;
	cr_expect_eq(r2[ANSWERED], r2[SENT] + r1[WAITING] - r2[WAITING], "interval 2: answered "
		     "%.0f, sent %.0f, waiting %.0f then %.0f", r2[ANSWERED], r2[SENT], r1[WAITING],
		     r2[WAITING]);
	cr_expect_eq(r1[SENT] + r2[SENT], o[SENT], "the intervals' requests add up to the run's");
	cr_expect_eq(r1[ANSWERED] + r2[ANSWERED], o[ANSWERED], "the answers add up to the run's");
	cr_expect_eq(o[WAITING], r2[WAITING], "the run ends where its last interval does");
	cr_expect_leq(o[WAITING], 256, "never more than 256 wait");
	/* the round trips are the row's latency */
	cr_assert(isfinite(res.m.v[NB_COL_LAT_P50_US]) && res.m.v[NB_COL_LAT_P50_US] > 0,
		  "lat_p50 %f", res.m.v[NB_COL_LAT_P50_US]);
	/* the whole run: the client asked, the agent counted nothing of its own */
	uint64_t s = cap.l.flow[0].own[SENT], a = cap.l.flow[0].own[ANSWERED];
	cr_assert_geq(s, a, "never more answers than requests");
	cr_assert_eq(cap.p.flow[0].own[SENT], 0, "the agent never asks");
	/* the stream's bytes: the kernel's at each end, headers in both; nothing counted twice */
	bool up = dir == NB_DIR_FORWARD;
	uint64_t tx = (up ? cap.l : cap.p).flow[0].c[NB_C_TX_BYTES];
	uint64_t rx = (up ? cap.p : cap.l).flow[0].c[NB_C_RX_BYTES];
	cr_assert_gt(rx, 0);
	cr_assert_leq(rx, tx, "received %lu of %lu sent", (unsigned long)rx, (unsigned long)tx);
	cr_assert_eq((up ? cap.p : cap.l).flow[0].c[NB_C_TX_BYTES], 0,
		     "the frames of the idle direction are not the stream's bytes");
}

Test(stream_self, upload_every_request_is_answered_or_counted_waiting)
{
	assert_self(NB_DIR_FORWARD);
}

Test(stream_self, download_every_request_is_answered_or_counted_waiting)
{
	assert_self(NB_DIR_REVERSE);
}

Test(stream_self, plain_stream_has_no_self_columns)
{
	struct nb_msg_setup su = self_setup(NB_DIR_FORWARD, 0);
	struct nbt_capture cap;
	struct nb_test_result res;
	cr_assert_eq(nbt_stream_run(&su, &cap, &res), NB_OUT_OK, "%s", res.error);
	cr_assert(isnan(res.m.own[SENT]) && isnan(res.m.own[WAITING]) &&
		  isnan(res.m.v[NB_COL_LAT_P50_US]));
}

Test(stream_self, udp_and_tiny_sizes_are_refused_with_why)
{
	const struct nb_engine *e = nb_engine_find("stream");
	struct nb_msg_setup su = self_setup(NB_DIR_FORWARD, 10);
	struct nb_error err = { { 0 } };
	su.params.proto = NB_PROTO_UDP;
	su.params.size = 1400;
	cr_assert_not(e->validate(&su.params, &err));
	cr_assert(strstr(err.msg, "TCP only"), "%s", err.msg);
	su = self_setup(NB_DIR_FORWARD, 10);
	su.params.size = 31;
	cr_assert_not(e->validate(&su.params, &err));
	cr_assert(strstr(err.msg, "32 bytes"), "%s", err.msg);
	su.params.size = 32;
	cr_assert(e->validate(&su.params, &err), "%s", err.msg);
}

Test(stream_self, frames_round_trip_and_strangers_are_refused)
{
	unsigned char b[NB_SELF_HDR];
	enum nb_self_type t;
	uint32_t len;
	uint64_t seq;
	nb_self_put(b, NB_SELF_DATA, 16368, 0);
	cr_assert(nb_self_get(b, &t, &len, &seq) && t == NB_SELF_DATA && len == 16368);
	nb_self_put(b, NB_SELF_RESP, 0, 1ull << 40);
	cr_assert(nb_self_get(b, &t, &len, &seq) && t == NB_SELF_RESP && seq == 1ull << 40);
	nb_self_put(b, NB_SELF_REQ, 5, 0);
	cr_assert_not(nb_self_get(b, &t, &len, &seq), "a request carries no payload");
	nb_self_put(b, NB_SELF_DATA, NB_SELF_REC_MAX, 0);
	cr_assert_not(nb_self_get(b, &t, &len, &seq), "a DATA frame fits 16 KiB with its header");
	memset(b, 0, sizeof(b));
	cr_assert_not(nb_self_get(b, &t, &len, &seq), "the plain stream's zeros are no frame");
}
