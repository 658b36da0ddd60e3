/* nbrun — reaching the hosts of `hosts:` (see hosts_reach.h). */
#include "hosts_reach.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "sshlaunch.h"

#define SECRET_BYTES 32
#define AGENTS_MAX NB_PATHS_MAX  /* sessions, so agents, of one ssh host: one per path end */

/* One host of the config and what this batch made of it: an ssh host an agent per session
 * (each serves one), an address host its one session. */
struct reach_host {
	const struct nb_host *h;
	struct nb_ssh_agent agents[AGENTS_MAX]; /* the first nagents started (pid 0: ended) */
	size_t nagents;
	bool pushed;                    /* --push copied the binary there */
	bool opened;
};

struct nb_reach {
	struct nb_reach_opts o;
	struct reach_host *hosts;       /* one per cfg->hosts, in its order */
	size_t n;
};

struct nb_reach *nb_reach_create(const struct nb_reach_opts *o)
{
	struct nb_reach *r = calloc(1, sizeof(*r));
	size_t n = o->cfg->nhosts;
	if (!r || !(r->hosts = calloc(n ? n : 1, sizeof(*r->hosts)))) {
		free(r);
		return NULL;
	}
	r->o = *o;
	r->n = n;
	for (size_t i = 0; i < n; i++)
		r->hosts[i].h = &o->cfg->hosts[i];
	return r;
}

void nb_reach_destroy(struct nb_reach *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->hosts[i].nagents; k++)
			nb_ssh_stop(&r->hosts[i].agents[k]);
	free(r->hosts);
	free(r);
}

static struct reach_host *find(struct nb_reach *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->hosts[i].h->name, name) == 0)
			return &r->hosts[i];
	return NULL;
}

/* The remote binary: nbrun:, else nbrun on the remote PATH; pushed, a path (./nbrun in the
 * ssh user's home folder when nbrun: names no folder). */
static const char *remote_nbrun(const struct nb_host *h, bool push)
{
	const char *name = h->nbrun[0] ? h->nbrun : "nbrun";
	if (push && !strchr(name, '/'))
		return "./nbrun";
	return name;
}

/* Start an agent of h over ssh into ag with a fresh secret (s gets it); its control stream
 * is then ag->ctl. */
static bool start_ssh(struct nb_reach *r, struct reach_host *rh, struct nb_ssh_agent *ag,
		      struct nb_secret *s, struct nb_error *err)
{
	const struct nb_host *h = rh->h;
	unsigned char raw[SECRET_BYTES];
	char text[2 * SECRET_BYTES + 1];
	const char *bin = remote_nbrun(h, r->o.push);
	if (r->o.push && !rh->pushed && !nb_ssh_push(h->name, h->ssh, bin, err))
		return false;
	rh->pushed = r->o.push;
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(text, sizeof(text), raw, sizeof(raw));
	struct nb_ssh_launch l = { .host = h->name, .dest = h->ssh, .nbrun = bin,
				   .data_lo = h->data_lo, .data_hi = h->data_hi,
				   .secret_line = text, .interrupt = r->o.interrupt };
	bool ok = nb_secret_from_text(text, s, err) && nb_ssh_start(&l, ag, err);
	sodium_memzero(raw, sizeof(raw));
	sodium_memzero(text, sizeof(text));
	if (ok && r->o.verbosity >= 1)
		fprintf(stderr, "nbrun: host %s: agent started over ssh %s, data on %s\n", h->name,
			h->ssh, h->address);
	return ok;
}

/* An address host's secret: its secret_file:, else the batch's (--secret-file), else none. */
static bool address_secret(struct nb_reach *r, const struct nb_host *h, struct nb_secret *s,
			   struct nb_error *err)
{
	memset(s, 0, sizeof(*s));
	if (h->secret_file[0])
		return nb_secret_load(h->secret_file, s, err);
	if (r->o.secret)
		*s = *r->o.secret;
	return true;
}

/* h's agent at address: and port:, or (ctl >= 0) on the stream of its ssh (a copy of ctl
 * goes to c), its data at address:; c's peer name says which host it is. */
static bool open_client(const struct nb_host *h, int ctl, const struct nb_secret *s,
			const struct nb_client_wait *w, struct nb_client *c, struct nb_error *err)
{
	char hp[300], name[160];
	struct sockaddr_storage addr;
	socklen_t len;
	uint16_t port = h->port ? h->port : NB_DEFAULT_CONTROL_PORT;
	snprintf(hp, sizeof(hp), strchr(h->address, ':') ? "[%s]:%u" : "%s:%u", h->address, port);
	if (ctl >= 0)
		snprintf(name, sizeof(name), "%.60s (ssh %.90s)", h->name, h->ssh);
	else
		snprintf(name, sizeof(name), "%s (%.90s)", h->name, hp);
	if (!nb_ctl_resolve(hp, port, &addr, &len, err))
		return false;
	if (ctl < 0)
		return nb_client_open(c, name, &addr, len, s, w, err);
	int fd = fcntl(ctl, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "dup");
	if (!nb_client_open_fd(c, name, fd, &addr, len, s, w, err))
		return false;
	c->any_source = true; /* through a ProxyJump bastion, SSH_CONNECTION names the bastion */
	return true;
}

bool nb_reach_open(struct nb_reach *r, const char *name, struct nb_client *c, struct nb_error *err)
{
	struct reach_host *rh = find(r, name);
	struct nb_secret s;
	struct nb_error e = { { 0 } };
	if (!rh)
		return nb_error_set(err, "host %s: not in the config's hosts:", name);
	const struct nb_host *h = rh->h;
	if (!h->ssh[0] && rh->opened)
		return nb_error_set(err, "host %s: already reached by this batch (its agent serves "
				    "one session at a time)", name);
	if (h->ssh[0] && rh->nagents == AGENTS_MAX)
		return nb_error_set(err, "host %s: more than %d sessions in one batch", name, AGENTS_MAX);
	rh->opened = true;
	struct nb_ssh_agent *ag = h->ssh[0] ? &rh->agents[rh->nagents++] : NULL;
	bool ok = ag ? start_ssh(r, rh, ag, &s, &e) : address_secret(r, h, &s, &e);
	if (ok && !open_client(h, ag ? ag->ctl : -1, &s, r->o.wait, c, &e))
		ok = false;
	sodium_memzero(&s, sizeof(s));
	if (ok)
		return true;
	if (ag)
		nb_ssh_stop(ag);
	if (strncmp(e.msg, "host ", 5) == 0)
		return nb_error_set(err, "%s", e.msg);
	return nb_error_set(err, "host %s: %s", name, e.msg);
}

bool nb_reach_companion(struct nb_reach *r, const char *name, struct nb_client *holder,
			struct nb_client *c, struct nb_error *err)
{
	struct reach_host *rh = find(r, name);
	if (!rh)
		return nb_error_set(err, "host %s: not in the config's hosts:", name);
	if (rh->h->ssh[0]) { /* an agent of its own over ssh: it serves this session alone */
		bool opened = rh->opened;
		bool ok = nb_reach_open(r, name, c, err);
		rh->opened = opened;
		return ok;
	}
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
	struct nb_client_wait w = { .companion = ticket, .interrupt = r->o.interrupt };
	struct nb_secret s;
	struct nb_error e = { { 0 } };
	bool ok = nb_client_companion_ticket(holder, ticket, &e) && address_secret(r, rh->h, &s, &e) &&
		  open_client(rh->h, -1, &s, &w, c, &e);
	sodium_memzero(ticket, sizeof(ticket));
	sodium_memzero(&s, sizeof(s));
	return ok || nb_error_set(err, "host %s: %s", name, e.msg);
}

bool nb_reach_peer_name(const struct nb_config *cfg, const char *peer, struct nb_error *err)
{
	char host[256];
	uint16_t port;
	struct sockaddr_storage addr;
	socklen_t len;
	struct nb_error ignored = { { 0 } };
	if (nb_config_host(cfg, peer) ||
	    !nb_ctl_parse_peer(peer, NB_DEFAULT_CONTROL_PORT, host, sizeof(host), &port, &ignored))
		return true;
	const char *near = nb_config_host_near(cfg, host);
	if (!near || nb_ctl_resolve(peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, &ignored))
		return true;
	return nb_error_set(err, "unknown host '%s' (did you mean '%s'?)", host, near);
}

static size_t add_name(const char **names, size_t n, size_t max, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return n;
	if (n < max && strcmp(name, NB_HOST_LOCAL) != 0)
		names[n++] = name;
	return n;
}

size_t nb_reach_plan_hosts(const struct nb_config *cfg, const struct nb_plan *plan,
			   const char *peer, const char **names, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_test *t = plan->cases[i].test;
		for (uint32_t k = 0; k < t->npaths; k++) {
			n = add_name(names, n, max, t->paths[k].from);
			n = add_name(names, n, max, t->paths[k].to);
		}
	}
	if (peer && nb_config_host(cfg, peer))
		n = add_name(names, n, max, nb_config_host(cfg, peer)->name);
	return n;
}
