/* nbrun — pitfalls: the methodology checks a careful tester applies by hand,
 * run on the facts of both ends and on per-case results. Each finding is a
 * warning with its evidence and what to do about it. */
#ifndef NB_PITFALLS_H
#define NB_PITFALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "facts.h"

/** One direction's numbers of a case, for the rate and loss checks (summary.c fills one per
 *  direction of a bidir case, so that a direction short of its target is not hidden in a sum). */
struct nb_pitfall_dir {
	const char *name;                /* "forward" or "reverse" */
	double target_rate;              /* offered rate, engine unit (NAN or 0: unpaced) */
	double achieved_rate;            /* the lowest achieved send rate of a run */
	double rcvbuf_drops, snd_errs;   /* the highest of a run (NAN: not counted) */
};

/** What the checks need to know of one case's results (filled by the report builder). */
struct nb_pitfall_case {
	const char *case_id, *test, *protocol;
	const struct nb_engine *eng;     /* the case's engine; NULL = unknown (engine checks skip it) */
	uint32_t streams;
	const char *variant;             /* every axis value but streams ("s128K/reverse"): single- vs
					    multi-stream cases compare only when test, protocol and
					    variant match (NULL = "") */
	uint32_t n;                      /* successful repetitions */
	double mean, stddev, cv;         /* of the headline value across repetitions (cv as fraction) */
	double cpu_thread_max_pct[2][2]; /* [local, peer][sender or requester, receiver or responder]:
					    the busiest single flow thread of a run, % of one core;
					    NAN when unknown or that end has no thread of that role */
	double host_cpu_local_max_pct;   /* highest whole-host busy % of a run (steal excluded) */
	double host_cpu_peer_max_pct;
	double steal_max_pct[2];         /* [local, peer]: highest share of CPU time stolen by the
					    hypervisor in a run, % */
	double omit_s;                   /* configured omit */
	double target_rate;              /* paced cases: the offered rate (NAN or 0: unpaced) */
	double achieved_rate;            /* paced cases: the lowest achieved send rate of a run */
	double rcvbuf_drops, snd_errs;   /* UDP: the highest of a run (NAN or 0: none) */
	double lost_max, loss_pct_max;   /* the highest of a run (NAN or 0: none lost) */
	double foreign_max;              /* UDP: datagrams not of the run, the highest of a run */
	double refused_max;              /* connection attempts of a run answered with a RST, the
					    most of any run (NAN or 0: none refused) */
	struct nb_pitfall_dir dirs[2];   /* bidir: each direction (ndirs 2); the rate and loss checks
					    judge these instead of the case's sums */
	uint32_t ndirs;
	double first_interval;           /* headline of the first recorded interval (mean over runs) */
	double median_interval;          /* median headline of the non-omitted intervals */
};

struct nb_pitfall {
	char code[32];    /* stable id: "cpu-bound", "governor", "mtu-mismatch", ... */
	char case_id[160];/* "" for environment-wide findings */
	char text[512];   /* one line: what, the evidence, what to do */
};

struct nb_pitfalls {
	struct nb_pitfall *v;
	size_t n, cap;
};

/* CV across repetitions above which a case is flagged unstable, unless told otherwise. */
#define NB_PITFALLS_CV_DEFAULT 0.05
/* The most repetitions the unstable warning advises (netperf's -i stops at 30); past it the
 * spread itself is what the case found. */
#define NB_PITFALLS_REPS_REASONABLE 30u

/** The findings of one pitfall code, as the report and stderr show them: one line with the
 *  first finding's text and every case the code affects. */
struct nb_pitfall_group {
	const struct nb_pitfall *first;
	size_t n;                /* findings with this code */
	const char **cases;      /* the distinct case ids they name, in order (into the findings) */
	size_t ncases;
	const struct nb_pitfall **also; /* the first case's other findings of this code (its other
					   end or direction), which the report shows in full */
	size_t nalso;
	size_t more;             /* findings beyond one per case (e.g. both ends of one case) */
};

/** Group p's findings by code, in the order first found; false when out of memory. Free
 *  *out with nb_pitfalls_groups_free. */
bool nb_pitfalls_group(const struct nb_pitfalls *p, struct nb_pitfall_group **out, size_t *n);
/** "+N more like it": the findings of g that neither the console nor the report shows (both
 *  show the first case's in full), into buf; "" when none. One count for both. */
const char *nb_pitfalls_more(const struct nb_pitfall_group *g, char *buf, size_t n);
/** Free what nb_pitfalls_group allocated. */
void nb_pitfalls_groups_free(struct nb_pitfall_group *g, size_t n);

/** Run every check; peer may be NULL (facts of the agent unknown). cv_threshold e.g. 0.05. */
bool nb_pitfalls_check(const struct nb_facts *local, const struct nb_facts *peer,
		       const struct nb_pitfall_case *cases, size_t ncases, double cv_threshold,
		       struct nb_pitfalls *out);
/** One agent host of a batch on several hosts, by the name its paths use. */
struct nb_pitfall_host {
	const char *name;
	const struct nb_facts *facts;
};
/** The environment checks of each host (its own, and its MTU and offloads against local's,
 *  which may be NULL), each finding naming the host: with two or more agent hosts, in place
 *  of nb_pitfalls_check's one peer. */
bool nb_pitfalls_check_hosts(const struct nb_facts *local, const struct nb_pitfall_host *hosts,
			     size_t n, struct nb_pitfalls *out);
/** Add one finding made elsewhere (the paths of a case, path_stats.c): its code, its case
 *  ("" for none) and its one line; false when out of memory. */
bool nb_pitfalls_add_text(struct nb_pitfalls *out, const char *code, const char *case_id,
			  const char *text);
/** Print one line per pitfall code, "warning: CODE [CASE | in N cases (A, B ...)]: TEXT
 *  [(+M more like it)]" (for stderr). */
void nb_pitfalls_print(const struct nb_pitfalls *p, FILE *out);
/** Repetitions that bring the 95 % CI half-width under rel (e.g. 0.02) of the mean at this CV. */
unsigned nb_pitfalls_reps_for_ci(double cv, double rel);
/** Append one finding (text one line, as the checks write it); false when out of memory. */
bool nb_pitfalls_add(struct nb_pitfalls *out, const char *code, const char *case_id, const char *text);
/** Free the findings; a zeroed list is fine. */
void nb_pitfalls_free(struct nb_pitfalls *p);

#endif
