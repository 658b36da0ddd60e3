/* hosts: and paths: (issue 17): what each host entry keeps, the defaults it gets, and every
 * error at its file:line:col. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config_util.h"
#include "plan.h"

#define HOSTS "hosts:\n" \
	      "  vm1: { address: 10.0.0.11, port: 7000, secret_file: /etc/nbrun.secret }\n" \
	      "  vm2: { ssh: bench@10.0.0.12, data_ports: 7600-7609 }\n" \
	      "  vm3: { ssh: vm3.lab, address: 10.0.1.13, nbrun: /opt/nbrun }\n"

static struct nb_config load_ok(const char *yaml)
{
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s\n%s", err.msg, yaml);
	return cfg;
}

Test(config_hosts, each_entry_keeps_its_keys_and_address_defaults_to_the_ssh_host)
{
	struct nb_config cfg = load_ok(HOSTS "tests:\n  - name: t\n    engine: stream\n");
	cr_assert_eq(cfg.nhosts, 3);
	const struct nb_host *a = nb_config_host(&cfg, "vm1"), *b = nb_config_host(&cfg, "vm2"),
			     *c = nb_config_host(&cfg, "vm3");
	cr_assert(a && b && c);
	cr_expect_str_eq(a->address, "10.0.0.11");
	cr_expect_eq(a->port, 7000);
	cr_expect_str_eq(a->secret_file, "/etc/nbrun.secret");
	cr_expect_str_eq(a->ssh, "");
	cr_expect_str_eq(b->ssh, "bench@10.0.0.12");
	cr_expect_str_eq(b->address, "10.0.0.12");
	cr_expect_eq(b->data_lo, 7600);
	cr_expect_eq(b->data_hi, 7609);
	cr_expect_eq(b->port, 0, "an ssh host has no control port");
	cr_expect_str_eq(c->address, "10.0.1.13", "address: wins over the ssh host");
	cr_expect_str_eq(c->nbrun, "/opt/nbrun");
	cr_expect_eq(a->line, 2);
	cr_expect_null(nb_config_host(&cfg, "vm4"));
	nb_config_free(&cfg);
}

Test(config_hosts, paths_come_from_the_test_or_from_defaults_and_local_is_the_default_from)
{
	struct nb_config cfg = load_ok(HOSTS "defaults:\n  paths: [{ to: vm1 }]\ntests:\n"
				       "  - name: one\n    engine: stream\n"
				       "  - name: two\n    engine: stream\n"
				       "    paths: [{ from: local, to: vm2 }, { from: vm3, to: vm1 }]\n");
	cr_assert_eq(cfg.ntests, 2);
	const struct nb_test *one = &cfg.tests[0], *two = &cfg.tests[1];
	cr_assert_eq(one->npaths, 1);
	cr_expect_str_eq(one->paths[0].from, "local");
	cr_expect_str_eq(one->paths[0].to, "vm1");
	cr_assert_eq(two->npaths, 2);
	char buf[256];
	cr_expect_str_eq(nb_config_paths_str(two, buf, sizeof(buf)), "local->vm2;vm3->vm1");
	nb_config_free(&cfg);
}

Test(config_hosts, a_test_without_paths_has_none)
{
	struct nb_config cfg = load_ok("tests:\n  - name: t\n    engine: stream\n");
	char buf[64];
	cr_expect_eq(cfg.tests[0].npaths, 0);
	cr_expect_str_eq(nb_config_paths_str(&cfg.tests[0], buf, sizeof(buf)), "");
	cr_expect_eq(cfg.nhosts, 0);
	nb_config_free(&cfg);
}

static const struct {
	const char *yaml;       /* after HOSTS, before the test */
	const char *test;       /* the test's extra lines */
	const char *loc, *msg;
} bad[] = {
	{ "  local: { ssh: a@b }\n", "", "5:3", "'local' is reserved" },
	{ "  'bad name': { ssh: a@b }\n", "", "5:3", "bad host name 'bad name'" },
	{ "  vm4: { address: 10.0.0.4, adress: x }\n", "", "5:29", "unknown key 'adress' in a host (did you mean 'address'?)" },
	{ "  vm4: { ssh: -oProxyCommand=x }\n", "", "5:15", "bad value '-oProxyCommand=x'" },
	{ "  vm4: { ssh: 'a@b c' }\n", "", "5:15", "bad value 'a@b c'" },
	{ "  vm4: { ssh: '@b' }\n", "", "5:15", "bad value '@b'" },
	{ "  vm4: { port: 7575 }\n", "", "5:8", "host 'vm4' has neither ssh: nor address:" },
	{ "  vm4: { address: x, nbrun: /opt/nbrun }\n", "", "5:22", "'nbrun' applies only to a host with ssh:" },
	{ "  vm4: { ssh: a@b, nbrun: 'nbrun; rm' }\n", "", "5:27", "bad value 'nbrun; rm'" },
	{ "  vm4: { ssh: a@b, secret_file: f }\n", "", "5:20", "'secret_file' does not apply to a host with ssh:" },
	{ "  vm4: { ssh: a@b, data_ports: 7700-7600 }\n", "", "5:32", "bad data_ports '7700-7600'" },
	{ "  vm4: { ssh: a@b, port: 70000 }\n", "", "5:26", "70000 is out of range" },
	{ "  vm4: { ssh: a@b, port: 7575 }\n", "", "5:20", "'port' does not apply to a host with ssh: (its agent talks over the ssh connection" },
	{ "  vm4: a@b\n", "", "5:8", "expected a mapping such as { ssh: USER@HOST } for host 'vm4'" },
	{ "", "    paths: [{ from: local, to: vm9 }]\n", "8:32", "unknown host 'vm9' (did you mean 'vm1'?)" },
	{ "", "    paths: [{ from: box, to: vm1 }]\n", "8:21", "unknown host 'box' (expected vm1, vm2, vm3 or local)" },
	{ "", "    paths: [{ from: vm2, to: vm2 }]\n", "8:13", "path from 'vm2' to itself" },
	{ "", "    paths: [{ to: local }]\n", "8:19", "a path cannot go to local" },
	{ "", "    paths: [{ to: vm1 }, { from: local, to: vm1 }]\n", "8:26", "path local->vm1 is listed twice" },
	{ "", "    paths: [{ from: vm1 }]\n", "8:13", "path without to:" },
	{ "", "    paths: [{ to: vm1, via: vm2 }]\n", "8:24", "unknown key 'via' in a path" },
	{ "", "    paths: []\n", "8:12", "expected a non-empty list of paths" },
	{ "", "    paths: vm1\n", "8:12", "expected a non-empty list of paths" },
	{ "", "    paths: [vm1]\n", "8:13", "expected a path such as { from: local, to: vm1 }" },
};

Test(config_hosts, an_engine_that_times_round_trips_runs_on_paths_from_local_only)
{
	assert_err(fail(HOSTS "tests:\n  - name: t\n    engine: rr\n"
			"    paths: [{ to: vm1 }, { from: vm2, to: vm1 }]\n"), "8:26",
		   "engine rr measures round trips at its client end: it runs on paths from local "
		   "only, not from vm2 (expected from: local)");
	assert_err(fail(HOSTS "defaults:\n  paths: [{ from: vm3, to: vm1 }]\n"
			"tests:\n  - name: t\n    engine: latency\n"), "6:11",
		   "engine latency measures round trips at its client end");
}

Test(config_hosts, every_bad_host_or_path_is_refused_at_its_place)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), HOSTS "%stests:\n  - name: t\n    engine: stream\n%s",
			 bad[i].yaml, bad[i].test);
		assert_err(fail(yaml), bad[i].loc, bad[i].msg);
	}
}

Test(config_hosts, paths_without_any_hosts_say_so)
{
	assert_err(fail("tests:\n  - name: t\n    engine: stream\n    paths: [{ to: vm1 }]\n"),
		   "4:19", "unknown host 'vm1' (expected a host named under hosts:");
}

Test(config_hosts, a_set_paths_names_the_files_hosts)
{
	const char *sets[] = { "paths=[{to: vm2}]" };
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	cr_assert(load_sets(HOSTS "tests:\n  - name: t\n    engine: stream\n", sets, 1, &cfg, &err),
		  "%s", err.msg);
	cr_expect_str_eq(cfg.tests[0].paths[0].to, "vm2");
	nb_config_free(&cfg);
	const char *bad_set[] = { "paths=[{to: vm7}]" };
	cr_expect_not(load_sets(HOSTS "tests:\n  - name: t\n    engine: stream\n", bad_set, 1, &cfg,
				&err));
	cr_expect(strstr(err.msg, "unknown host 'vm7'"), "%s", err.msg);
}

Test(config_hosts, a_plan_keeps_its_cases_paths_through_their_test)
{
	struct nb_config cfg = load_ok(HOSTS "tests:\n  - name: t\n    engine: stream\n"
				       "    protocol: [tcp, udp]\n    paths: [{ to: vm2 }, { to: vm3 }]\n");
	struct nb_plan plan;
	struct nb_error err = { { 0 } };
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	cr_assert_eq(plan.ncases, 2);
	for (size_t i = 0; i < plan.ncases; i++)
		cr_expect_eq(plan.cases[i].test->npaths, 2);
	nb_plan_free(&plan);
	nb_config_free(&cfg);
}
