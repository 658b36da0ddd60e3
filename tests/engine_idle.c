/* The idle engine (engine_idle.h): each flow sleeps one `tick` at a time until the harness stops
 * it, counts its ticks, and sends nothing. What makes it an engine is this file alone: its
 * table, its traits, its own parameter row (which the config, the wire and plan.csv take), its
 * own counter and its own column (which the harness reads and runs.csv and intervals.csv
 * write), none of them edited for it: the recipes of docs/design.md, tried. */
#include "engine_idle.h"

#include <string.h>
#include <time.h>

#include "param_defs.h"
#include "report_shapes.h"

/* The idle engine's own parameters: its struct in params.own. */
struct idle_params {
	uint32_t tick_ms; /* how long each flow sleeps between two looks at the stop flag */
};
NB_PARAM_OWN_FITS(struct idle_params);

static const struct nb_param_def idle_params[] = {
	{ .key = "tick", .kind = NB_PK_DURATION_MS,
	  .offset = NB_PARAM_OWN(struct idle_params, tick_ms), .size = sizeof(uint32_t),
	  .def = 100, .min = 1, .max = 10000, .unit = "ms", .wire = 4, .column = "tick_ms",
	  .expect = "1ms to 10s", .doc_value = "duration 1ms..10s", .doc = "how often a flow ticks" },
	{ .key = NULL },
};

/* The block is bytes: its struct is copied out, never cast to. */
static struct idle_params own(const struct nb_params *p)
{
	struct idle_params n;
	memcpy(&n, p->own, sizeof(n));
	return n;
}

uint32_t nbt_idle_tick_ms(const struct nb_params *p)
{
	return own(p).tick_ms;
}

/* Its own counter, row 0 of nb_flow.own: one count per tick a flow slept. */
enum { IDLE_TICKS };
static const struct nb_counter_def idle_counters[] = {
	[IDLE_TICKS] = { "ticks", "ticks a flow slept" },
	{ NULL, NULL },
};

/* Its own column, row 0 of nb_metrics.own, after `path` in runs.csv and intervals.csv. */
static const struct nb_col_def idle_columns[] = {
	{ .name = "idle_ticks", .unit = "", .label = "Ticks the idle flows slept", .better = NB_BETTER_NONE },
	{ .name = NULL },
};

static int idle_flow(struct nb_flow *f)
{
	uint32_t ms = own(f->p).tick_ms;
	struct timespec tick = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (!nb_flow_stopping(f)) {
		nanosleep(&tick, NULL);
		nb_count_own(f, IDLE_TICKS, 1);
	}
	return 0;
}

/* The shared round-trip columns (all 0: no transaction), and its ticks: the client's flows'. */
static void idle_report(const struct nb_engine *e, const struct nb_params *p,
			const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	nb_report_round_trips(e, p, s, lo, hi, m);
	m->own[0] = nb_span_own_sum(s->l0, s->l1, lo, hi, IDLE_TICKS);
}

/* No key beyond the common ones but its own row. */
static const char *const idle_keys[] = { NULL };

const struct nb_engine nbt_engine_idle = {
	.name = "idle",
	.summary = "nothing: each flow ticks until it is stopped (a test engine)",
	.traits = {
		.directional = false,                   /* nothing is sent either way */
		.loop = NB_LOOP_CLOSED,                 /* no schedule: no rate */
		.rate = NB_RATE_KIND_NONE,
		.protocols = 1u << NB_PROTO_TCP,
		.default_proto = NB_PROTO_TCP,
		.protocols_note = "ticks over TCP only",
		.keys = idle_keys,
		.headline = { "trans_per_s", "trans/s", true },
	},
	.datapath = NB_DATAPATH_PER_CONNECTION, /* no data connection */
	.client_flow = idle_flow,
	.server_flow = idle_flow,
	.counters = idle_counters,            /* ticks */
	.columns = idle_columns,              /* idle_ticks */
	.report = idle_report,                /* its ticks -> idle_ticks */
	.params = idle_params,                /* tick */
};
