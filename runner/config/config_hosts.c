/* `hosts:` and `paths:` (issue 17): which hosts a batch knows and how each is reached, and
 * which of them a case's paths join. Only parsed and checked here; the run reaches the hosts
 * (runner/run/hosts_reach.c). Every value is checked because some of them end up on an ssh
 * command line: a name or path that could be read as an option or by the remote shell as
 * anything but a word is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define HOST_CHARS NAME_CHARS ":%[]"
#define PATH_CHARS NAME_CHARS "/+~"

static const char *const host_keys[] = { "address", "ssh", "nbrun", "port", "secret_file",
					   "data_ports" };
static const char *const path_keys[] = { "from", "to" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct nb_host *nb_config_host(const struct nb_config *cfg, const char *name)
{
	for (size_t i = 0; cfg && i < cfg->nhosts; i++)
		if (strcmp(cfg->hosts[i].name, name) == 0)
			return &cfg->hosts[i];
	return NULL;
}

const char *nb_config_host_near(const struct nb_config *cfg, const char *name)
{
	const char *names[NB_HOSTS_MAX];
	size_t n = 0;
	for (size_t i = 0; cfg && i < cfg->nhosts && n < NB_HOSTS_MAX; i++)
		names[n++] = cfg->hosts[i].name;
	return nb_cfg_suggest(name, names, n);
}

char *nb_config_paths_str(const struct nb_test *t, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < t->npaths && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s->%s", i ? ";" : "", t->paths[i].from,
				 t->paths[i].to);
		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

/* A scalar of chars only, not starting with '-' (never an option), shorter than len. */
static bool word(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *chars, size_t len,
		 const char *what, char *out)
{
	if (!nb_cfg_scalar(c, v, what))
		return false;
	size_t n = strlen(v->str);
	if (n == 0 || n >= len || v->str[0] == '-' || strspn(v->str, chars) != n)
		return nb_yerror(c->err, v, "bad value '%s' (expected %s)", v->str, what);
	memcpy(out, v->str, n + 1);
	return true;
}

/* ssh: [USER@]HOST; the address defaults to HOST (without IPv6 brackets). */
static bool host_ssh(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_host *h)
{
	static const char what[] = "[USER@]HOST for ssh, e.g. bench@10.0.0.12";
	if (!word(c, v, HOST_CHARS "@", sizeof(h->ssh), what, h->ssh))
		return false;
	const char *at = strchr(h->ssh, '@');
	const char *host = at ? at + 1 : h->ssh;
	if ((at && (at == h->ssh || strchr(host, '@'))) || !*host || *host == '-')
		return nb_yerror(c->err, v, "bad value '%s' (expected %s)", v->str, what);
	if (!h->address[0])
		snprintf(h->address, sizeof(h->address), "%.*s", (int)strcspn(host + (*host == '['), "]"),
			 host + (*host == '['));
	return true;
}

/* data_ports: LO-HI, as `nbrun serve --data-ports` takes them. */
static bool host_data_ports(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_host *h)
{
	static const char what[] = "a port range LOW-HIGH such as 7600-7699";
	unsigned lo, hi;
	char tail;
	if (!nb_cfg_scalar(c, v, what))
		return false;
	if (sscanf(v->str, "%5u-%5u%c", &lo, &hi, &tail) != 2 || lo < 1 || hi > 65535 || lo > hi ||
	    strspn(v->str, "0123456789-") != strlen(v->str))
		return nb_yerror(c->err, v, "bad data_ports '%s' (expected %s)", v->str, what);
	h->data_lo = (uint16_t)lo;
	h->data_hi = (uint16_t)hi;
	return true;
}

/* One key of a host entry (keys already checked against host_keys). */
static bool host_key(struct nb_cfg_ctx *c, const char *key, const struct nb_ynode *v,
		     struct nb_host *h)
{
	uint64_t port;
	if (strcmp(key, "address") == 0)
		return word(c, v, HOST_CHARS, sizeof(h->address),
			    "a host name or IP address (the port is port:)", h->address);
	if (strcmp(key, "ssh") == 0)
		return host_ssh(c, v, h);
	if (strcmp(key, "nbrun") == 0)
		return word(c, v, PATH_CHARS, sizeof(h->nbrun), "the remote nbrun's path: letters, "
			    "digits and . _ - / + ~", h->nbrun);
	if (strcmp(key, "secret_file") == 0) {
		if (!nb_cfg_scalar(c, v, "a file name"))
			return false;
		snprintf(h->secret_file, sizeof(h->secret_file), "%s", v->str);
		return true;
	}
	if (strcmp(key, "data_ports") == 0)
		return host_data_ports(c, v, h);
	if (!nb_cfg_uint(c, v, 1, 65535, &port))
		return false;
	h->port = (uint16_t)port;
	return true;
}

/* The checks across an entry's keys: reachable somehow, and no key its kind does not use. */
static bool host_check(struct nb_cfg_ctx *c, const struct nb_ynode *map, const struct nb_host *h)
{
	static const char *const ssh_only[] = { "nbrun", "data_ports" };
	if (!h->ssh[0] && !h->address[0])
		return nb_yerror(c->err, map, "host '%s' has neither ssh: nor address: (expected "
				 "ssh: USER@HOST to start its agent, or address: of a running one)",
				 h->name);
	for (size_t i = 0; i < N(ssh_only); i++)
		if (!h->ssh[0] && nb_ymap_key(map, ssh_only[i]))
			return nb_yerror(c->err, nb_ymap_key(map, ssh_only[i]), "'%s' applies only to "
					 "a host with ssh: (expected ssh: USER@HOST)", ssh_only[i]);
	if (h->ssh[0] && nb_ymap_key(map, "port"))
		return nb_yerror(c->err, nb_ymap_key(map, "port"), "'port' does not apply to a host "
				 "with ssh: (its agent talks over the ssh connection and opens no "
				 "control port; to use a running agent's port, give address: alone)");
	if (h->ssh[0] && nb_ymap_key(map, "secret_file"))
		return nb_yerror(c->err, nb_ymap_key(map, "secret_file"), "'secret_file' does not "
				 "apply to a host with ssh: (its agent gets a fresh secret each batch)");
	return true;
}

/* The entry's name: not local, and a name like a test's. */
static bool host_name(struct nb_cfg_ctx *c, const struct nb_ynode *key, struct nb_host *h)
{
	snprintf(h->name, sizeof(h->name), "%s", key->str);
	if (strcmp(key->str, NB_HOST_LOCAL) == 0)
		return nb_yerror(c->err, key, "'local' is reserved: it is the runner itself (expected "
				 "another name)");
	if (!key->str[0] || strlen(key->str) >= sizeof(h->name) ||
	    strspn(key->str, NAME_CHARS) != strlen(key->str))
		return nb_yerror(c->err, key, "bad host name '%s' (expected letters, digits, '.', '_' "
				 "or '-', at most %zu characters)", key->str, sizeof(h->name) - 1);
	return true;
}

static bool known_key(const char *k)
{
	for (size_t j = 0; j < N(host_keys); j++)
		if (strcmp(k, host_keys[j]) == 0)
			return true;
	return false;
}

/* One entry NAME: { ... }; its errors noted. ssh comes first so address: may override it. */
static void load_host(struct nb_cfg_ctx *c, const struct nb_ynode *key, const struct nb_ynode *v,
		      struct nb_host *h)
{
	*h = (struct nb_host){ .line = key->line, .col = key->col };
	if (!host_name(c, key, h))
		nb_cfg_note(c);
	if (v->kind != NB_Y_MAP) {
		nb_yerror(c->err, v, "expected a mapping such as { ssh: USER@HOST } for host '%s', "
			  "got %s", h->name, nb_ynode_kind_name(v));
		nb_cfg_note(c);
		return;
	}
	if (!nb_cfg_check_keys(c, v, host_keys, N(host_keys), "a host"))
		nb_cfg_note(c);
	bool ok = true;
	const struct nb_ynode *s = nb_ymap_get(v, "ssh");
	if (s && !host_ssh(c, s, h))
		ok = nb_cfg_note(c);
	for (size_t i = 0; i < v->nkids; i += 2) {
		const char *k = v->kids[i]->str;
		if (known_key(k) && strcmp(k, "ssh") != 0 && !host_key(c, k, v->kids[i + 1], h))
			ok = nb_cfg_note(c);
	}
	if (ok && !host_check(c, v, h))
		nb_cfg_note(c);
}

bool nb_cfg_load_hosts(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_config *cfg)
{
	if (v->kind != NB_Y_MAP)
		return nb_yerror(c->err, v, "expected a mapping of host names such as "
				 "{ vm1: { ssh: USER@HOST } }, got %s", nb_ynode_kind_name(v)) ||
		       nb_cfg_note(c);
	size_t n = v->nkids / 2;
	if (n > NB_HOSTS_MAX)
		return nb_yerror(c->err, v, "%zu hosts (expected at most %d)", n, NB_HOSTS_MAX) ||
		       nb_cfg_note(c);
	cfg->hosts = calloc(n ? n : 1, sizeof(*cfg->hosts));
	if (!cfg->hosts)
		return nb_error_set(c->err, "out of memory") || nb_cfg_note(c);
	size_t before = c->errs->n + c->errs->more;
	for (size_t i = 0; i < n; i++)
		load_host(c, v->kids[2 * i], v->kids[2 * i + 1], &cfg->hosts[cfg->nhosts++]);
	return c->errs->n + c->errs->more == before;
}

/* --- paths ------------------------------------------------------------------------------ */

/* A host name of a path: in hosts: (or local, where local_ok). */
static bool path_end(struct nb_cfg_ctx *c, const struct nb_ynode *v, bool local_ok, char *out)
{
	const char *names[NB_HOSTS_MAX + 1];
	size_t n = 0;
	if (!nb_cfg_scalar(c, v, "a host name of hosts:"))
		return false;
	bool found = local_ok && strcmp(v->str, NB_HOST_LOCAL) == 0;
	for (size_t i = 0; i < c->nhosts && n < NB_HOSTS_MAX; i++) {
		names[n++] = c->hosts[i].name;
		found |= strcmp(v->str, c->hosts[i].name) == 0;
	}
	if (found) {
		snprintf(out, NB_HOST_NAME_MAX, "%s", v->str);
		return true;
	}
	if (strcmp(v->str, NB_HOST_LOCAL) == 0)
		return nb_yerror(c->err, v, "a path cannot go to local (expected a host of hosts:; "
				 "direction: reverse makes a host send to the runner)");
	if (local_ok)
		names[n++] = NB_HOST_LOCAL;
	const char *near = nb_cfg_suggest(v->str, names, n);
	char list[256];
	nb_cfg_join_or(names, n, list, sizeof(list));
	if (near)
		return nb_yerror(c->err, v, "unknown host '%s' (did you mean '%s'?)", v->str, near);
	return nb_yerror(c->err, v, "unknown host '%s' (expected %s)", v->str,
			 c->nhosts ? list : "a host named under hosts:, which this file has none of");
}

static bool one_path(struct nb_cfg_ctx *c, const struct nb_ynode *it, struct nb_path *p)
{
	if (it->kind != NB_Y_MAP)
		return nb_yerror(c->err, it, "expected a path such as { from: local, to: vm1 }, got %s",
				 nb_ynode_kind_name(it));
	if (!nb_cfg_check_keys(c, it, path_keys, N(path_keys), "a path"))
		return false;
	const struct nb_ynode *from = nb_ymap_get(it, "from"), *to = nb_ymap_get(it, "to");
	if (!to)
		return nb_yerror(c->err, it, "path without to: (expected { from: local, to: vm1 })");
	snprintf(p->from, sizeof(p->from), NB_HOST_LOCAL);
	if ((from && !path_end(c, from, true, p->from)) || !path_end(c, to, false, p->to))
		return false;
	if (strcmp(p->from, p->to) == 0)
		return nb_yerror(c->err, it, "path from '%s' to itself (expected two different hosts)",
				 p->to);
	return true;
}

bool nb_cfg_apply_paths(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	if (v->kind != NB_Y_SEQ || v->nkids == 0)
		return nb_yerror(c->err, v, "expected a non-empty list of paths such as "
				 "[{ from: local, to: vm1 }], got %s", v->kind == NB_Y_SEQ
				 ? "an empty list" : nb_ynode_kind_name(v));
	if (v->nkids > NB_PATHS_MAX)
		return nb_yerror(c->err, v, "%zu paths (expected at most %d)", v->nkids, NB_PATHS_MAX);
	struct nb_path paths[NB_PATHS_MAX];
	for (size_t i = 0; i < v->nkids; i++) {
		if (!one_path(c, v->kids[i], &paths[i]))
			return false;
		for (size_t j = 0; j < i; j++)
			if (strcmp(paths[i].from, paths[j].from) == 0 && strcmp(paths[i].to, paths[j].to) == 0)
				return nb_yerror(c->err, v->kids[i], "path %s->%s is listed twice (expected "
						 "each path once; streams: sets flows per path)",
						 paths[i].from, paths[i].to);
	}
	memcpy(t->paths, paths, v->nkids * sizeof(paths[0]));
	t->npaths = (uint32_t)v->nkids;
	return true;
}
