/* env.json of several agent hosts (issue 17): every host by name, the differences between
 * local and them, an env.json written before "hosts" existed, and the report's table. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env_json.h"
#include "facts.h"
#include "fixture_util.h"
#include "report.h"

static char path[64];
static struct nb_facts local, a, b;

static void setup(void)
{
	cr_assert(nbt_tmpfile("envhosts", ".json", NULL, path, sizeof(path)));
	nb_facts_init(&local);
	nb_facts_init(&a);
	nb_facts_init(&b);
	struct nb_facts *all[] = { &local, &a, &b };
	for (size_t i = 0; i < 3; i++) { /* the same kernel everywhere, a hostname of its own */
		nb_facts_set(all[i], "host", "hostname", "vm%zu", i);
		nb_facts_set(all[i], "host", "kernel", "6.1.0-18-amd64");
	}
}

static void teardown(void)
{
	unlink(path);
	nb_facts_free(&local);
	nb_facts_free(&a);
	nb_facts_free(&b);
}

/* Write local, A and B; return env.json's "differences" (decref root). */
static json_t *differences(json_t **root)
{
	struct nb_env_host hosts[] = { { "A", &a }, { "B", &b } };
	struct nb_error err = { "" };
	cr_assert(nb_env_json_write_hosts(path, &local, hosts, 2, &err), "%s", err.msg);
	json_error_t je;
	*root = json_load_file(path, 0, &je);
	cr_assert_not_null(*root, "%s", je.text);
	json_t *d = json_object_get(*root, "differences");
	cr_assert(json_is_array(d));
	return d;
}

/* The "values" of the difference of group.key, or NULL when it is not one. */
static json_t *values_of(json_t *diffs, const char *group, const char *key)
{
	size_t i;
	json_t *row;
	json_array_foreach(diffs, i, row)
		if (!strcmp(json_string_value(json_object_get(row, "group")), group) &&
		    !strcmp(json_string_value(json_object_get(row, "key")), key))
			return json_object_get(row, "values");
	return NULL;
}

static const char *str_of(json_t *values, const char *host)
{
	const char *s = json_string_value(json_object_get(values, host));
	cr_assert_not_null(s, "%s has no string value", host);
	return s;
}

Test(env_hosts, every_host_reads_back_by_name_and_peer_is_the_first, .init = setup,
     .fini = teardown)
{
	nb_facts_set(&a, "iface", "mtu", "9000");
	nb_facts_unknown(&b, "cpu", "governor", "no cpufreq in this VM");
	struct nb_env_host hosts[] = { { "127.0.0.2:29000", &a }, { "vb", &b } };
	struct nb_error err = { "" };
	cr_assert(nb_env_json_write_hosts(path, &local, hosts, 2, &err), "%s", err.msg);
	struct nb_facts l2, p2;
	struct nb_env_hosts h = { 0 };
	nb_facts_init(&l2);
	nb_facts_init(&p2);
	cr_assert(nb_env_json_read_hosts(path, &l2, &p2, &h, &err), "%s", err.msg);
	cr_assert_eq(h.n, 2);
	cr_expect_str_eq(h.names[0], "127.0.0.2:29000");
	cr_expect_str_eq(h.names[1], "vb");
	cr_expect_str_eq(nb_facts_value(&h.facts[0], "iface", "mtu"), "9000");
	cr_expect_eq(h.facts[1].n, 3);
	const struct nb_fact *g = nb_facts_get(&h.facts[1], "cpu", "governor");
	cr_assert_not_null(g);
	cr_expect(!g->ok && !strcmp(g->value, "no cpufreq in this VM"));
	cr_expect_str_eq(nb_facts_value(&p2, "iface", "mtu"), "9000", "peer is path 0's host");
	cr_expect_str_eq(nb_facts_value(&l2, "host", "hostname"), "vm0");
	nb_env_hosts_free(&h);
	nb_facts_free(&l2);
	nb_facts_free(&p2);
}

Test(env_hosts, a_fact_the_same_on_every_host_is_no_difference, .init = setup, .fini = teardown)
{
	json_t *root;
	json_t *d = differences(&root);
	cr_expect_eq(json_array_size(d), 0, "same kernel; a hostname names its host and never counts");
	json_decref(root);
}

Test(env_hosts, a_differing_fact_lists_every_hosts_value, .init = setup, .fini = teardown)
{
	nb_facts_set(&local, "iface", "mtu", "1500");
	nb_facts_set(&a, "iface", "mtu", "9000");
	nb_facts_set(&b, "iface", "mtu", "1500");
	json_t *root;
	json_t *d = differences(&root);
	cr_assert_eq(json_array_size(d), 1);
	json_t *v = values_of(d, "iface", "mtu");
	cr_assert_not_null(v);
	cr_expect_eq(json_object_size(v), 3);
	cr_expect_str_eq(str_of(v, "local"), "1500");
	cr_expect_str_eq(str_of(v, "A"), "9000");
	cr_expect_str_eq(str_of(v, "B"), "1500");
	json_decref(root);
}

/* Missing on one host: null there. Unknown beside a value: a difference with its reason. Two
 * unknowns with different reasons: the same (a reason often names its host). */
Test(env_hosts, missing_and_unknown_facts_count_as_the_brief_says, .init = setup,
     .fini = teardown)
{
	nb_facts_set(&local, "tcp", "congestion", "bbr");
	nb_facts_set(&a, "tcp", "congestion", "bbr");
	nb_facts_set(&local, "cpu", "governor", "performance");
	nb_facts_set(&a, "cpu", "governor", "performance");
	nb_facts_unknown(&b, "cpu", "governor", "no cpufreq in this VM");
	struct nb_facts *all[] = { &local, &a, &b };
	for (size_t i = 0; i < 3; i++)
		nb_facts_unknown(all[i], "iface", "speed", "driver of vm%zu does not say", i);
	json_t *root;
	json_t *d = differences(&root);
	cr_assert_eq(json_array_size(d), 2);
	json_t *cc = values_of(d, "tcp", "congestion");
	cr_assert_not_null(cc);
	cr_expect_str_eq(str_of(cc, "local"), "bbr");
	cr_expect(json_is_null(json_object_get(cc, "B")), "B lacks it: null");
	json_t *gov = values_of(d, "cpu", "governor");
	cr_assert_not_null(gov);
	cr_expect_str_eq(str_of(gov, "A"), "performance");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(gov, "B"), "unknown")),
			 "no cpufreq in this VM");
	cr_expect_null(values_of(d, "iface", "speed"), "unknown everywhere is no difference");
	json_decref(root);
}

Test(env_hosts, a_host_named_twice_is_written_once, .init = setup, .fini = teardown)
{
	nb_facts_set(&a, "iface", "mtu", "9000");
	struct nb_env_host hosts[] = { { "A", &a }, { "A", &a } };
	struct nb_error err = { "" };
	cr_assert(nb_env_json_write_hosts(path, &local, hosts, 2, &err), "%s", err.msg);
	json_t *root = json_load_file(path, 0, NULL);
	cr_assert_not_null(root);
	cr_expect_eq(json_object_size(json_object_get(root, "hosts")), 1);
	json_t *v = values_of(json_object_get(root, "differences"), "iface", "mtu");
	cr_assert_not_null(v);
	cr_expect_eq(json_object_size(v), 2);
	cr_expect(json_is_null(json_object_get(v, "local")));
	json_decref(root);
}

Test(env_hosts, an_env_json_without_hosts_reads_with_no_hosts, .init = setup, .fini = teardown)
{
	static const char old[] = "{\"local\": {\"iface\": {\"mtu\": \"9001\"}},\n"
				  " \"peer\": {\"iface\": {\"mtu\": \"1500\"}}}\n";
	cr_assert(nbt_write(path, old, strlen(old)));
	struct nb_env_hosts h = { 0 };
	struct nb_error err = { "" };
	nb_facts_free(&local);
	nb_facts_free(&a);
	cr_assert(nb_env_json_read_hosts(path, &local, &a, &h, &err), "%s", err.msg);
	cr_expect_eq(h.n, 0);
	cr_expect_str_eq(nb_facts_value(&local, "iface", "mtu"), "9001");
	cr_expect_str_eq(nb_facts_value(&a, "iface", "mtu"), "1500");
	nb_env_hosts_free(&h);
}

Test(env_hosts, a_broken_host_is_an_error_naming_it, .init = setup, .fini = teardown)
{
	static const char bad[] = "{\"local\": {}, \"peer\": null, \"hosts\": {\"vb\": 3}}";
	cr_assert(nbt_write(path, bad, strlen(bad)));
	struct nb_env_hosts h = { 0 };
	struct nb_error err = { "" };
	cr_expect_not(nb_env_json_read_hosts(path, &local, &a, &h, &err));
	char want[128];
	snprintf(want, sizeof(want), "%s: hosts.vb: expected an object of fact groups", path);
	cr_expect_str_eq(err.msg, want);
	nb_env_hosts_free(&h);
}

/* ---- the report ---------------------------------------------------------------------------- */

/* report.md of the results-basic fixture with env.json of local, A and B (to free). */
static char *report_with_hosts(void)
{
	char dir[256], env[300], md[300];
	setenv("NBRUN_GNUPLOT", "none", 1);
	cr_assert(nbt_fixture_copy("results-basic", dir, sizeof(dir)));
	snprintf(env, sizeof(env), "%s/env.json", dir);
	struct nb_env_host hosts[] = { { "A", &a }, { "B", &b } };
	struct nb_error err = { "" };
	cr_assert(nb_env_json_write_hosts(env, &local, hosts, 2, &err), "%s", err.msg);
	struct nb_report_info info;
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	snprintf(md, sizeof(md), "%s/report.md", dir);
	char *text = nbt_slurp(md, NULL);
	nbt_rmtree(dir);
	cr_assert_not_null(text);
	return text;
}

Test(env_hosts, report_two_hosts_with_a_different_mtu_get_a_row_with_every_hosts_value,
     .init = setup, .fini = teardown)
{
	nb_facts_set(&local, "iface", "mtu", "1500");
	nb_facts_set(&a, "iface", "mtu", "1500");
	nb_facts_set(&b, "iface", "mtu", "9000");
	char *md = report_with_hosts();
	cr_expect_not_null(strstr(md, "**Hosts:** local (runner); agents: `A`, `B`.\n"), "%s", md);
	const char *table = strstr(md, "### Differences between hosts\n\n"
				       "| Fact | local | A | B |\n|---|---|---|---|\n"
				       "| iface.mtu | 1500 | 1500 | 9000 |\n\n");
	cr_expect_not_null(table, "%s", md);
	cr_expect_null(strstr(md, "No differences in the recorded facts"));
	/* the MTU warning names the host whose MTU differs, B — path 0's A is no "peer" here */
	cr_expect_not_null(strstr(md, "MTU differs between the ends: local 1500, B 9000"), "%s", md);
	cr_expect_null(strstr(md, "MTU differs between the ends: local 1500, peer"), "%s", md);
	free(md);
}

Test(env_hosts, report_each_hosts_environment_is_checked_by_its_name, .init = setup,
     .fini = teardown)
{
	nb_facts_set(&local, "cpu", "governor", "performance");
	nb_facts_set(&a, "cpu", "governor", "performance");
	nb_facts_set(&b, "cpu", "governor", "powersave");
	char *md = report_with_hosts();
	cr_expect_not_null(strstr(md, "CPU frequency scaling is active on the B end: governor "
				      "powersave"), "%s", md);
	cr_expect_null(strstr(md, "on the A end"), "A is clean");
	free(md);
}

Test(env_hosts, report_identical_hosts_get_the_one_line, .init = setup, .fini = teardown)
{
	struct nb_facts *all[] = { &local, &a, &b };
	for (size_t i = 0; i < 3; i++)
		nb_facts_set(all[i], "iface", "mtu", "1500");
	char *md = report_with_hosts();
	cr_expect_not_null(strstr(md, "### Differences between hosts\n\n"
				      "No differences in the recorded facts.\n\n"), "%s", md);
	cr_expect_null(strstr(md, "| Fact | local |"));
	free(md);
}
