/* The YAML node tree: libyaml events folded recursively, with a depth limit so
 * a hostile file cannot exhaust the stack. */
#include "config_yaml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 32

struct yp {
	yaml_parser_t parser;
	const struct nb_ysrc *src;
	struct nb_error *err;
};

bool nb_yerror(struct nb_error *err, const struct nb_ynode *at, const char *fmt, ...)
{
	if (!err)
		return false;
	char what[224];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (at->src->set_key)
		nb_error_set(err, "--set %s: %s", at->src->set_key, what);
	else
		nb_error_set(err, "%s:%u:%u: %s", at->src->file, at->line, at->col, what);
	return false;
}

/* An error at a libyaml mark (0-based). */
static bool mark_error(struct yp *p, yaml_mark_t mark, const char *what, const char *detail)
{
	struct nb_ynode at = { .line = (uint32_t)mark.line + 1, .col = (uint32_t)mark.column + 1,
			       .src = p->src };
	return nb_yerror(p->err, &at, "%s%s", what, detail ? detail : "");
}

static bool next_event(struct yp *p, yaml_event_t *ev)
{
	if (yaml_parser_parse(&p->parser, ev))
		return true;
	const yaml_parser_t *y = &p->parser;
	char detail[160];
	if (y->error == YAML_READER_ERROR) {
		snprintf(detail, sizeof(detail), "%s at byte %zu (expected UTF-8 text)",
			 y->problem ? y->problem : "unreadable input", y->problem_offset);
		return mark_error(p, y->problem_mark, "invalid text: ", detail);
	}
	snprintf(detail, sizeof(detail), "%s%s%s", y->problem ? y->problem : "unknown problem",
		 y->context ? " " : "", y->context ? y->context : "");
	return mark_error(p, y->problem_mark, "YAML syntax error: ", detail);
}

static struct nb_ynode *new_node(struct yp *p, enum nb_ykind kind, const yaml_event_t *ev)
{
	struct nb_ynode *n = calloc(1, sizeof(*n));
	if (!n) {
		nb_error_set(p->err, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->line = (uint32_t)ev->start_mark.line + 1;
	n->col = (uint32_t)ev->start_mark.column + 1;
	n->src = p->src;
	return n;
}

static bool add_kid(struct yp *p, struct nb_ynode *parent, struct nb_ynode *kid)
{
	struct nb_ynode **k = realloc(parent->kids, (parent->nkids + 1) * sizeof(*k));
	if (!k) {
		nb_ynode_free(kid);
		return nb_error_set(p->err, "out of memory");
	}
	parent->kids = k;
	parent->kids[parent->nkids++] = kid;
	return true;
}

static struct nb_ynode *parse_node(struct yp *p, yaml_event_t *ev, int depth);

static struct nb_ynode *parse_scalar(struct yp *p, const yaml_event_t *ev)
{
	struct nb_ynode *n = new_node(p, NB_Y_SCALAR, ev);
	if (!n)
		return NULL;
	n->str = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	if (!n->str) {
		nb_error_set(p->err, "out of memory");
		nb_ynode_free(n);
		return NULL;
	}
	return n;
}

/* Reads children until the closing event; a mapping checks its keys as they come. */
static bool parse_children(struct yp *p, struct nb_ynode *n, yaml_event_type_t end, int depth)
{
	for (;;) {
		yaml_event_t ev;
		if (!next_event(p, &ev))
			return false;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return true;
		}
		bool is_key = n->kind == NB_Y_MAP && n->nkids % 2 == 0;
		struct nb_ynode *kid = parse_node(p, &ev, depth + 1);
		yaml_event_delete(&ev);
		if (!kid)
			return false;
		if (is_key && kid->kind != NB_Y_SCALAR) {
			nb_yerror(p->err, kid, "a key must be a plain word, got %s", nb_ynode_kind_name(kid));
			nb_ynode_free(kid);
			return false;
		}
		const struct nb_ynode *prev = is_key ? nb_ymap_key(n, kid->str) : NULL;
		if (prev) {
			nb_yerror(p->err, kid, "duplicate key '%s' (first at line %u, column %u)",
				  kid->str, prev->line, prev->col);
			nb_ynode_free(kid);
			return false;
		}
		if (!add_kid(p, n, kid))
			return false;
	}
}

static struct nb_ynode *parse_collection(struct yp *p, const yaml_event_t *ev, int depth)
{
	bool map = ev->type == YAML_MAPPING_START_EVENT;
	struct nb_ynode *n = new_node(p, map ? NB_Y_MAP : NB_Y_SEQ, ev);
	if (!n)
		return NULL;
	if (depth > MAX_DEPTH) {
		nb_yerror(p->err, n, "nested too deeply (expected at most %d levels)", MAX_DEPTH);
		nb_ynode_free(n);
		return NULL;
	}
	if (!parse_children(p, n, map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT, depth)) {
		nb_ynode_free(n);
		return NULL;
	}
	return n;
}

static struct nb_ynode *parse_node(struct yp *p, yaml_event_t *ev, int depth)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return parse_scalar(p, ev);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return parse_collection(p, ev, depth);
	case YAML_ALIAS_EVENT:
		mark_error(p, ev->start_mark, "aliases are not supported",
			   " (expected the value written out)");
		return NULL;
	default:
		mark_error(p, ev->start_mark, "unexpected YAML event", NULL);
		return NULL;
	}
}

/* Expects `type` next; anything else is a syntax error there. */
static bool expect(struct yp *p, yaml_event_type_t type, yaml_event_t *ev)
{
	if (!next_event(p, ev))
		return false;
	if (ev->type == type)
		return true;
	mark_error(p, ev->start_mark, "unexpected YAML content", NULL);
	yaml_event_delete(ev);
	return false;
}

/* STREAM-START (DOCUMENT-START node DOCUMENT-END)? STREAM-END */
static bool parse_stream(struct yp *p, struct nb_ynode **root)
{
	yaml_event_t ev;
	if (!expect(p, YAML_STREAM_START_EVENT, &ev))
		return false;
	yaml_event_delete(&ev);
	if (!next_event(p, &ev))
		return false;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return true;
	}
	yaml_event_delete(&ev); /* DOCUMENT-START */
	if (!next_event(p, &ev))
		return false;
	*root = parse_node(p, &ev, 0);
	yaml_event_delete(&ev);
	if (!*root || !expect(p, YAML_DOCUMENT_END_EVENT, &ev))
		return false;
	yaml_event_delete(&ev);
	if (!next_event(p, &ev))
		return false;
	bool more = ev.type != YAML_STREAM_END_EVENT;
	if (more)
		mark_error(p, ev.start_mark, "a second YAML document", " (expected one document)");
	yaml_event_delete(&ev);
	return !more;
}

bool nb_yaml_parse(const char *text, size_t len, const struct nb_ysrc *src,
		   struct nb_ynode **root, struct nb_error *err)
{
	struct yp p = { .src = src, .err = err };
	*root = NULL;
	if (!yaml_parser_initialize(&p.parser))
		return nb_error_set(err, "out of memory");
	yaml_parser_set_input_string(&p.parser, (const unsigned char *)text, len);
	bool ok = parse_stream(&p, root);
	yaml_parser_delete(&p.parser);
	if (!ok) {
		nb_ynode_free(*root);
		*root = NULL;
	}
	return ok;
}

void nb_ynode_free(struct nb_ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		nb_ynode_free(n->kids[i]);
	free(n->kids);
	free(n->str);
	free(n);
}

const struct nb_ynode *nb_ymap_key(const struct nb_ynode *map, const char *key)
{
	if (!map || map->kind != NB_Y_MAP)
		return NULL;
	for (size_t i = 0; i < map->nkids; i += 2)
		if (strcmp(map->kids[i]->str, key) == 0)
			return map->kids[i];
	return NULL;
}

const struct nb_ynode *nb_ymap_get(const struct nb_ynode *map, const char *key)
{
	if (!map || map->kind != NB_Y_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->nkids; i += 2)
		if (strcmp(map->kids[i]->str, key) == 0)
			return map->kids[i + 1];
	return NULL;
}

bool nb_ynode_is_null(const struct nb_ynode *n)
{
	if (!n || n->kind != NB_Y_SCALAR || !n->plain)
		return false;
	return !*n->str || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
	       strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0;
}

const char *nb_ynode_kind_name(const struct nb_ynode *n)
{
	switch (n->kind) {
	case NB_Y_SEQ:
		return "a list";
	case NB_Y_MAP:
		return "a mapping";
	default:
		return nb_ynode_is_null(n) ? "no value" : "a value";
	}
}
