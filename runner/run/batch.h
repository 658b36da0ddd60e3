/* nbrun — one batch against one agent, from first contact to the report: the peer reached
 * (and checked) before any folder exists, the results folder claimed for this batch alone,
 * its files written, and at the end the report. Shared by a new batch (run.c) and
 * `nbrun resume` (resume.c); the run loop itself is run.c. */
#ifndef NB_BATCH_H
#define NB_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "client.h"
#include "clock.h"
#include "config.h"
#include "csv.h"
#include "hosts_reach.h"
#include "meta_json.h"
#include "multipath.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "runs_jsonl.h"
#include "solo.h"
#include "stats.h"
#include "sweep_run.h"
#include "waiting.h"

/** One agent session of the batch: an end of its cases' paths (a host a case uses twice, e.g.
 *  receiving from two senders, has a session per use: a session runs one test at a time). */
struct nb_batch_path {
	char name[200];              /* "local->HOST[:PORT]" */
	const char *peer;            /* HOST[:PORT] (NULL: the embedded agent) */
	struct nb_client *client;    /* path 0: &batch.client; the others: &own */
	struct nb_client own;
	struct nb_clock clock;       /* its agent's clock offset and control round trip */
};

/** One path of the case now running: its sessions (src NULL: this host sends). */
struct nb_case_path {
	char name[200];              /* "FROM->TO" */
	struct nb_client *src, *dst;
};

struct nb_batch {
	const struct nb_config *cfg;
	const struct nb_plan *plan;
	const struct nb_run_opts *o;
	const char *peer;            /* o->peer, or for a resume the peer meta.json names */
	char dir[4096];
	bool made_dir;               /* this batch created dir: removed again when nothing ran */
	bool claimed;                /* dir is this batch's and holds its first files */
	bool closed;
	struct nb_agent *local_agent;
	struct nb_secret local_secret; /* the embedded agent's: no other local user can take it */
	struct nb_client client;
	struct nb_waiting waiting;   /* how its sessions wait for a busy agent (waiting.h) */
	struct nb_reach *reach;      /* --peer NAME of hosts:, or --check over hosts: (hosts_reach.h) */
	bool need_agent;             /* some case's engine needs an agent (else no control session) */
	struct nb_solo_target solo;  /* agentless cases: the target (the peer's host, or 127.0.0.1) */
	char peer_text[300];         /* meta's peer when no case needs an agent */
	struct nb_csv *runs, *intervals;
	struct nb_runs_jsonl *jsonl;  /* runs.jsonl, beside runs.csv */
	struct nb_meta meta;
	struct nb_label labels[NB_LABELS_MAX]; /* the config's, then --label over them (meta's) */
	size_t nlabels;
	char sha256[65], started[32], finished[32], resumed[32]; /* meta's strings */
	uint32_t run_id;             /* the last run id used */
	bool peer_local;             /* loopback path: GRO artefacts possible */
	struct nb_progress *progress;
	struct nb_stats *stats;      /* per case: headline values of its successful runs */
	size_t runs_done;            /* runs (a sweep: its trials) that finished, this invocation */
	struct nb_slot *done;        /* resume: case x repetition pairs already measured */
	size_t ndone;
	bool write_failed;           /* a results file could not be written: werr says which */
	struct nb_error werr;
	/* the paths (batch_paths.c): path 0 is `client`; with more than one, every case runs on
	   all of them at once (batch_paths_run.c) */
	struct nb_batch_path paths[NB_PATHS_MAX];
	size_t npaths;
	/* the paths of the case now running (nb_batch_case_paths) */
	struct nb_case_path cpaths[NB_PATHS_MAX];
	size_t ncpaths;
	bool cpaths_named;           /* they are the test's paths: (rows name them) */
};

/** Zero b for cfg, plan and o (stats allocated); false when out of memory. */
bool nb_batch_init(struct nb_batch *b, const struct nb_config *cfg, const struct nb_plan *plan,
		   const struct nb_run_opts *o);
/** Reach the agent (o->peer, or an embedded one): NB_EXIT_USAGE for a malformed peer,
 *  NB_EXIT_PEER when it cannot be reached or refuses. */
enum nb_run_exit nb_batch_connect(struct nb_batch *b, struct nb_error *err);
/** Make b->reach for the config's hosts on first use (batch_hosts.c); false when out of memory. */
bool nb_batch_reach(struct nb_batch *b, struct nb_error *err);
/** --peer NAME where NAME is a host of the config: reach it (over ssh for an ssh host) into
 *  b->client (batch_hosts.c). */
enum nb_run_exit nb_batch_connect_host(struct nb_batch *b, const struct nb_host *h,
				       struct nb_error *err);
/** --check: ask every other host the plan names (preflight.c); lines on stderr as
 *  nb_batch_check's, "host NAME" for each; how many problems. err when one cannot be reached. */
size_t nb_batch_check_hosts(struct nb_batch *b, const struct nb_msg_check *need,
			    struct nb_error *err);
/** Ask both ends for what the plan needs; prints one line per problem on stderr and returns
 *  how many there were (preflight.c). err is set when the agent could not be asked. */
size_t nb_batch_check(struct nb_batch *b, struct nb_error *err);
/** Refuse a --out that holds anything (unless --force), before anything is touched. */
bool nb_batch_out_free(const struct nb_run_opts *o, struct nb_error *err);
/** Claim the results folder (a new unique one, or --out) and write config.yaml, plan.csv,
 *  meta.json and env.json; false with err naming the file that could not be written. */
bool nb_batch_claim(struct nb_batch *b, struct nb_error *err);
/** Open runs.csv, runs.jsonl and intervals.csv for appending. */
bool nb_batch_open_rows(struct nb_batch *b, struct nb_error *err);
/** Flush runs.csv and intervals.csv to the disk (after each run, outside its measurement). */
void nb_batch_sync_rows(struct nb_batch *b);
/** Note the first write failure (err) and stop the run in progress. */
void nb_batch_write_failed(struct nb_batch *b, const struct nb_error *err);
/** Sync and close the CSV files, rewrite meta.json (complete or not, what stopped it) and say
 *  goodbye to the agent; the first write failure goes to b->werr. */
void nb_batch_close(struct nb_batch *b, bool complete, const char *stopped);
/** Rebuild summary, report and charts; false (err) when a report file cannot be written. */
bool nb_batch_report(struct nb_batch *b, struct nb_error *err);
/** From the agent reached to the exit code (run.c): the check, the folder claimed (unless
 *  resume adopted it already), every run not yet done, the report. */
enum nb_run_exit nb_run_batch(struct nb_batch *b, struct nb_error *err);
/** Reach every other path's agent (a repeated --peer) once path 0's is open, and measure each
 *  agent's clock; NB_EXIT_PEER (err names the path) when one cannot be reached (batch_paths.c). */
enum nb_run_exit nb_batch_connect_paths(struct nb_batch *b, struct nb_error *err);
/** Say BYE to every path's agent but path 0's (that is nb_batch_close's). */
void nb_batch_close_paths(struct nb_batch *b);
/** Stop the run in progress on every path (a write failed). */
void nb_batch_abort_paths(struct nb_batch *b);
/** The paths into meta (names, peers, clocks). */
void nb_batch_meta_paths(struct nb_batch *b);
/** Case c's paths into b->cpaths: its test's paths: (each use of a host takes the next of its
 *  sessions), or without them local -> every session of the batch (repeated --peer). False
 *  with err when a path has no session (cannot happen after nb_batch_connect). */
bool nb_batch_case_paths(struct nb_batch *b, const struct nb_case *c, struct nb_error *err);
/** Whether the case now running goes through nb_batch_run_paths (several paths, or one
 *  between two agents). */
bool nb_batch_multipath(const struct nb_batch *b);
/** Run su (case c, repetition rep) on every path at once (batch_paths_run.c): each path's interval
 *  and run rows as it goes, the intervals' sums; sum gets the run's result over all paths. */
enum nb_outcome nb_batch_run_paths(struct nb_batch *b, const struct nb_case *c,
				   const struct nb_msg_setup *su, uint32_t rep, const char *started,
				   struct nb_test_result *sum, struct nb_error *err);
/** One sweep trial su of case c on every path of the case at once, with no rows: sum gets the
 *  result over all paths, parts each path's own (b->ncpaths of them; the caller frees their
 *  results) (batch_paths_run.c). */
enum nb_outcome nb_batch_paths_trial(struct nb_batch *b, const struct nb_case *c,
				     const struct nb_msg_setup *su, struct nb_test_result *sum,
				     struct nb_sweep_part *parts, struct nb_error *err);
/** Free what init allocated (not the folder). */
void nb_batch_free(struct nb_batch *b);

#endif
