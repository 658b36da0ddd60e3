/* nbrun — environment facts: an ordered (group, key, value) list, its flat form for the
 * control protocol, the "what differs between the ends" helper, and CPU lists (env.json is
 * env_json.c). */
#include "facts.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nb_facts_init(struct nb_facts *f)
{
	f->v = NULL;
	f->n = f->cap = 0;
}

void nb_facts_free(struct nb_facts *f)
{
	if (!f)
		return;
	free(f->v);
	nb_facts_init(f);
}

static struct nb_fact *find(const struct nb_facts *f, const char *group, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].group, group) && !strcmp(f->v[i].key, key))
			return &f->v[i];
	return NULL;
}

/* The slot for (group, key): the existing one, or a new one at the end. */
static struct nb_fact *slot(struct nb_facts *f, const char *group, const char *key)
{
	if (!group[0] || !key[0] || strlen(group) >= sizeof(f->v->group) ||
	    strlen(key) >= sizeof(f->v->key) || strchr(group, '.'))
		return NULL;
	struct nb_fact *x = find(f, group, key);
	if (x)
		return x;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct nb_fact *v = realloc(f->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		f->v = v;
		f->cap = cap;
	}
	x = &f->v[f->n++];
	memset(x, 0, sizeof(*x));
	strcpy(x->group, group);
	strcpy(x->key, key);
	return x;
}

static bool vset(struct nb_facts *f, const char *group, const char *key, bool ok, const char *fmt,
		 va_list ap)
{
	struct nb_fact *x = slot(f, group, key);
	if (!x)
		return false;
	vsnprintf(x->value, sizeof(x->value), fmt, ap);
	x->ok = ok;
	return true;
}

bool nb_facts_set(struct nb_facts *f, const char *group, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = vset(f, group, key, true, fmt, ap);
	va_end(ap);
	return ok;
}

bool nb_facts_unknown(struct nb_facts *f, const char *group, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = vset(f, group, key, false, fmt, ap);
	va_end(ap);
	return ok;
}

const struct nb_fact *nb_facts_get(const struct nb_facts *f, const char *group, const char *key)
{
	return f ? find(f, group, key) : NULL;
}

const char *nb_facts_value(const struct nb_facts *f, const char *group, const char *key)
{
	const struct nb_fact *x = nb_facts_get(f, group, key);
	return x && x->ok ? x->value : NULL;
}

/* Flat form: an unknown fact is "!reason"; a known value that starts with '!' or '\'
 * is escaped with one leading '\', so every value round-trips. */
void nb_facts_flatten(const struct nb_facts *f, void (*put)(void *ctx, const char *k, const char *v),
		      void *ctx)
{
	char k[sizeof(f->v->group) + sizeof(f->v->key) + 1];
	char v[sizeof(f->v->value) + 2];
	for (size_t i = 0; i < f->n; i++) {
		const struct nb_fact *x = &f->v[i];
		snprintf(k, sizeof(k), "%s.%s", x->group, x->key);
		bool esc = x->ok && (x->value[0] == '!' || x->value[0] == '\\');
		snprintf(v, sizeof(v), "%s%s", !x->ok ? "!" : esc ? "\\" : "", x->value);
		put(ctx, k, v);
	}
}

bool nb_facts_unflatten(struct nb_facts *f, const char *k, const char *v)
{
	const char *dot = strchr(k, '.');
	if (!dot || !v)
		return false;
	char group[sizeof(f->v->group)];
	size_t glen = (size_t)(dot - k);
	if (glen == 0 || glen >= sizeof(group))
		return false;
	memcpy(group, k, glen);
	group[glen] = '\0';
	if (v[0] == '!')
		return nb_facts_unknown(f, group, dot + 1, "%s", v + 1);
	return nb_facts_set(f, group, dot + 1, "%s", v[0] == '\\' ? v + 1 : v);
}

bool nb_facts_same(const struct nb_fact *a, const struct nb_fact *b)
{
	/* Two unknowns agree: their reasons may name the host ("no IRQ of eth0"). */
	return a && b && a->ok == b->ok && (!a->ok || !strcmp(a->value, b->value));
}

/* Facts that name this host rather than describe its setup: they always differ. */
bool nb_facts_comparable(const char *group, const char *key)
{
	static const char *const own[] = {
		"host.hostname", "host.boot_time", "cpu.loadavg", "iface.name", "iface.local_addr",
		"iface.irq.numbers", "tcp.conntrack_count", "nbrun.placement", "nbrun.engine_cpus",
	};
	char k[80];
	snprintf(k, sizeof(k), "%s.%s", group, key);
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(k, own[i]))
			return false;
	return true;
}

/* True when a host before h has (group, key) of x: its row was already considered. */
static bool seen_before(const struct nb_facts *const *sets, size_t h, const struct nb_fact *x)
{
	for (size_t k = 0; k < h; k++)
		if (find(sets[k], x->group, x->key))
			return true;
	return false;
}

/* Fill each[0..n) with every host's (group, key); true when they are not all the same. */
static bool differs(const struct nb_facts *const *sets, size_t n, const struct nb_fact *x,
		    const struct nb_fact **each)
{
	bool diff = false;
	for (size_t k = 0; k < n; k++) {
		each[k] = find(sets[k], x->group, x->key);
		diff |= !nb_facts_same(each[0], each[k]);
	}
	return diff;
}

size_t nb_facts_diff_hosts(const struct nb_facts *const *sets, size_t n,
			   void (*put)(void *ctx, const struct nb_fact *x,
				       const struct nb_fact *const *each),
			   void *ctx, bool *nomem)
{
	const struct nb_fact *few[4];
	const struct nb_fact **each = n < 2 ? NULL : n <= 4 ? few : calloc(n, sizeof(*each));
	size_t count = 0;
	if (nomem)
		*nomem = n >= 2 && !each;
	for (size_t h = 0; each && h < n; h++)
		for (size_t i = 0; i < sets[h]->n; i++) {
			const struct nb_fact *x = &sets[h]->v[i];
			if (!nb_facts_comparable(x->group, x->key) || seen_before(sets, h, x) ||
			    !differs(sets, n, x, each))
				continue;
			count++;
			if (put)
				put(ctx, x, each);
		}
	if (each != few)
		free(each);
	return count;
}

/* nb_facts_diff's put, called with the two hosts' facts. */
struct pair_put {
	void (*put)(void *ctx, const struct nb_fact *l, const struct nb_fact *p);
	void *ctx;
};

static void put_pair(void *ctx, const struct nb_fact *x, const struct nb_fact *const *each)
{
	const struct pair_put *pp = ctx;
	(void)x;
	if (pp->put)
		pp->put(pp->ctx, each[0], each[1]);
}

size_t nb_facts_diff(const struct nb_facts *local, const struct nb_facts *peer,
		     void (*put)(void *ctx, const struct nb_fact *l, const struct nb_fact *p), void *ctx)
{
	if (!local || !peer)
		return 0;
	const struct nb_facts *sets[2] = { local, peer };
	struct pair_put pp = { put, ctx };
	return nb_facts_diff_hosts(sets, 2, put_pair, &pp, NULL);
}

/* ---- CPU lists --------------------------------------------------------------- */

int nb_cpulist_parse(const char *list, bool *cpus, size_t max)
{
	int n = 0;
	if (cpus)
		memset(cpus, 0, max * sizeof(*cpus));
	for (const char *s = list; *s && *s != '\n';) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (unsigned long c = a; c <= b; c++) {
			if (c >= max)
				return -1;
			if (!cpus || !cpus[c])
				n++;
			if (cpus)
				cpus[c] = true;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n;
}
