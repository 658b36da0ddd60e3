/* The checks that need several keys of a resolved test at once. Each error
 * points at the value the user most likely has to change. */
#include <stdio.h>
#include <string.h>

#include "config_int.h"
#include "params.h"

/* The node of k1, else of k2, else the test itself: where to point an error. */
static const struct nb_ynode *where(const struct nb_cfg_ctx *c, const struct nb_ynode *test,
				    const char *k1, const char *k2)
{
	const struct nb_ynode *v = nb_cfg_lookup(c, test, k1);
	if (!v && k2)
		v = nb_cfg_lookup(c, test, k2);
	return v ? v : test;
}

/* Every protocol of the test is one the engine runs over; else the engine's reason. */
static bool check_protocols(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	const struct nb_engine *e = t->engine;
	const char *expected = nb_proto_name(e->traits.default_proto);
	for (uint32_t i = 0; i < t->protocol.n; i++) {
		enum nb_proto proto = (enum nb_proto)t->protocol.v[i];
		if (nb_engine_runs_over(e, proto))
			continue;
		if (e->traits.protocols_note)
			return nb_yerror(c->err, where(c, test, "protocol", "engine"),
					 "engine %s %s (expected protocol %s)", e->name,
					 e->traits.protocols_note, expected);
		return nb_yerror(c->err, where(c, test, "protocol", "engine"),
				 "engine %s does not run over %s (expected protocol %s)", e->name,
				 proto == NB_PROTO_UDP ? "UDP" : "TCP", expected);
	}
	return true;
}

static bool check_size(struct nb_cfg_ctx *c, const struct nb_ynode *at, const struct nb_test *t,
		       uint64_t size, const char *what)
{
	for (uint32_t p = 0; p < t->protocol.n; p++) {
		enum nb_proto proto = (enum nb_proto)t->protocol.v[p];
		uint32_t min = strcmp(what, "size") == 0 ? t->engine->traits.min_size[proto] : 1;
		if (size < min)
			return nb_yerror(c->err, at, "%s %s is too small for %s over %s (expected at "
					 "least %u bytes: sequence number, timestamp and phase)",
					 what, at->str, t->base.engine, proto ? "UDP" : "TCP", min);
		if (proto == NB_PROTO_UDP && size > NB_UDP_MAX_PAYLOAD)
			return nb_yerror(c->err, at, "%s %s is too large for UDP (expected at most "
					 "%u bytes)", what, at->str, NB_UDP_MAX_PAYLOAD);
	}
	return true;
}

static bool check_sizes(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	static const char *const keys[] = { "size", "request", "response" };
	const struct nb_axis_u64 *axes[] = { &t->size, &t->request, &t->response };
	for (size_t k = 0; k < 3; k++) {
		const struct nb_ynode *v = nb_cfg_lookup(c, test, keys[k]);
		if (!v || !nb_cfg_key_applies(nb_cfg_key_find(keys[k]), t->engine))
			continue;
		for (uint32_t i = 0; i < axes[k]->n; i++)
			if (!check_size(c, nb_cfg_item(v, i), t, axes[k]->v[i], keys[k]))
				return false;
	}
	return true;
}

/* The measured window starts on a tick and holds at least one whole interval: an omit that is
 * not a whole number of intervals is refused (rounding it would move the window the user
 * asked for without saying so), and so is one that leaves less than one interval, which
 * would be a run with no measured span at all. */
static bool check_omit(struct nb_cfg_ctx *c, const struct nb_ynode *test, const struct nb_timing *tm)
{
	double o = (double)tm->omit_ns / 1e9, i = (double)tm->interval_ns / 1e9;
	uint64_t below = tm->omit_ns / tm->interval_ns * tm->interval_ns;
	uint64_t most = (tm->duration_ns - tm->interval_ns) / tm->interval_ns * tm->interval_ns;
	const struct nb_ynode *at = where(c, test, "omit", "interval");
	if (tm->omit_ns % tm->interval_ns) {
		uint64_t above = below + tm->interval_ns;
		char want[64];
		if (above <= most)
			snprintf(want, sizeof(want), "%gs or %gs", (double)below / 1e9, (double)above / 1e9);
		else
			snprintf(want, sizeof(want), "%gs", (double)(below < most ? below : most) / 1e9);
		return nb_yerror(c->err, at, "omit %gs is not a whole number of intervals of %gs "
				 "(expected %s: the measured window starts on a tick)", o, i, want);
	}
	if (tm->duration_ns - tm->omit_ns < tm->interval_ns)
		return nb_yerror(c->err, at, "omit %gs leaves %gs of duration %gs, less than one "
				 "interval of %gs (expected omit at most %gs)", o,
				 (double)(tm->duration_ns - tm->omit_ns) / 1e9,
				 (double)tm->duration_ns / 1e9, i, (double)most / 1e9);
	return true;
}

static bool from_set(const struct nb_ynode *v)
{
	return v && v->src->set_key;
}

/* key (shorter) against duration when one of them came from --set and the other did not:
 * point at the --set and say which other key to set with it. */
static bool set_collision(struct nb_cfg_ctx *c, const struct nb_ynode *test, const char *key,
			  const char *kv, const char *dv, const char *fix)
{
	const struct nb_ynode *k = nb_cfg_lookup(c, test, key), *d = nb_cfg_lookup(c, test, "duration");
	const struct nb_ynode *set = from_set(d) ? d : k, *other = set == d ? k : d;
	char at[600] = "the default";
	if (other)
		snprintf(at, sizeof(at), "%s:%u:%u", other->src->file, other->line, other->col);
	if (set == d)
		return nb_yerror(c->err, set, "duration %s leaves no room for %s %s (%s): also set %s, "
				 "e.g. --set %s", dv, key, kv, at, key, fix);
	return nb_yerror(c->err, set, "%s %s does not fit in duration %s (%s): also set duration, "
			 "e.g. --set %s", key, kv, dv, at, fix);
}

static bool check_timing(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	const struct nb_timing *tm = &t->timing;
	char d[32], o[32], fix[48];
	snprintf(d, sizeof(d), "%gs", (double)tm->duration_ns / 1e9);
	bool set_d = from_set(nb_cfg_lookup(c, test, "duration"));
	if (tm->omit_ns >= tm->duration_ns) {
		snprintf(o, sizeof(o), "%gs", (double)tm->omit_ns / 1e9);
		if (set_d)
			snprintf(fix, sizeof(fix), "omit=0s");
		else
			snprintf(fix, sizeof(fix), "duration=%gs", (double)tm->omit_ns / 1e9 + 10);
		if (set_d != from_set(nb_cfg_lookup(c, test, "omit")))
			return set_collision(c, test, "omit", o, d, fix);
		return nb_yerror(c->err, where(c, test, "omit", "duration"),
				 "omit %s is not shorter than duration %s (expected omit < duration)",
				 o, d);
	}
	if (tm->cooldown_ns && tm->omit_ns + tm->cooldown_ns + tm->interval_ns > tm->duration_ns) {
		snprintf(o, sizeof(o), "%gs", (double)(tm->omit_ns + tm->cooldown_ns) / 1e9);
		return nb_yerror(c->err, where(c, test, "cooldown", "duration"),
				 "omit + cooldown %s leaves less than one interval of duration %s "
				 "(expected omit + cooldown + interval <= duration)", o, d);
	}
	if (tm->interval_ns > tm->duration_ns) {
		snprintf(o, sizeof(o), "%gs", (double)tm->interval_ns / 1e9);
		snprintf(fix, sizeof(fix), "%s=%s", set_d ? "interval" : "duration", set_d ? d : o);
		if (set_d != from_set(nb_cfg_lookup(c, test, "interval")))
			return set_collision(c, test, "interval", o, d, fix);
		return nb_yerror(c->err, where(c, test, "interval", "duration"),
				 "interval %s is longer than duration %s (expected interval <= "
				 "duration)", o, d);
	}
	return check_omit(c, test, tm);
}

static bool check_sweep(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	if (!t->sweep.enabled)
		return true;
	const struct nb_ynode *sw = nb_cfg_lookup(c, test, "sweep");
	if (nb_cfg_lookup(c, test, "rate"))
		return nb_yerror(c->err, sw, "a test with a sweep has no rate (expected the sweep's "
				 "from and to instead of rate)");
	for (uint32_t i = 0; i < t->protocol.n && t->sweep.search; i++)
		if (t->protocol.v[i] != NB_PROTO_UDP)
			return nb_yerror(c->err, sw, "a loss search needs UDP (expected protocol udp)");
	return true;
}

/* An engine that measures round trips at its client end runs only on paths from the runner:
 * between two agents its latency histograms would have to cross the control channel. */
static bool check_paths(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	if (!nb_engine_records_latency(t->engine))
		return true;
	for (uint32_t i = 0; i < t->npaths; i++) {
		if (strcmp(t->paths[i].from, NB_HOST_LOCAL) == 0)
			continue;
		const struct nb_ynode *v = where(c, test, "paths", "engine");
		if (v->kind == NB_Y_SEQ && i < v->nkids)
			v = v->kids[i];
		return nb_yerror(c->err, v, "engine %s measures round trips at its client end: it runs "
				 "on paths from local only, not from %s (expected from: local)",
				 t->engine->name, t->paths[i].from);
	}
	return true;
}

bool nb_cfg_check_test(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t)
{
	return check_protocols(c, test, t) && check_sizes(c, test, t) && check_timing(c, test, t) &&
	       check_sweep(c, test, t) && check_paths(c, test, t);
}
