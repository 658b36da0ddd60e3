/* nbrun — compare: what differs between BASE and a NEW folder besides the numbers: the
 * environment of both ends (env.json), the config, the nbrun version that ran and the user's
 * labels (meta.json), and each case's resolved parameters (plan.csv). A difference declared with
 * --expect-diff is context (MTU 1500 vs 9000 may be the point of the comparison), not a
 * warning; a parameter difference nobody declared means the case is a different test. */
#include "compare_int.h"

#include <stdlib.h>
#include <string.h>

#include "facts.h"

bool nb_cmp_expected(const char *const *expect, size_t n, const char *where, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		const char *e = expect[i];
		size_t w = strlen(where);
		if (strcmp(e, key) == 0 ||
		    (w && strncmp(e, where, w) == 0 && e[w] == '.' && strcmp(e + w + 1, key) == 0))
			return true;
	}
	return false;
}

struct diff_ctx {
	const struct nb_compare *c;
	struct nb_cmp_side *side;
	const char *where;
	bool nomem;
};

static bool push_diff(struct diff_ctx *x, const char *key, const char *from, const char *to)
{
	struct nb_cmp_side *side = x->side;
	struct nb_cmp_diff *v = realloc(side->diff, (side->ndiff + 1) * sizeof(*v));
	if (!v) {
		x->nomem = true;
		return false;
	}
	side->diff = v;
	struct nb_cmp_diff *d = &v[side->ndiff++];
	snprintf(d->where, sizeof(d->where), "%s", x->where);
	snprintf(d->key, sizeof(d->key), "%s", key);
	snprintf(d->from, sizeof(d->from), "%s", from);
	snprintf(d->to, sizeof(d->to), "%s", to);
	d->expected = nb_cmp_expected(x->c->expect, x->c->nexpect, x->where, key);
	return true;
}

static const char *fact_text(const struct nb_fact *f, char *buf, size_t len)
{
	if (!f)
		snprintf(buf, len, "absent");
	else if (!f->ok)
		snprintf(buf, len, "unknown (%.150s)", f->value);
	else
		snprintf(buf, len, "%.190s", f->value);
	return buf;
}

static void put_fact(void *ctx, const struct nb_fact *b, const struct nb_fact *n)
{
	const struct nb_fact *any = b ? b : n;
	char key[80], vb[200], vn[200];
	snprintf(key, sizeof(key), "%s.%s", any->group, any->key);
	push_diff(ctx, key, fact_text(b, vb, sizeof(vb)), fact_text(n, vn, sizeof(vn)));
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static const char *label_of(const struct nb_meta *m, const char *key)
{
	for (size_t i = 0; i < m->nlabels; i++)
		if (strcmp(m->label_keys[i], key) == 0)
			return m->label_values[i];
	return NULL;
}

/* The user's labels (meta.json "labels") that differ, as "label.KEY": changed, only in
 * BASE, or only in NEW ("absent" on the other side). */
static bool diff_labels(struct diff_ctx *x, const struct nb_meta *b, const struct nb_meta *n)
{
	char key[80];
	for (size_t i = 0; i < b->nlabels; i++) {
		const char *to = label_of(n, b->label_keys[i]);
		snprintf(key, sizeof(key), "label.%.70s", b->label_keys[i]);
		if ((!to || strcmp(to, b->label_values[i]) != 0) &&
		    !push_diff(x, key, b->label_values[i], to ? to : "absent"))
			return false;
	}
	for (size_t i = 0; i < n->nlabels; i++) {
		snprintf(key, sizeof(key), "label.%.70s", n->label_keys[i]);
		if (!label_of(b, n->label_keys[i]) && !push_diff(x, key, "absent", n->label_values[i]))
			return false;
	}
	return true;
}

/* The config's sha256 (shortened) and the nbrun version of the run, from meta.json; the
 * version only when env.json did not already say it. */
static bool diff_meta(struct diff_ctx *x, const struct nb_meta *b, const struct nb_meta *n)
{
	x->where = "";
	const char *hb = or_unknown(b->config_sha256), *hn = or_unknown(n->config_sha256);
	if (strcmp(hb, hn) != 0) {
		char sb[16], sn[16];
		snprintf(sb, sizeof(sb), "%.12s", hb);
		snprintf(sn, sizeof(sn), "%.12s", hn);
		if (!push_diff(x, "config.sha256", sb, sn))
			return false;
	}
	for (size_t i = 0; i < x->side->ndiff; i++)
		if (strcmp(x->side->diff[i].key, "nbrun.version") == 0)
			return diff_labels(x, b, n);
	const char *vb = or_unknown(b->version), *vn = or_unknown(n->version);
	return (strcmp(vb, vn) == 0 || push_diff(x, "nbrun.version", vb, vn)) && diff_labels(x, b, n);
}

static const struct nb_facts *host_facts(const struct nb_env_hosts *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->names[i], name) == 0)
			return &h->facts[i];
	return NULL;
}

/* With two or more agent hosts on either side, each host's facts against the same-named host's
 * (where = its name; a host on one side only is a difference "host: absent → present"), in
 * place of path 0's host as "the peer". False (nothing done) with fewer hosts on both sides. */
static bool diff_hosts(struct diff_ctx *x, const struct nb_env_hosts *b, const struct nb_env_hosts *n)
{
	if (b->n < 2 && n->n < 2)
		return false;
	for (int side = 0; side < 2 && !x->nomem; side++) {
		const struct nb_env_hosts *h = side ? n : b, *other = side ? b : n;
		for (size_t i = 0; i < h->n && !x->nomem; i++) {
			const struct nb_facts *o = host_facts(other, h->names[i]);
			x->where = h->names[i];
			if (!o)
				push_diff(x, "host", side ? "absent" : "present", side ? "present" : "absent");
			else if (!side)
				nb_facts_diff(&h->facts[i], o, put_fact, x);
		}
	}
	return true;
}

bool nb_cmp_diff_sides(struct nb_compare *c)
{
	const struct nb_results *base = &c->sides[0].res;
	for (size_t s = 1; s < c->nsides; s++) {
		struct nb_cmp_side *side = &c->sides[s];
		struct diff_ctx x = { c, side, "local", false };
		if (base->have_env && side->res.have_env) {
			nb_facts_diff(&base->local, &side->res.local, put_fact, &x);
			x.where = "peer";
			if (!diff_hosts(&x, &base->hosts, &side->res.hosts) &&
			    (base->peer.n || side->res.peer.n))
				nb_facts_diff(&base->peer, &side->res.peer, put_fact, &x);
		}
		if (x.nomem || !diff_meta(&x, &base->meta, &side->res.meta))
			return false;
		for (size_t k = 0; k < side->ndiff; k++)
			c->n_env_diff += !side->diff[k].expected;
	}
	return true;
}

/* ---- plan.csv parameters ---- */

static size_t plan_row(const struct nb_csv_table *t, const char *case_id)
{
	int col = nb_csv_col(t, "case_id");
	for (size_t r = 0; col >= 0 && r < t->nrows; r++)
		if (strcmp(nb_csv_cell(t, r, col), case_id) == 0)
			return r;
	return (size_t)-1;
}

/* A different number of repetitions changes n, which the statistics account for: it is not
 * a different test. */
static bool ignored_column(const char *name)
{
	return strcmp(name, "case_id") == 0 || strcmp(name, "repetitions") == 0;
}

size_t nb_cmp_param_diff(const struct nb_csv_table *a, const struct nb_csv_table *b,
			 const char *case_id, const char *const *expect, size_t nexpect,
			 size_t *expected, char *buf, size_t len)
{
	size_t ra = plan_row(a, case_id), rb = plan_row(b, case_id), n = 0, used = 0;
	buf[0] = '\0';
	if (ra == (size_t)-1 || rb == (size_t)-1)
		return 0;
	for (size_t k = 0; k < a->ncols; k++) {
		int cb = nb_csv_col(b, a->hdr[k]);
		if (cb < 0 || ignored_column(a->hdr[k]))
			continue;
		const char *va = nb_csv_cell(a, ra, (int)k), *vb = nb_csv_cell(b, rb, cb);
		if (strcmp(va, vb) == 0)
			continue;
		n++;
		if (expected && nb_cmp_expected(expect, nexpect, "", a->hdr[k]))
			(*expected)++;
		if (used < len) {
			int w = snprintf(buf + used, len - used, "%s%s %s → %s", n > 1 ? ", " : "",
					 a->hdr[k], *va ? va : "(empty)", *vb ? vb : "(empty)");
			used += w > 0 ? (size_t)w : 0;
		}
	}
	return n;
}

bool nb_cmp_cell_params(const struct nb_compare *c, const struct nb_results *res,
			const char *case_id, struct nb_cmp_cell *cell)
{
	char buf[1024];
	size_t expected = 0, n = nb_cmp_param_diff(&c->sides[0].res.plan_t, &res->plan_t, case_id,
						   c->expect, c->nexpect, &expected, buf, sizeof(buf));
	if (n == 0)
		return true;
	cell->param_diff = strdup(buf);
	cell->params_expected = expected == n;
	if (!cell->params_expected && cell->verdict != NB_CMP_NODATA) {
		cell->verdict = NB_CMP_DIFFERENT;
		cell->reason = "parameters differ";
	}
	return cell->param_diff != NULL;
}
