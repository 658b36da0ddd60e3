/* Facts: ordered list, flat form for the control protocol, env.json, CPU lists. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env_json.h"
#include "facts.h"
#include "fixture_util.h"

static const char *tmp_path(void)
{
	static char path[64];
	cr_assert(nbt_tmpfile("facts", ".json", NULL, path, sizeof(path)));
	return path;
}

/* Values that break naive encoders: quotes, backslashes, control bytes, UTF-8, the
 * flat form's own markers, and an empty string. */
static const char *const hostile[] = {
	"plain", "say \"hi\"", "back\\slash", "tab\there\nnewline", "!looks unknown", "\\!escaped",
	"\\", "", "ünïcødé ✓", "{\"unknown\": \"x\"}", "a.b.c", "\x01\x1f",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void fill(struct nb_facts *f)
{
	char key[32];
	for (size_t i = 0; i < NHOSTILE; i++) {
		snprintf(key, sizeof(key), "k%zu.sub", i);
		cr_assert(nb_facts_set(f, "host", key, "%s", hostile[i]));
		snprintf(key, sizeof(key), "why%zu", i);
		cr_assert(nb_facts_unknown(f, "cpu", key, "%s", hostile[i]));
	}
}

static void same(const struct nb_facts *a, const struct nb_facts *b)
{
	cr_assert_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct nb_fact *x = nb_facts_get(b, a->v[i].group, a->v[i].key);
		cr_assert_not_null(x, "%s.%s lost", a->v[i].group, a->v[i].key);
		cr_expect_str_eq(x->value, a->v[i].value, "%s.%s", a->v[i].group, a->v[i].key);
		cr_expect_eq(x->ok, a->v[i].ok, "%s.%s", a->v[i].group, a->v[i].key);
	}
}

Test(facts, set_replaces_in_place_and_unknown_keeps_the_reason)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_assert(nb_facts_set(&f, "iface", "mtu", "%d", 1500));
	cr_assert(nb_facts_set(&f, "iface", "name", "eth0"));
	cr_assert(nb_facts_unknown(&f, "iface", "mtu", "permission denied"));
	cr_assert_eq(f.n, 2);
	cr_expect_str_eq(f.v[0].key, "mtu");
	cr_expect_null(nb_facts_value(&f, "iface", "mtu"));
	cr_expect_str_eq(nb_facts_get(&f, "iface", "mtu")->value, "permission denied");
	cr_expect_null(nb_facts_get(&f, "iface", "speed"));
	nb_facts_free(&f);
	nb_facts_free(&f);
}

Test(facts, bad_names_are_refused)
{
	struct nb_facts f;
	nb_facts_init(&f);
	cr_expect_not(nb_facts_set(&f, "", "k", "v"));
	cr_expect_not(nb_facts_set(&f, "g", "", "v"));
	cr_expect_not(nb_facts_set(&f, "has.dot", "k", "v"));
	cr_expect_not(nb_facts_set(&f, "a-group-name-that-is-far-too-long", "k", "v"));
	cr_expect_eq(f.n, 0);
	cr_expect_not(nb_facts_unflatten(&f, "nodot", "v"));
	cr_expect_not(nb_facts_unflatten(&f, ".key", "v"));
	cr_expect_not(nb_facts_unflatten(&f, "group.", "v"));
	cr_expect_eq(f.n, 0);
	nb_facts_free(&f);
}

static void put_pair(void *ctx, const char *k, const char *v)
{
	cr_assert(nb_facts_unflatten(ctx, k, v), "unflatten %s=%s", k, v);
}

Test(facts, flatten_unflatten_round_trip_keeps_order_and_hostile_values)
{
	struct nb_facts a, b;
	nb_facts_init(&a);
	nb_facts_init(&b);
	fill(&a);
	nb_facts_flatten(&a, put_pair, &b);
	same(&a, &b);
	for (size_t i = 0; i < a.n; i++)
		cr_expect_str_eq(a.v[i].key, b.v[i].key);
	nb_facts_free(&a);
	nb_facts_free(&b);
}

static void put_first(void *ctx, const char *k, const char *v)
{
	char *out = ctx;
	if (!out[0])
		snprintf(out, 256, "%s=%s", k, v);
}

Test(facts, flat_form_marks_unknown_with_bang_and_escapes_a_literal_bang)
{
	struct nb_facts f;
	char s[256] = "";
	nb_facts_init(&f);
	nb_facts_unknown(&f, "cpu", "governor", "no cpufreq");
	nb_facts_flatten(&f, put_first, s);
	cr_expect_str_eq(s, "cpu.governor=!no cpufreq");
	nb_facts_set(&f, "cpu", "governor", "!x");
	s[0] = '\0';
	nb_facts_flatten(&f, put_first, s);
	cr_expect_str_eq(s, "cpu.governor=\\!x");
	nb_facts_free(&f);
}

Test(facts, env_json_round_trip_with_hostile_values)
{
	struct nb_facts l, p, l2, p2;
	struct nb_error err = { "" };
	const char *path = tmp_path();
	nb_facts_init(&l);
	nb_facts_init(&p);
	nb_facts_init(&l2);
	nb_facts_init(&p2);
	fill(&l);
	nb_facts_set(&p, "iface", "mtu", "1500");
	nb_facts_unknown(&p, "iface", "speed", "driver does not report link settings");
	cr_assert(nb_env_json_write(path, &l, &p, &err), "%s", err.msg);
	cr_assert(nb_env_json_read(path, &l2, &p2, &err), "%s", err.msg);
	same(&l, &l2);
	same(&p, &p2);
	unlink(path);
	nb_facts_free(&l);
	nb_facts_free(&p);
	nb_facts_free(&l2);
	nb_facts_free(&p2);
}

Test(facts, env_json_shape_is_local_peer_hosts_differences_group_key)
{
	struct nb_facts l;
	struct nb_error err = { "" };
	const char *path = tmp_path();
	nb_facts_init(&l);
	nb_facts_set(&l, "iface", "mtu", "9000");
	nb_facts_unknown(&l, "cpu", "governor", "no cpufreq");
	cr_assert(nb_env_json_write(path, &l, NULL, &err));
	char *text = nbt_slurp(path, NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "{\n  \"local\": {\n    \"iface\": {\n      \"mtu\": \"9000\"\n    },\n"
			       "    \"cpu\": {\n      \"governor\": {\n        \"unknown\": \"no cpufreq\"\n"
			       "      }\n    }\n  },\n  \"peer\": null,\n  \"hosts\": {},\n"
			       "  \"differences\": []\n}");
	free(text);
	unlink(path);
	nb_facts_free(&l);
}

Test(facts, env_json_read_rejects_bad_shapes_with_the_path)
{
	static const char *const bad[][2] = {
		{ "[1]", "expected {\"local\": ..., \"peer\": ...}" },
		{ "{\"peer\": {}}", "expected an object of fact groups" },
		{ "{\"local\": {\"cpu\": 3}}", "group cpu: expected an object" },
		{ "{\"local\": {\"cpu\": {\"model\": 3}}}", "cpu.model: expected a string or {\"unknown\": reason}" },
		{ "{\"local\": {\"cpu\": {\"\": \"x\"}}}", "bad fact name cpu." },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = tmp_path();
		struct nb_facts l, p;
		struct nb_error err = { "" };
		nb_facts_init(&l);
		nb_facts_init(&p);
		cr_assert(nbt_write(path, bad[i][0], strlen(bad[i][0])));
		cr_expect_not(nb_env_json_read(path, &l, &p, &err), "%s", bad[i][0]);
		cr_expect_not_null(strstr(err.msg, bad[i][1]), "%s -> %s", bad[i][0], err.msg);
		cr_expect_eq(strncmp(err.msg, path, strlen(path)), 0, "%s", err.msg);
		unlink(path);
		nb_facts_free(&l);
		nb_facts_free(&p);
	}
}

Test(facts, diff_skips_host_identity_and_reports_one_sided_facts)
{
	struct nb_facts l, p;
	size_t n = 0;
	nb_facts_init(&l);
	nb_facts_init(&p);
	nb_facts_set(&l, "host", "hostname", "a");
	nb_facts_set(&p, "host", "hostname", "b");
	nb_facts_set(&l, "iface", "mtu", "9000");
	nb_facts_set(&p, "iface", "mtu", "9000");
	nb_facts_set(&l, "iface", "offload.tso", "on");
	nb_facts_set(&p, "iface", "offload.tso", "off");
	nb_facts_set(&p, "tcp", "conntrack", "loaded");
	nb_facts_unknown(&l, "iface", "numa_node", "virtual device (no /sys/class/net/veth0/device)");
	nb_facts_unknown(&p, "iface", "numa_node", "virtual device (no /sys/class/net/veth1/device)");
	cr_expect_eq(nb_facts_diff(&l, &p, NULL, NULL), 2);
	cr_expect_eq(nb_facts_diff(&l, NULL, NULL, &n), 0);
	nb_facts_free(&l);
	nb_facts_free(&p);
}

Test(facts, cpulist_parses_ranges_and_rejects_garbage)
{
	static const struct {
		const char *list;
		int n;
	} cases[] = { { "0", 1 }, { "0-3", 4 }, { "0-1,4,6-7\n", 5 }, { "", 0 },
		      { "3-1", -1 }, { "a", -1 }, { "1;2", -1 }, { "5000", -1 } };
	bool set[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_cpulist_parse(cases[i].list, NULL, 4096), cases[i].n, "%s", cases[i].list);
	cr_assert_eq(nb_cpulist_parse("1,3-4,1", set, 64), 3);
	cr_expect(set[1] && !set[2] && set[3] && set[4] && !set[0]);
}
