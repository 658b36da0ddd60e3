/* nbrun — compare: which rows of a built comparison are its case rows (every BASE case once, in
 * order), which the gate and the Markdown's parameter differences read. Kept apart from the
 * building (compare.c), which runs the gate. */
#include "compare_int.h"

size_t nb_cmp_case_rows(const struct nb_compare *c)
{
	return c->sides[0].res.ncases < c->nrows ? c->sides[0].res.ncases : c->nrows;
}
