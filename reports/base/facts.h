/* nbrun — environment facts of one end: an ordered list of (group, key, value).
 * A fact that could not be read keeps its place with ok=false and the reason in
 * `value` ("no cpufreq in this VM", "permission denied"): never silently missing.
 * runner/env/ fills it; reports read it (env_json.c, report tables, pitfalls). */
#ifndef NB_FACTS_H
#define NB_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_error.h"

struct nb_fact {
	char group[24];   /* "host", "cpu", "iface", "tcp", "nbrun" */
	char key[48];     /* "kernel", "mtu", "offload.tso" ... */
	char value[256];  /* the value, or why it is not known (ok == false) */
	bool ok;
};

struct nb_facts {
	struct nb_fact *v;
	size_t n, cap;
};

/** Empty list (does not allocate). */
void nb_facts_init(struct nb_facts *f);
/** Free the list; an initialised empty list is fine. */
void nb_facts_free(struct nb_facts *f);
/** Append or replace a known fact; false on out of memory. */
bool nb_facts_set(struct nb_facts *f, const char *group, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** Append or replace a fact that could not be read, with the reason. */
bool nb_facts_unknown(struct nb_facts *f, const char *group, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** The fact, or NULL. */
const struct nb_fact *nb_facts_get(const struct nb_facts *f, const char *group, const char *key);
/** Value of a known fact, or NULL when absent or unknown. */
const char *nb_facts_value(const struct nb_facts *f, const char *group, const char *key);
/** Flatten to "group.key" -> "value" (unknown: "!reason") pairs, for the control protocol.
 *  Calls put(ctx, key, value) for each fact. */
void nb_facts_flatten(const struct nb_facts *f, void (*put)(void *ctx, const char *k, const char *v),
		      void *ctx);
/** Inverse of nb_facts_flatten for one pair; false on a malformed key. */
bool nb_facts_unflatten(struct nb_facts *f, const char *k, const char *v);
/** True when both facts exist and are both unknown, or both known with the same value. */
bool nb_facts_same(const struct nb_fact *a, const struct nb_fact *b);
/** False for facts that name a host rather than describe its setup (hostname, boot time ...). */
bool nb_facts_comparable(const char *group, const char *key);
/** Call put(ctx, l, p) for each comparable fact that differs between the ends (l or p NULL when
 *  only one end has it), local order first; returns how many differ (0 when peer is NULL). */
size_t nb_facts_diff(const struct nb_facts *local, const struct nb_facts *peer,
		     void (*put)(void *ctx, const struct nb_fact *l, const struct nb_fact *p), void *ctx);
/** Call put(ctx, x, each) for each comparable fact x not the same on all n hosts (sets[0..n)),
 *  in the order of first appearance; each[h] is host h's fact or NULL when it lacks it. Two
 *  unknowns agree (nb_facts_same); a fact one host lacks differs. How many differ; 0 with n < 2
 *  or no memory (*nomem set, when given). */
size_t nb_facts_diff_hosts(const struct nb_facts *const *sets, size_t n,
			   void (*put)(void *ctx, const struct nb_fact *x,
				       const struct nb_fact *const *each),
			   void *ctx, bool *nomem);
/** Parse a kernel CPU list ("0-3,8") into cpus[0..max) (may be NULL); the number of CPUs, -1 if malformed. */
int nb_cpulist_parse(const char *list, bool *cpus, size_t max);

#endif
