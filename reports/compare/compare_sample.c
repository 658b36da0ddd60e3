/* nbrun — compare: one side's sample of a number, its start and its end (sorted, its median),
 * shared by the headline, rank and working comparisons. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"

int nb_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

bool nb_cmp_sample_start(struct nb_cmp_sample *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	nb_stats_init(&s->st);
	s->median = NAN;
	return (s->v = malloc(cap * sizeof(*s->v))) != NULL;
}

void nb_cmp_sample_end(struct nb_cmp_sample *s)
{
	qsort(s->v, s->st.n, sizeof(*s->v), nb_cmp_double);
	if (s->st.n)
		s->median = nb_stats_percentile(s->v, s->st.n, 50.0);
}
