/* Loading a config: read the file, build the node tree, check the top level,
 * then resolve every test through three layers — the last --set, the test's
 * own key, `defaults:` — in key-table order, and finish with the checks that
 * span keys. An error is noted and the parser goes on with the next key or
 * test, so one pass finds them all; any error leaves *cfg zeroed and frees
 * everything. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_int.h"
#include "param_defs.h"

#define MAX_FILE (1u << 20)
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

bool nb_config_engine_key(const char *name)
{
	const struct nb_cfg_key *k = nb_cfg_key_find(name);
	return k && !k->common && (k->scope & NB_KS_TEST) && strcmp(k->name, name) == 0;
}

static const char *const order_names[] = { "sequential", "interleaved", "random" };

const char *nb_order_name(enum nb_order order)
{
	return order <= NB_ORDER_RANDOM ? order_names[order] : "?";
}

/* Opens path as a regular file of at most MAX_FILE bytes; returns the fd or -1 with err set. */
static int open_config(const char *path, off_t *size, struct nb_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		if (errno == ENOENT)
			nb_error_set(err, "%s: no such file (expected a YAML config file)", path);
		else
			nb_error_errno(err, errno, "%s: cannot open", path);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		nb_error_errno(err, errno, "%s: cannot stat", path);
	} else if (S_ISDIR(st.st_mode)) {
		nb_error_set(err, "%s: is a directory (expected a YAML config file)", path);
	} else if (!S_ISREG(st.st_mode)) {
		nb_error_set(err, "%s: not a regular file (expected a YAML config file)", path);
	} else if (st.st_size > MAX_FILE) {
		nb_error_set(err, "%s: file too large (expected at most 1 MiB)", path);
	} else {
		*size = st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

static bool read_file(const char *path, struct nb_config *cfg, struct nb_error *err)
{
	off_t size;
	int fd = open_config(path, &size, err);
	if (fd < 0)
		return false;
	cfg->text = malloc((size_t)size + 1);
	ssize_t n = cfg->text ? read(fd, cfg->text, (size_t)size) : -1;
	int e = cfg->text ? errno : ENOMEM;
	close(fd);
	if (n < 0)
		return nb_error_errno(err, e, "%s: cannot read", path);
	cfg->text[n] = '\0';
	cfg->text_len = (size_t)n;
	if (n == 0)
		return nb_error_set(err, "%s: empty file (expected a YAML mapping with tests:)", path);
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	return true;
}

/* A name used in ids and folder names: letters, digits, '.', '_', '-'. */
static bool parse_name(struct nb_cfg_ctx *c, const struct nb_ynode *v, char *out, size_t len)
{
	static const char what[] = "a name of letters, digits, '.', '_' or '-'";
	if (!nb_cfg_scalar(c, v, what))
		return false;
	size_t n = strlen(v->str);
	if (n >= len || strspn(v->str, NAME_CHARS) != n)
		return nb_yerror(c->err, v, "bad name '%s' (expected %s, at most %zu characters)",
				 v->str, what, len - 1);
	memcpy(out, v->str, n + 1);
	return true;
}

/* A test of engine e before its keys apply: the engine's own defaults from its traits. */
static void test_defaults(struct nb_test *t, const struct nb_engine *e)
{
	memset(t, 0, sizeof(*t));
	t->engine = e;
	snprintf(t->base.engine, sizeof(t->base.engine), "%s", e->name);
	nb_params_defaults(&t->base, e);
	t->protocol = (struct nb_axis_u64){ { e->traits.default_proto }, 1 };
	t->streams = (struct nb_axis_u64){ { 1 }, 1 };
	t->rate = (struct nb_axis_u64){ { 0 }, 1 };
	t->direction = (struct nb_axis_u64){ { NB_DIR_FORWARD }, 1 };
	t->request = (struct nb_axis_u64){ { e->traits.default_request }, 1 };
	t->response = (struct nb_axis_u64){ { e->traits.default_response }, 1 };
	t->timing = (struct nb_timing){ .duration_ns = 10000000000ull, .warmup_ns = 1000000000ull,
				       .interval_ns = 1000000000ull };
	t->reps = (struct nb_reps){ .count = 1, .min = 1, .max = 1 };
}

void nb_config_latency_probe(const struct nb_test *t, const struct nb_engine *e, uint64_t rate,
			     struct nb_test *out)
{
	test_defaults(out, e);
	snprintf(out->name, sizeof(out->name), "%.58s.lat", t->name);
	out->line = t->line;
	out->col = t->col;
	out->protocol = (struct nb_axis_u64){ { NB_PROTO_UDP }, 1 };
	out->rate = (struct nb_axis_u64){ { rate }, 1 };
	out->timing = t->timing;
	out->reps = t->reps;
}

/* The first registered engine key k means something to (every key has one). */
static const struct nb_engine *first_engine_of(const struct nb_cfg_key *k)
{
	const struct nb_engine *const *e = nb_engine_list();
	while (e[1] && !nb_cfg_key_applies(k, *e))
		e++;
	return *e;
}

/* Checks each value of a layer (defaults or one --set) alone, so a bad value is reported
 * even where no test uses it; tests re-apply the values in context. */
static bool check_layer(struct nb_cfg_ctx *c, const struct nb_ynode *map)
{
	bool ok = true;
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct nb_cfg_key *k = nb_cfg_key_find(map->kids[i]->str);
		if (!k || (!k->apply && !k->param))
			continue;
		struct nb_test *scratch = malloc(sizeof(*scratch));
		if (!scratch)
			return nb_error_set(c->err, "out of memory") || nb_cfg_note(c);
		test_defaults(scratch, first_engine_of(k));
		if (!nb_cfg_key_apply(c, k, map->kids[i + 1], scratch))
			ok = nb_cfg_note(c);
		free(scratch);
	}
	return ok;
}

static bool parse_set(struct nb_cfg_ctx *c, const char *set, struct nb_cfg_set *s)
{
	const char *eq = strchr(set, '=');
	size_t klen = eq ? (size_t)(eq - set) : strlen(set);
	snprintf(s->key, sizeof(s->key), "%.*s", (int)(klen < 31 ? klen : 31), set);
	s->src = (struct nb_ysrc){ .file = c->src.file, .set_key = s->key };
	if (!eq || klen == 0 || klen >= sizeof(s->key))
		return nb_error_set(c->err, "--set %s: expected KEY=VALUE such as duration=5s", set);
	if (!nb_yaml_parse(eq + 1, strlen(eq + 1), &s->src, &s->value, c->err))
		return false;
	struct nb_ynode key = { .kind = NB_Y_SCALAR, .str = s->key, .plain = true, .src = &s->src };
	struct nb_ynode *kids[2] = { &key, s->value };
	struct nb_ynode map = { .kind = NB_Y_MAP, .kids = kids, .nkids = 2, .src = &s->src };
	if (!s->value)
		return nb_error_set(c->err, "--set %s: missing value (expected %s=VALUE)", s->key,
				    s->key);
	return nb_cfg_check_map(c, &map, NB_KS_DEFAULTS, NULL) && check_layer(c, &map);
}

/* Each --set alone; a bad one is noted and ignored, so the file's errors are found too. */
static void parse_sets(struct nb_cfg_ctx *c, const char *const *sets, size_t nsets)
{
	if (nsets == 0)
		return;
	c->sets = calloc(nsets, sizeof(*c->sets));
	if (!c->sets) {
		nb_error_set(c->err, "out of memory");
		nb_cfg_note(c);
		return;
	}
	for (size_t i = 0; i < nsets; i++) {
		struct nb_cfg_set *s = &c->sets[c->nsets];
		if (parse_set(c, sets[i], s)) {
			c->nsets++;
			continue;
		}
		nb_cfg_note(c);
		nb_ynode_free(s->value);
		memset(s, 0, sizeof(*s));
	}
}

static bool no_engine(struct nb_cfg_ctx *c, const struct nb_ynode *node, const char *test)
{
	const char *names[NB_CFG_MAX_ENGINES];
	char list[160];
	nb_cfg_join_or(names, nb_cfg_engine_names(names, NB_CFG_MAX_ENGINES), list, sizeof(list));
	return nb_yerror(c->err, node, "test '%s' has no engine (expected engine: %s)", test, list);
}

/* The engine, from the layers; then every other key in table order, each error noted; the
 * checks across keys only when every key was good. */
static bool resolve_test(struct nb_cfg_ctx *c, const struct nb_ynode *node, struct nb_test *t)
{
	const struct nb_ynode *ev = nb_cfg_lookup(c, node, "engine");
	const char *phase = nb_ymap_get(node, "idle") ? "idle" : nb_ymap_get(node, "after") ? "after" : NULL;
	if (phase)
		return nb_yerror(c->err, nb_ymap_key(node, phase), "'%s' is a phase of a working test "
				 "(expected it with load: and probes:)", phase) || nb_cfg_note(c);
	if (!ev)
		return no_engine(c, node, t->name) || nb_cfg_note(c);
	char name[sizeof(t->name)];
	memcpy(name, t->name, sizeof(name));
	if (!nb_cfg_key_find("engine")->apply(c, ev, t))
		return nb_cfg_note(c);
	const struct nb_engine *e = t->engine;
	bool ok = nb_cfg_check_map(c, node, NB_KS_TEST, e);
	test_defaults(t, e);
	memcpy(t->name, name, sizeof(name));
	t->line = node->line;
	t->col = node->col;
	for (const struct nb_cfg_key *k = nb_cfg_keys(); k->name; k++) {
		const struct nb_ynode *v = (k->apply || k->param) && strcmp(k->name, "engine") != 0 &&
						   nb_cfg_key_applies(k, e)
					   ? nb_cfg_lookup(c, node, k->name)
					   : NULL;
		if (v && !nb_cfg_key_apply(c, k, v, t))
			ok = nb_cfg_note(c);
	}
	return ok && (nb_cfg_check_test(c, node, t) || nb_cfg_note(c));
}

/* One test; its errors are noted (a test with one is left out of cfg). */
static void load_test(struct nb_cfg_ctx *c, const struct nb_ynode *node, struct nb_config *cfg)
{
	struct nb_test *t = &cfg->tests[cfg->ntests];
	const struct nb_ynode *nv = nb_ymap_get(node, "name");
	if (node->kind != NB_Y_MAP)
		nb_yerror(c->err, node, "expected a test (a mapping with name and engine), got %s",
			  nb_ynode_kind_name(node));
	else if (!nv)
		nb_yerror(c->err, node, "test without a name (expected name: ...)");
	if (node->kind != NB_Y_MAP || !nv || !parse_name(c, nv, t->name, sizeof(t->name))) {
		nb_cfg_note(c);
		return;
	}
	for (size_t i = 0; i < cfg->ntests; i++)
		if (strcmp(cfg->tests[i].name, t->name) == 0) {
			nb_yerror(c->err, nv, "duplicate test name '%s' (first at line %u, column %u)",
				  t->name, cfg->tests[i].line, cfg->tests[i].col);
			nb_cfg_note(c);
			return;
		}
	if (nb_cfg_is_working(node) ? nb_cfg_working(c, node, t, resolve_test) : resolve_test(c, node, t))
		cfg->ntests++;
}

static bool load_tests(struct nb_cfg_ctx *c, struct nb_config *cfg)
{
	const struct nb_ynode *tv = nb_ymap_get(c->root, "tests");
	if (!tv)
		return nb_yerror(c->err, c->root, "no tests (expected tests: a list of tests)");
	if (tv->kind != NB_Y_SEQ)
		return nb_yerror(c->err, tv, "expected a list of tests, got %s",
				 nb_ynode_kind_name(tv));
	if (tv->nkids == 0)
		return nb_yerror(c->err, tv, "empty list of tests (expected at least one test)");
	cfg->tests = calloc(tv->nkids, sizeof(*cfg->tests));
	if (!cfg->tests)
		return nb_error_set(c->err, "out of memory");
	for (size_t i = 0; i < tv->nkids; i++)
		load_test(c, tv->kids[i], cfg);
	return true;
}

/* order and seed: --set, else defaults, else the top level (not both of the last two). */
static const struct nb_ynode *top_or_default(struct nb_cfg_ctx *c, const char *key, bool *dup)
{
	const struct nb_ynode *v = nb_cfg_lookup(c, NULL, key), *top = nb_ymap_get(c->root, key);
	*dup = top && nb_ymap_get(c->defaults, key);
	if (*dup)
		nb_yerror(c->err, nb_ymap_key(c->defaults, key), "'%s' is given both at the top level "
			  "(line %u) and in defaults (expected one of them)", key, top->line);
	return v ? v : top;
}

static bool load_order_seed(struct nb_cfg_ctx *c, struct nb_config *cfg)
{
	bool dup;
	const struct nb_ynode *v = top_or_default(c, "order", &dup);
	int o = NB_ORDER_SEQUENTIAL;
	if (dup || (v && !nb_cfg_enum(c, v, order_names, 3, &o)))
		return false;
	cfg->order = (enum nb_order)o;
	cfg->seed = 1;
	v = top_or_default(c, "seed", &dup);
	return !dup && (!v || nb_cfg_uint(c, v, 0, UINT64_MAX, &cfg->seed));
}

/* The top level; each error is noted and the next key looked at. */
static bool load_top(struct nb_cfg_ctx *c, struct nb_config *cfg)
{
	const struct nb_ynode *v;
	if (c->root->kind != NB_Y_MAP)
		return nb_yerror(c->err, c->root, "expected a mapping with name, defaults and tests at "
				 "the top level, got %s", nb_ynode_kind_name(c->root));
	nb_cfg_check_map(c, c->root, NB_KS_TOP, NULL);
	if ((v = nb_ymap_get(c->root, "name")) && !parse_name(c, v, cfg->name, sizeof(cfg->name)))
		nb_cfg_note(c);
	if ((v = nb_ymap_get(c->root, "description")) && !nb_cfg_scalar(c, v, "free text"))
		nb_cfg_note(c);
	else if (v)
		snprintf(cfg->description, sizeof(cfg->description), "%s", v->str);
	if ((v = nb_ymap_get(c->root, "labels")) && !nb_ynode_is_null(v))
		nb_cfg_load_labels(c, v, cfg);
	v = nb_ymap_get(c->root, "defaults");
	if (v && v->kind != NB_Y_MAP && !nb_ynode_is_null(v)) {
		nb_yerror(c->err, v, "expected a mapping of keys, got %s", nb_ynode_kind_name(v));
		nb_cfg_note(c);
	}
	c->defaults = v && v->kind == NB_Y_MAP ? v : NULL;
	if (c->defaults && nb_cfg_check_map(c, c->defaults, NB_KS_DEFAULTS, NULL))
		check_layer(c, c->defaults);
	if (!load_order_seed(c, cfg))
		nb_cfg_note(c);
	return load_tests(c, cfg);
}

/* The config's name when it has no `name:`: the file's base name without extension. */
static void default_name(struct nb_config *cfg)
{
	const char *base = strrchr(cfg->path, '/');
	base = base ? base + 1 : cfg->path;
	size_t n = strcspn(base, ".");
	snprintf(cfg->name, sizeof(cfg->name), "%.*s", (int)(n < 63 ? n : 63), base);
}

/* Parse cfg->text, name naming it in errors, every error into errs (err: one already met, e.g.
 * reading the file, when ok is false); whether there was none. */
static bool parse_text(const char *name, bool ok, struct nb_error *err, const char *const *sets,
		       size_t nsets, struct nb_config *cfg, struct nb_config_errors *errs)
{
	struct nb_cfg_ctx c = { .src = { .file = name }, .err = err, .errs = errs };
	const struct nb_ynode *v;
	ok = ok && nb_yaml_parse(cfg->text, cfg->text_len, &c.src, &c.root, err);
	if (ok && !c.root)
		ok = nb_error_set(err, "%s: empty file (expected a YAML mapping with tests:)", name);
	if (ok && (v = nb_ymap_get(c.root, "hosts")) && !nb_ynode_is_null(v))
		nb_cfg_load_hosts(&c, v, cfg); /* before --set and tests: paths: name its hosts */
	c.hosts = cfg->hosts;
	c.nhosts = cfg->nhosts;
	if (ok)
		parse_sets(&c, sets, nsets);
	if (ok && !load_top(&c, cfg))
		ok = nb_cfg_note(&c);
	if (!ok && errs->n == 0)
		nb_cfg_note(&c);
	ok = errs->n == 0;
	if (ok && !cfg->name[0])
		default_name(cfg);
	nb_ynode_free(c.root);
	for (size_t i = 0; i < c.nsets; i++)
		nb_ynode_free(c.sets[i].value);
	free(c.sets);
	if (!ok)
		nb_config_free(cfg);
	return ok;
}

bool nb_config_load_all(const char *path, const char *const *sets, size_t nsets,
			struct nb_config *cfg, struct nb_config_errors *errs)
{
	struct nb_error err = { { 0 } };
	memset(cfg, 0, sizeof(*cfg));
	memset(errs, 0, sizeof(*errs));
	bool ok = read_file(path, cfg, &err);
	return parse_text(path, ok, &err, sets, nsets, cfg, errs);
}

/* nb_config_load_all of text already in memory (copied into cfg); name stands for the file. */
static bool load_text_all(const char *name, const char *text, size_t len, const char *const *sets,
			  size_t nsets, struct nb_config *cfg, struct nb_config_errors *errs)
{
	struct nb_error err = { { 0 } };
	memset(cfg, 0, sizeof(*cfg));
	memset(errs, 0, sizeof(*errs));
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	cfg->text = malloc(len + 1);
	if (cfg->text) {
		memcpy(cfg->text, text, len); /* text: never NULL here */
		cfg->text[len] = '\0';
		cfg->text_len = len;
	}
	bool ok = !cfg->text ? nb_error_set(&err, "%s: out of memory", name)
		  : len == 0 ? nb_error_set(&err, "%s: empty file (expected a YAML mapping with tests:)", name)
			     : true;
	return parse_text(name, ok, &err, sets, nsets, cfg, errs);
}

/* Load path (text NULL) or text; err gets the first error. */
static bool load_first(const char *path, const char *text, size_t len, const char *const *sets,
		       size_t nsets, struct nb_config *cfg, struct nb_error *err)
{
	struct nb_config_errors *errs = malloc(sizeof(*errs));
	if (!errs)
		return nb_error_set(err, "out of memory");
	bool ok = text ? load_text_all(path, text, len, sets, nsets, cfg, errs)
		       : nb_config_load_all(path, sets, nsets, cfg, errs);
	if (!ok && err)
		*err = errs->v[0];
	free(errs);
	return ok;
}

bool nb_config_load(const char *path, const char *const *sets, size_t nsets, struct nb_config *cfg,
		    struct nb_error *err)
{
	return load_first(path, NULL, 0, sets, nsets, cfg, err);
}

bool nb_config_load_text(const char *name, const char *text, size_t len, const char *const *sets,
			 size_t nsets, struct nb_config *cfg, struct nb_error *err)
{
	return load_first(name, text ? text : "", text ? len : 0, sets, nsets, cfg, err);
}

void nb_config_free(struct nb_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; cfg->tests && i < cfg->ntests; i++)
		nb_cfg_working_free(cfg->tests[i].working);
	free(cfg->tests);
	free(cfg->hosts);
	free(cfg->text);
	memset(cfg, 0, sizeof(*cfg));
}
