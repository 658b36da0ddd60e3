/* nbrun — the user's labels (config `labels:` and `--label key=value`): a key follows the
 * Prometheus label-name rules ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__") and is none of
 * the names nbrun's own exports use, so every label survives every export unrenamed; a value is
 * any UTF-8 text without control characters. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_int.h"
#include "config_yaml.h"
#include "nb_error.h"

/* The label names the exports set themselves (export_prom.c and the docs list the same). */
static const char *const reserved[] = {
	"case_id", "test", "engine", "protocol", "size", "streams", "direction", "statistic",
	"quantile", "job", "instance", "le", NULL,
};

bool nb_config_label_reserved(const char *key)
{
	for (const char *const *r = reserved; *r; r++)
		if (strcmp(*r, key) == 0)
			return true;
	return false;
}

static bool key_ok(const char *k)
{
	if (!*k || strlen(k) >= NB_LABEL_KEY_MAX || (k[0] >= '0' && k[0] <= '9'))
		return false;
	for (const char *p = k; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* Length of the UTF-8 sequence at s (1..4), 0 when it is not one or is a control character. */
static size_t utf8_char(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	if (s[0] < 0x80)
		return 1;
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (n == 0 || (s[0] >= 0xf0 && n != 4))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) /* C1 control characters */
		return 0;
	return n;
}

static bool value_ok(const char *v)
{
	if (strlen(v) >= NB_LABEL_VALUE_MAX)
		return false;
	for (const unsigned char *p = (const unsigned char *)v; *p;) {
		size_t n = utf8_char(p);
		if (n == 0)
			return false;
		p += n;
	}
	return true;
}

bool nb_config_label_check(const char *key, const char *value, struct nb_error *err)
{
	if (!key_ok(key) || strncmp(key, "__", 2) == 0)
		return nb_error_set(err, "label '%.64s': expected a name of letters, digits and _ not "
				    "starting with a digit or __ (at most %d characters)", key,
				    NB_LABEL_KEY_MAX - 1);
	if (nb_config_label_reserved(key))
		return nb_error_set(err, "label '%s': nbrun's exports set this name themselves "
				    "(choose another, e.g. my_%s)", key, key);
	if (!value_ok(value))
		return nb_error_set(err, "label %s: expected UTF-8 text without control characters, "
				    "at most %d bytes", key, NB_LABEL_VALUE_MAX - 1);
	return true;
}

bool nb_config_label_set(struct nb_label *labels, size_t *n, const char *key, const char *value,
			 struct nb_error *err)
{
	if (!nb_config_label_check(key, value, err))
		return false;
	size_t i = 0;
	while (i < *n && strcmp(labels[i].key, key) != 0)
		i++;
	if (i == NB_LABELS_MAX)
		return nb_error_set(err, "label %s: too many labels (at most %d)", key, NB_LABELS_MAX);
	snprintf(labels[i].key, sizeof(labels[i].key), "%s", key);
	snprintf(labels[i].value, sizeof(labels[i].value), "%s", value);
	*n += i == *n;
	return true;
}

bool nb_config_label_arg(struct nb_label *labels, size_t *n, const char *arg, struct nb_error *err)
{
	const char *eq = strchr(arg, '=');
	char key[NB_LABEL_KEY_MAX + 1];
	if (!eq || eq == arg || (size_t)(eq - arg) > NB_LABEL_KEY_MAX)
		return nb_error_set(err, "--label '%.64s': expected KEY=VALUE, e.g. --label region=eu-west-1",
				    arg);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
	return nb_config_label_set(labels, n, key, eq + 1, err);
}

/* `labels:` at the top level: a mapping of names to values; each bad entry is noted. */
bool nb_cfg_load_labels(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_config *cfg)
{
	if (v->kind != NB_Y_MAP)
		return nb_yerror(c->err, v, "labels: expected a mapping of names to values "
				 "(region: eu-west-1), got %s", nb_ynode_kind_name(v)) || nb_cfg_note(c);
	bool ok = true;
	struct nb_error why = { { 0 } };
	for (size_t i = 0; i + 1 < v->nkids; i += 2) {
		const struct nb_ynode *k = v->kids[i], *val = v->kids[i + 1];
		if (val->kind != NB_Y_SCALAR)
			ok = (nb_yerror(c->err, val, "label %s: expected a value, got %s", k->str,
					nb_ynode_kind_name(val)), nb_cfg_note(c));
		else if (!nb_config_label_set(cfg->labels, &cfg->nlabels, k->str, val->str, &why))
			ok = (nb_yerror(c->err, k, "%s", why.msg), nb_cfg_note(c));
	}
	return ok;
}
