/* nbrun — what an agent lets one test ask of it (see agent_limits.h). */
#include "agent_limits.h"

#include <stdio.h>

#include "params.h"

double nb_limits_offered_bps(const struct nb_engine *e, const struct nb_params *p)
{
	double per_flow = (double)p->rate;
	if (e->traits.rate == NB_RATE_KIND_PACKETS)
		per_flow *= 8.0 * (double)p->size;
	return per_flow * (double)nb_params_nflows(p);
}

static bool check_rate(const struct nb_limits *l, const struct nb_engine *e,
		       const struct nb_params *p, const char *who, char *why, size_t n)
{
	if (!l->max_rate || e->traits.rate == NB_RATE_KIND_NONE || nb_engine_closed_loop(e, p->rate))
		return true;
	if (p->rate == 0) { /* TCP too: nothing but the path would bound it */
		snprintf(why, n, "limit: an unpaced %s test has no rate bound, and %s allows at most "
			 "%llu bit/s (--max-rate): give the test a rate",
			 p->proto == NB_PROTO_UDP ? "UDP" : "TCP", who, (unsigned long long)l->max_rate);
		return false;
	}
	double bps = nb_limits_offered_bps(e, p);
	if (bps <= (double)l->max_rate)
		return true;
	snprintf(why, n, "limit: the test offers %.0f bit/s over its flows, above %s's --max-rate "
		 "%llu bit/s", bps, who, (unsigned long long)l->max_rate);
	return false;
}

static bool check_message(const struct nb_limits *l, const struct nb_params *p,
			  const char *who, char *why, size_t n)
{
	uint32_t biggest = p->size > p->request ? p->size : p->request;
	biggest = biggest > p->response ? biggest : p->response;
	if (!l->max_message || biggest <= l->max_message)
		return true;
	snprintf(why, n, "limit: %u-byte messages, above %s's --max-message %u bytes", biggest, who,
		 l->max_message);
	return false;
}

bool nb_limits_check_as(const struct nb_limits *l, const struct nb_engine *e,
			const struct nb_msg_setup *su, const char *who, char *why, size_t n)
{
	const struct nb_params *p = &su->params;
	uint32_t flows = nb_params_nflows(p);
	if (l->max_flows && flows > l->max_flows) {
		snprintf(why, n, "limit: %u flows, above %s's --max-streams %u", flows, who, l->max_flows);
		return false;
	}
	uint64_t total = su->warmup_ns + su->duration_ns + su->drain_ns;
	if (l->max_duration_s && total > (uint64_t)l->max_duration_s * 1000000000ull) {
		snprintf(why, n, "limit: the test lasts %.1f s, above %s's --max-duration %u s",
			 (double)total / 1e9, who, l->max_duration_s);
		return false;
	}
	return check_message(l, p, who, why, n) && check_rate(l, e, p, who, why, n);
}

bool nb_limits_check(const struct nb_limits *l, const struct nb_engine *e,
		     const struct nb_msg_setup *su, char *why, size_t n)
{
	return nb_limits_check_as(l, e, su, "this agent", why, n);
}

void nb_limits_serve_defaults(struct nb_limits *l)
{
	*l = (struct nb_limits){ .max_flows = NB_LIMITS_SERVE_FLOWS,
				 .max_duration_s = NB_LIMITS_SERVE_DURATION_S,
				 .max_message = NB_LIMITS_SERVE_MESSAGE };
}
