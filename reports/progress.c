#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct nb_progress {
	FILE *out;
	bool live;
	size_t total, done;
	double est_s, t0;
	size_t case_no, ncases;
	uint32_t rep, reps;
	char case_id[160];
	char last[64];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void hms(double s, char *buf, size_t len)
{
	if (!isfinite(s) || s < 0) {
		snprintf(buf, len, "--:--");
		return;
	}
	unsigned long t = (unsigned long)(s + 0.5);
	int n = t >= 3600 ? snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60)
			  : snprintf(buf, len, "%02lu:%02lu", t / 60, t % 60);
	(void)n;
}

struct nb_progress *nb_progress_begin(FILE *out, size_t total_runs, double est_s)
{
	struct nb_progress *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->out = out;
	p->live = isatty(fileno(out));
	p->total = total_runs;
	p->est_s = est_s;
	p->t0 = now_s();
	return p;
}

void nb_progress_set_live(struct nb_progress *p, bool live)
{
	if (p)
		p->live = live;
}

/* Remaining time: the plan's estimate until a run has finished, then the pace so far. */
static double eta(const struct nb_progress *p, double elapsed)
{
	if (p->done == 0)
		return p->est_s > 0 ? p->est_s - elapsed : NAN;
	return elapsed / (double)p->done * (double)(p->total - (p->done < p->total ? p->done : p->total));
}

static int columns(const struct nb_progress *p)
{
	struct winsize ws;
	if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 80;
}

static void draw(struct nb_progress *p)
{
	double el = now_s() - p->t0;
	char e[32], r[32], bar[24];
	hms(el, e, sizeof(e));
	hms(eta(p, el), r, sizeof(r));
	size_t w = sizeof(bar) - 1, fill = p->total ? p->done * w / p->total : 0;
	for (size_t i = 0; i < w; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[w] = '\0';
	char line[512];
	int n = snprintf(line, sizeof(line), "[%s] %zu/%zu  case %zu/%zu rep %u/%u  %s  %s / ETA %s  %s",
			 bar, p->done, p->total, p->case_no, p->ncases, (unsigned)p->rep, (unsigned)p->reps,
			 p->last[0] ? p->last : "-", e, r, p->case_id);
	int cols = columns(p) - 1;
	if (n > cols && cols > 0)
		line[cols] = '\0';
	fprintf(p->out, "\r\033[K%s", line);
	fflush(p->out);
}

void nb_progress_run_start(struct nb_progress *p, size_t case_no, size_t ncases, const char *case_id,
			   uint32_t rep, uint32_t reps)
{
	if (!p)
		return;
	p->case_no = case_no;
	p->ncases = ncases;
	p->rep = rep;
	p->reps = reps;
	snprintf(p->case_id, sizeof(p->case_id), "%s", case_id ? case_id : "");
	if (p->live)
		draw(p);
}

void nb_progress_extend(struct nb_progress *p, size_t n)
{
	if (p)
		p->total += n;
}

void nb_progress_tick(struct nb_progress *p)
{
	if (p && p->live)
		draw(p);
}

/* A run's line: done says whether it counts as done (an interrupted run does not). */
static void run_line(struct nb_progress *p, const char *case_id, uint32_t rep, const char *value_text,
		     bool done)
{
	if (!p)
		return;
	p->done += done;
	if (p->done > p->total) /* never "6 of 4": a run nobody announced still counts */
		p->total = p->done;
	snprintf(p->last, sizeof(p->last), "%s", value_text ? value_text : "");
	if (p->live) {
		draw(p);
		return;
	}
	char e[32];
	hms(now_s() - p->t0, e, sizeof(e));
	fprintf(p->out, "[%zu/%zu %s] %s rep %u: %s\n", p->done, p->total, e, case_id ? case_id : "",
		(unsigned)rep, p->last);
	fflush(p->out);
}

void nb_progress_run_done(struct nb_progress *p, const char *case_id, uint32_t rep, const char *value_text)
{
	run_line(p, case_id, rep, value_text, true);
}

void nb_progress_run_stopped(struct nb_progress *p, const char *case_id, uint32_t rep,
			     const char *text)
{
	run_line(p, case_id, rep, text, false);
}

void nb_progress_message(struct nb_progress *p, const char *text)
{
	if (!p)
		return;
	if (p->live)
		fprintf(p->out, "\r\033[K");
	fprintf(p->out, "%s\n", text);
	if (p->live)
		draw(p);
	else
		fflush(p->out);
}

void nb_progress_end(struct nb_progress *p)
{
	if (!p)
		return;
	char e[32];
	hms(now_s() - p->t0, e, sizeof(e));
	if (p->live)
		fprintf(p->out, "\r\033[K");
	fprintf(p->out, "%zu of %zu run%s done in %s\n", p->done, p->total, p->total == 1 ? "" : "s", e);
	fflush(p->out);
	free(p);
}
