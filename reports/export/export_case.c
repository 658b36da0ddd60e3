/* nbrun — export: the direction in which a case's headline is better, a column of the csv
 * format and how github-benchmark picks a case's file. Kept apart from nbrun export itself
 * (export.c), which calls the formats. */
#include "export.h"

enum nb_better nb_export_case_better(const struct nb_case_stats *c)
{
	return c->metric_col >= 0 ? nb_cols[c->metric_col].better : NB_BETTER_NONE;
}
