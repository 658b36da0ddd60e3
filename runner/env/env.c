/* nbrun — collecting the facts of this host, and printing them beside the peer's. */
#include "env.h"

#include "flowloop.h"
#include "env_read.h"

#include <arpa/inet.h>
#include <string.h>

#include "ifstats.h"
#include "nb_config.h"

bool nb_env_collect_iface(const char *root, const char *ifname, struct nb_facts *out)
{
	return nb_env_host(root, out) && nb_env_cpu(root, out) && nb_env_iface(root, ifname, out) &&
	       nb_env_tcp(root, out);
}

/* The route facts, then the interface's; a failed lookup leaves the reason on iface.name. The
 * lookup is the one whose interface the run reads counters from (nb_ifstats_route): for a
 * peer that is one of our own addresses, the loopback interface. */
static bool route_iface(const char *root, const struct sockaddr *peer, socklen_t peer_len,
			struct nb_facts *out)
{
	struct nb_ifstats_route r;
	struct nb_error err = { "" };
	if (!peer)
		return nb_facts_unknown(out, "iface", "path_mtu", "no peer (loopback)") &&
		       nb_env_iface(root, "lo", out);
	if (!nb_env_live(root))
		return nb_facts_unknown(out, "iface", "name", "route lookup " NB_ENV_FIXTURE);
	if (!nb_ifstats_route(peer, peer_len, &r, &err))
		return nb_facts_unknown(out, "iface", "name", "%s", err.msg);
	bool ok = nb_facts_set(out, "iface", "name", "%s", r.ifname) &&
		  nb_facts_set(out, "iface", "local_addr", "%s", r.local);
	ok = ok && (r.path_mtu > 0 ? nb_facts_set(out, "iface", "path_mtu", "%d", r.path_mtu)
				   : nb_facts_unknown(out, "iface", "path_mtu", "IP_MTU not reported"));
	return ok && nb_env_iface(root, r.ifname, out);
}

bool nb_env_collect(const char *root, const struct sockaddr *peer, socklen_t peer_len,
		    struct nb_facts *out)
{
	return nb_env_host(root, out) && nb_env_cpu(root, out) &&
	       route_iface(root, peer, peer_len, out) && nb_env_tcp(root, out);
}

bool nb_env_add_nbrun(struct nb_facts *out, const char *placement, const char *engine_cpus)
{
	bool ok = nb_facts_set(out, "nbrun", "version", "%s", NB_VERSION) &&
		  nb_facts_set(out, "nbrun", "build", "%s", NB_STATIC_BUILD ? "static" : "dynamic");
	ok = ok && (placement ? nb_facts_set(out, "nbrun", "placement", "%s", placement)
			      : nb_facts_unknown(out, "nbrun", "placement", "not known before a run"));
	ok = ok && (engine_cpus ? nb_facts_set(out, "nbrun", "engine_cpus", "%s", engine_cpus)
				: nb_facts_unknown(out, "nbrun", "engine_cpus", "not known before a run"));
	/* `threads: 0` here: min(flows, this) flow threads (flowloop.h), from this process's CPUs */
	struct nb_params unpinned = { 0 };
	return ok && nb_facts_set(out, "nbrun", "flow_threads", "%u", nb_flow_cpus(&unpinned));
}

/* ---- printing ------------------------------------------------------------------ */

static const char *shown(const struct nb_fact *f, char *buf, size_t len)
{
	if (!f)
		return "-";
	if (f->ok)
		return f->value;
	snprintf(buf, len, "? (%s)", f->value);
	return buf;
}

static int key_width(const struct nb_facts *a, const struct nb_facts *b)
{
	size_t w = 4;
	for (size_t i = 0; a && i < a->n; i++)
		w = strlen(a->v[i].key) > w ? strlen(a->v[i].key) : w;
	for (size_t i = 0; b && i < b->n; i++)
		w = strlen(b->v[i].key) > w ? strlen(b->v[i].key) : w;
	return (int)w;
}

static bool group_seen(const struct nb_facts *f, size_t upto, const char *group)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(f->v[i].group, group))
			return true;
	return false;
}

/* One group's rows: local order first, then facts only the peer has. */
static void print_group(const struct nb_facts *l, const struct nb_facts *p, const char *group,
			int kw, FILE *out)
{
	char a[300], b[300];
	fprintf(out, "%s\n", group);
	for (int pass = 0; pass < 2; pass++) {
		const struct nb_facts *f = pass ? p : l;
		for (size_t i = 0; f && i < f->n; i++) {
			const struct nb_fact *x = &f->v[i];
			if (strcmp(x->group, group) || (pass && nb_facts_get(l, group, x->key)))
				continue;
			const struct nb_fact *lf = pass ? NULL : x;
			const struct nb_fact *pf = pass ? x : nb_facts_get(p, group, x->key);
			if (!p) {
				fprintf(out, "  %-*s  %s\n", kw, x->key, shown(lf, a, sizeof(a)));
				continue;
			}
			bool differs = nb_facts_comparable(group, x->key) && !nb_facts_same(lf, pf);
			fprintf(out, "  %-*s  %-32s  %-32s%s\n", kw, x->key, shown(lf, a, sizeof(a)),
				shown(pf, b, sizeof(b)), differs ? "  <- differs" : "");
		}
	}
}

void nb_env_print(const struct nb_facts *local, const struct nb_facts *peer, FILE *out)
{
	int kw = key_width(local, peer);
	if (peer)
		fprintf(out, "  %-*s  %-32s  %-32s\n", kw, "", "local", "peer");
	for (size_t i = 0; i < local->n; i++)
		if (!group_seen(local, i, local->v[i].group))
			print_group(local, peer, local->v[i].group, kw, out);
	for (size_t i = 0; peer && i < peer->n; i++)
		if (!group_seen(peer, i, peer->v[i].group) && !group_seen(local, local->n, peer->v[i].group))
			print_group(local, peer, peer->v[i].group, kw, out);
}

struct diff_ctx {
	FILE *out;
	int kw;
};

static void diff_row(void *ctx, const struct nb_fact *l, const struct nb_fact *p)
{
	struct diff_ctx *d = ctx;
	char a[300], b[300], k[80];
	const struct nb_fact *x = l ? l : p;
	snprintf(k, sizeof(k), "%s.%s", x->group, x->key);
	fprintf(d->out, "  %-*s  %-32s  %s\n", d->kw, k, shown(l, a, sizeof(a)), shown(p, b, sizeof(b)));
}

size_t nb_env_diff(const struct nb_facts *local, const struct nb_facts *peer, FILE *out)
{
	struct diff_ctx d = { out, key_width(local, peer) + 8 };
	if (!peer)
		return 0;
	fprintf(out, "  %-*s  %-32s  %s\n", d.kw, "differs", "local", "peer");
	return nb_facts_diff(local, peer, diff_row, &d);
}
