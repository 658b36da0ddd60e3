/* nbrun — the live view (see live.h). */
#include "live.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cols.h"
#include "fmt.h"
#include "metrics.h"

#define LIVE_MAX_COLS 8
#define CELL_W 14

struct nb_live {
	struct nb_progress *p;
	FILE *out;
	uint32_t run_id;          /* the run whose header was printed (0: none yet) */
	bool have_run;
	enum nb_col cols[LIVE_MAX_COLS];
	size_t ncols;
};

/* The short names of the columns the view may show (iperf3's where it has one). */
static const char *label(enum nb_col c)
{
	switch (c) {
	case NB_COL_RX_BYTES: return "Transfer";
	case NB_COL_RX_BPS: return "Bitrate";
	case NB_COL_RX_PPS: return "Packets/s";
	case NB_COL_TRANS_PER_S: return "Trans/s";
	case NB_COL_LAT_P50_US: return "p50";
	case NB_COL_LAT_P99_US: return "p99";
	case NB_COL_LOST: return "Lost";
	case NB_COL_LOSS_PCT: return "Loss";
	case NB_COL_JITTER_US: return "Jitter";
	case NB_COL_RETRANS: return "Retr";
	default: return nb_cols[c].name;
	}
}

struct nb_live *nb_live_begin(struct nb_progress *p, FILE *out)
{
	struct nb_live *l = calloc(1, sizeof(*l));
	if (l) {
		l->p = p;
		l->out = out;
	}
	return l;
}

static void say(struct nb_live *l, const char *line)
{
	if (l->p) {
		nb_progress_message(l->p, line);
		return;
	}
	fprintf(l->out, "%s\n", line);
	fflush(l->out);
}

static void add(struct nb_live *l, enum nb_col c)
{
	for (size_t i = 0; i < l->ncols; i++)
		if (l->cols[i] == c)
			return;
	if (l->ncols < LIVE_MAX_COLS)
		l->cols[l->ncols++] = c;
}

/* The columns of a run of e, whose first row is m: what the engine is, then what its report
 * filled of loss, jitter and retransmits. */
static void choose(struct nb_live *l, const struct nb_engine *e, const struct nb_metrics *m)
{
	const struct nb_engine_traits *t = &e->traits;
	l->ncols = 0;
	if (t->directional)
		add(l, NB_COL_RX_BYTES);
	add(l, nb_metrics_headline(e));
	if (t->directional)
		add(l, NB_COL_RX_BPS);
	if (t->records_latency) {
		add(l, NB_COL_LAT_P50_US);
		add(l, NB_COL_LAT_P99_US);
		if (t->loop != NB_LOOP_OPEN && isfinite(m->v[NB_COL_TRANS_PER_S]))
			add(l, NB_COL_TRANS_PER_S);
	}
	static const enum nb_col filled[] = { NB_COL_LOST, NB_COL_LOSS_PCT, NB_COL_JITTER_US,
					      NB_COL_RETRANS };
	for (size_t i = 0; i < sizeof(filled) / sizeof(filled[0]); i++)
		if (isfinite(m->v[filled[i]]))
			add(l, filled[i]);
}

/* Append cell to text (used of n) padded to CELL_W characters (UTF-8: "µs" is one). */
static void put_cell(char *text, size_t n, size_t *used, const char *cell)
{
	size_t chars = 0;
	for (const char *p = cell; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	int w = snprintf(text + *used, n - *used, "  %s%*s", cell,
			 chars < CELL_W ? (int)(CELL_W - chars) : 0, "");
	*used += w > 0 && (size_t)w < n - *used ? (size_t)w : 0;
}

/* The line's text without its trailing blanks. */
static void say_trimmed(struct nb_live *l, char *text)
{
	size_t n = strlen(text);
	while (n && text[n - 1] == ' ')
		text[--n] = '\0';
	say(l, text);
}

/* The span, then each column's value (a count as an integer), then tail. */
static void line(struct nb_live *l, double t0, double t1, const struct nb_metrics *m,
		 const char *tail)
{
	char text[1024], span[64], cell[64];
	snprintf(span, sizeof(span), "%.2f-%.2f s", t0, t1);
	int w = snprintf(text, sizeof(text), "%17s", span);
	size_t used = w > 0 ? (size_t)w : 0;
	for (size_t i = 0; i < l->ncols; i++) {
		enum nb_col c = l->cols[i];
		if (!nb_cols[c].unit[0] && isfinite(m->v[c]))
			snprintf(cell, sizeof(cell), "%.0f", m->v[c]);
		else
			nb_fmt_value(m->v[c], nb_cols[c].unit, cell, sizeof(cell));
		put_cell(text, sizeof(text), &used, cell);
	}
	snprintf(text + used, sizeof(text) - used, "%s", tail);
	say_trimmed(l, text);
}

/* A new run: its header, with the columns chosen on its first row. */
static void header(struct nb_live *l, const struct nb_engine *e, uint32_t run_id,
		   const char *case_id, uint32_t rep, const struct nb_metrics *m)
{
	char text[1024];
	l->run_id = run_id;
	l->have_run = true;
	choose(l, e, m);
	snprintf(text, sizeof(text), "%s rep %u (run %u)", case_id ? case_id : "", (unsigned)rep,
		 (unsigned)run_id);
	say(l, text);
	int w = snprintf(text, sizeof(text), "%17s", "Interval");
	size_t used = w > 0 ? (size_t)w : 0;
	for (size_t i = 0; i < l->ncols; i++)
		put_cell(text, sizeof(text), &used, label(l->cols[i]));
	say_trimmed(l, text);
}

void nb_live_interval(struct nb_live *l, const struct nb_engine *e, const struct nb_interval *row)
{
	if (!l)
		return;
	if (!l->have_run || row->run_id != l->run_id)
		header(l, e, row->run_id, row->case_id, row->rep, &row->m);
	line(l, row->t_start, row->t_end, &row->m,
	     row->omitted ? "(omitted)" : row->cooldown ? "(cool-down)" : "");
}

void nb_live_run(struct nb_live *l, const struct nb_engine *e, const struct nb_run *row)
{
	if (!l)
		return;
	if (!l->have_run || row->run_id != l->run_id)
		header(l, e, row->run_id, row->case_id, row->rep, &row->m);
	char tail[1200];
	if (row->error && row->error[0])
		snprintf(tail, sizeof(tail), "%s: %s", row->status, row->error);
	else
		snprintf(tail, sizeof(tail), "%s", row->status);
	say(l, "  - - - - - - - - - - - - - - - - - - - - - - - - -");
	double d = row->m.v[NB_COL_DURATION_S];
	line(l, 0, isfinite(d) ? d : 0, &row->m, tail);
}

void nb_live_end(struct nb_live *l)
{
	free(l);
}
