/* The idle engine (engine_idle.h): each flow sleeps one `tick` at a time until the harness stops
 * it, and sends nothing. What makes it an engine is this file alone: its table, its traits and
 * its own parameter row, which the config, the wire and plan.csv take without an edit of theirs.
 * Extend it here (a counter of its ticks, a column) to try a recipe of docs/design.md. */
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

static int idle_flow(struct nb_flow *f)
{
	uint32_t ms = own(f->p).tick_ms;
	struct timespec tick = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (!nb_flow_stopping(f))
		nanosleep(&tick, NULL);
	return 0;
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
	.report = nb_report_round_trips,      /* no transaction: every count 0 */
	.params = idle_params,                /* tick */
};
