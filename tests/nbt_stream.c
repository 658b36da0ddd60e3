/* Helpers for the stream engine's net tests (see nbt_stream.h). */
#include "nbt_stream.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

struct nb_agent *nbt_agent;
struct nb_client nbt_cli;

static void capture_interval(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *h)
{
	struct nbt_capture *c = ctx;
	c->intervals = k;
	if (k <= NBT_MAX_ROWS)
		nb_metrics_span(nb_engine_find(c->su->params.engine), &c->su->params, span, -1, h,
				&c->row[k]);
	memcpy(&c->l, span->l1, sizeof(c->l));
	memcpy(&c->p, span->p1, sizeof(c->p));
	c->l.hist = c->p.hist = NULL;
	c->l.lag = c->p.lag = NULL;
}

void nbt_stream_open(void)
{
	struct nb_agent_opts o = { .bind = "127.0.0.1", .limits.max_duration_s = 600, .idle_timeout_s = 60 };
	struct nb_error err = { { 0 } };
	nbt_agent = nb_agent_create(&o, &err);
	cr_assert_not_null(nbt_agent, "%s", err.msg);
	cr_assert(nb_agent_start_thread(nbt_agent, &err), "%s", err.msg);
	char name[64];
	snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(nbt_agent));
	struct sockaddr_storage addr;
	socklen_t len;
	cr_assert(nb_ctl_resolve(name, 0, &addr, &len, &err));
	cr_assert(nb_client_open(&nbt_cli, name, &addr, len, NULL, NULL, &err), "%s", err.msg);
}

void nbt_stream_close(void)
{
	nb_client_close(&nbt_cli);
	nb_agent_destroy(nbt_agent);
}

struct nb_msg_setup nbt_stream_setup(enum nb_proto proto, enum nb_dir dir, uint32_t streams,
				     uint32_t size, uint64_t rate)
{
	struct nb_msg_setup su = { .run_id = 1, .warmup_ns = 200000000ull, .omit_ns = 0,
				   .duration_ns = 1000000000ull, .interval_ns = 500000000ull };
	snprintf(su.case_id, sizeof(su.case_id), "test");
	snprintf(su.params.engine, sizeof(su.params.engine), "stream");
	su.params.proto = proto;
	su.params.direction = dir;
	su.params.streams = streams;
	su.params.size = size;
	su.params.rate = rate;
	su.params.tos = -1;
	/* UDP: shorter than the engine's 500 ms; TCP: the engine's own (its queues empty) */
	su.drain_ns = proto == NB_PROTO_UDP ? 300000000ull : nb_engine_find("stream")->drain_ns(&su.params);
	return su;
}

enum nb_outcome nbt_stream_run(const struct nb_msg_setup *su, struct nbt_capture *cap,
			       struct nb_test_result *res)
{
	struct nb_test_sink sink = { .ctx = cap, .interval = capture_interval };
	struct nb_error err = { { 0 } };
	memset(cap, 0, sizeof(*cap));
	cap->su = su;
	enum nb_outcome o = nb_client_test(&nbt_cli, su, &sink, res, &err);
	if (res->lfinal && res->pfinal) {
		memcpy(&cap->l, res->lfinal, sizeof(cap->l));
		memcpy(&cap->p, res->pfinal, sizeof(cap->p));
		cap->l.hist = cap->p.hist = NULL;
		cap->l.lag = cap->p.lag = NULL;
	}
	nb_test_result_free(res);
	return o;
}

/* The row identities of a UDP case (docs/engines.md): in every interval row and in the run's
 * row, tx_packets are the datagrams the sender sent in that interval, rx_packets those of them
 * the receiver got, so lost = tx - rx exactly; the rows add up to the run. */
void nbt_stream_assert_udp_rows(const struct nbt_capture *cap, const struct nb_test_result *res)
{
	const struct nb_metrics *m = &res->m;
	double tx = 0, rx = 0;
	cr_assert_gt(cap->intervals, 0);
	for (uint32_t k = 1; k <= cap->intervals; k++) {
		const double *v = cap->row[k].v;
		cr_expect_eq(v[NB_COL_LOST], v[NB_COL_TX_PACKETS] - v[NB_COL_RX_PACKETS],
			     "interval %u: lost %.0f, tx %.0f, rx %.0f", k, v[NB_COL_LOST],
			     v[NB_COL_TX_PACKETS], v[NB_COL_RX_PACKETS]);
		cr_expect_geq(v[NB_COL_LOST], 0, "interval %u", k);
		cr_expect_eq(v[NB_COL_RX_BYTES], v[NB_COL_RX_PACKETS] * cap->su->params.size);
		tx += v[NB_COL_TX_PACKETS];
		rx += v[NB_COL_RX_PACKETS];
	}
	cr_expect_eq(m->v[NB_COL_LOST], m->v[NB_COL_TX_PACKETS] - m->v[NB_COL_RX_PACKETS],
		     "run: lost %.0f, tx %.0f, rx %.0f", m->v[NB_COL_LOST], m->v[NB_COL_TX_PACKETS],
		     m->v[NB_COL_RX_PACKETS]);
	cr_expect_eq(tx, m->v[NB_COL_TX_PACKETS], "the intervals' tx add up to the run's");
	cr_expect_eq(rx, m->v[NB_COL_RX_PACKETS], "the intervals' rx add up to the run's");
}

