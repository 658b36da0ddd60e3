/* Test support: an agent in this process and a session with it (see nbt_agent.h). */
#include "nbt_agent.h"

#include <criterion/criterion.h>
#include <stdio.h>

#include "ctl.h"

struct nb_msg_setup nbt_small_test(uint32_t run_id)
{
	struct nb_msg_setup su = { .run_id = run_id, .duration_ns = 300000000ull,
				   .interval_ns = 100000000ull };
	snprintf(su.case_id, sizeof(su.case_id), "honest");
	snprintf(su.params.engine, sizeof(su.params.engine), "stream");
	su.params.proto = NB_PROTO_TCP;
	su.params.streams = 1;
	su.params.size = 1000;
	su.params.rate = 50000000ull;
	su.params.tos = -1;
	return su;
}

bool nbt_agent_open(struct nb_agent *a, const char *bind, const struct nb_secret *s,
		    struct nb_client *c, struct nb_error *err)
{
	char name[80];
	snprintf(name, sizeof(name), strchr(bind, ':') ? "[%s]:%u" : "%s:%u", bind, nb_agent_port(a));
	struct sockaddr_storage addr;
	socklen_t len;
	return nb_ctl_resolve(name, 0, &addr, &len, err) &&
	       nb_client_open(c, name, &addr, len, s, NULL, err);
}

struct nb_agent *nbt_agent_session(const struct nb_agent_opts *o, const struct nb_secret *s,
				   struct nb_client *c)
{
	struct nb_agent_opts opts = *o;
	opts.bind = opts.bind ? opts.bind : "127.0.0.1";
	opts.idle_timeout_s = opts.idle_timeout_s ? opts.idle_timeout_s : 60;
	struct nb_error err = { { 0 } };
	struct nb_agent *a = nb_agent_create(&opts, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert(nb_agent_start_thread(a, &err), "%s", err.msg);
	if (c)
		cr_assert(nbt_agent_open(a, opts.bind, s, c, &err), "%s", err.msg);
	return a;
}

static void ignore_interval(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *h)
{
	(void)ctx, (void)k, (void)span, (void)h;
}

enum nb_outcome nbt_run_test(struct nb_client *c, const struct nb_msg_setup *su,
			     struct nb_test_result *res)
{
	struct nb_test_sink sink = { .interval = ignore_interval };
	struct nb_error err = { { 0 } };
	enum nb_outcome o = nb_client_test(c, su, &sink, res, &err);
	nb_test_result_free(res);
	return o;
}
