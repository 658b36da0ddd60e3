/* Shared by the compare tests (nbt_compare.c): the fixture cases and a compare's outcome. */
#ifndef NBT_COMPARE_H
#define NBT_COMPARE_H

#include <stddef.h>

#include "compare.h"

#define P1 "tcp-stream/tcp/s128K/p1/forward"
#define P4 "tcp-stream/tcp/s128K/p4/forward"
#define UDP "udp-stream/udp/s1400/p1/forward"
#define RR "tcp-rr/tcp/r1/1/p1"
#define LAT "latency/udp/r64/64"

struct outcome {
	int rc;
	char *out, *err;
	size_t olen, elen;
};

/* Run `nbrun compare` on fixture folders (a name may carry "/runs.csv" and so on); o carries
 * the options, its paths are filled here. */
void nbt_cmp_run(const char *const *names, size_t n, struct nb_compare_opts *o, struct outcome *r);
void nbt_cmp_opts(const char *const *names, size_t n, const char *format, const char *metric,
		  const char *outfile, struct outcome *r);
void nbt_compare2(const char *base, const char *nw, struct outcome *r);
void nbt_outcome_free(struct outcome *r);
/* A fixture folder's path. */
void nbt_cmp_fixture(const char *name, char *buf, size_t len);
/* The comparison itself, for value checks. */
void nbt_cmp_build(const char *base, const char *nw, const char *metric, struct nb_compare *c);
const struct nb_cmp_row *nbt_cmp_row(const struct nb_compare *c, const char *case_id);
/* The suites' init: no charts. */
void nbt_cmp_setup(void);

#endif
