/* report.md: a searched case's goals in MLRsearch's words (RFC 9971): each goal's attributes,
 * its relevant bounds and its conditional throughput as sweeps.json recorded them, and which
 * definition each number follows. */
#include "markdown.h"

#include <math.h>
#include <stdio.h>

#include "fmt.h"
#include "md_text.h"

static void goal_row(FILE *f, const struct nb_sweep_result *sw, const char *u)
{
	fputs("| ", f);
	nb_md_cell(f, sw->goal_name);
	fprintf(f, " | %g %% | %g |", sw->loss_target * 100.0, sw->exceed_ratio);
	nb_md_value_cell(f, sw->final_trial_s, "s");
	nb_md_value_cell(f, sw->duration_sum_s, "s");
	nb_md_value_cell(f, sw->lower_bound, u);
	nb_md_value_cell(f, sw->upper_bound, u);
	nb_md_value_cell(f, sw->conditional, u);
	fputs("\n", f);
}

void nb_md_sweep_goals(FILE *f, const struct nb_results *res, const struct nb_case_stats *c,
		       const char *unit)
{
	struct nb_sweep_result sw;
	bool any = false;
	for (size_t g = 0; nb_sweeps_json_goal(res, c->pc->case_id, g, &sw); g++) {
		if (!sw.search || !sw.goal_name) /* a plain sweep, or a folder from before */
			continue;
		if (!any)
			fputs("| Goal | Loss ratio | Exceed ratio | Final trial | Duration sum | "
			      "Relevant lower bound | Relevant upper bound | Conditional throughput |\n"
			      "|---|--:|--:|--:|--:|--:|--:|--:|\n", f);
		any = true;
		goal_row(f, &sw, unit);
	}
	if (!any)
		return;
	fprintf(f, "\nThe goals in MLRsearch's words (RFC 9971; rates per flow, as offered): NDR "
		   "is the goal of loss ratio 0, PDR one above 0 (FD.io CSIT). Each load is "
		   "classified from its trials that measured the path (RFC 9971 Appendix A); the "
		   "relevant upper bound is the smallest load classified as an upper bound, the "
		   "relevant lower bound the largest lower bound below it; the conditional "
		   "throughput is the relevant lower bound x (1 − the loss ratio its full-length "
		   "trials reach at the exceed-ratio quantile), Appendix B. The sentence above is "
		   "nbrun's own threshold (every trial at it passed, below the lowest failing "
		   "rate); for loss 0 it is RFC 2544's throughput (section 26.1).\n\n");
}
