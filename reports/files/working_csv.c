/* working.csv (see working_csv.h): written row by row. */
#include "working_csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_int.h"

static const char *const cols[] = {
	"run_id", "case_id", "rep", "part", "part_case_id", "engine", "protocol", "phase",
	"samples", "p50_us", "p90_us", "p99_us", "p999_us", "tm95_us", "inflation_p50_us",
	"inflation_p99_us", "inflation_ratio", "up_bps", "down_bps", "jain", "rpm_tcp",
	"idle_rpm_tcp", "congestion", "idle_s", "path", "rpm_self",
};

struct nb_csv *nb_working_csv_open(const char *dir, struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, NB_WORKING_CSV_FILE);
	return nb_csv_open(path, cols, sizeof(cols) / sizeof(cols[0]), err);
}

void nb_working_csv_write(struct nb_csv *c, const struct nb_working_row *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_u64(c, r->rep);
	nb_csv_str(c, r->part);
	nb_csv_str(c, r->part_case_id);
	nb_csv_str(c, r->engine);
	nb_csv_str(c, r->protocol);
	nb_csv_str(c, r->phase ? r->phase : "");
	nb_csv_u64(c, r->samples);
	const double v[] = { r->p50_us, r->p90_us, r->p99_us, r->p999_us, r->tm95_us,
			     r->inflation_p50_us, r->inflation_p99_us, r->inflation_ratio,
			     r->up_bps, r->down_bps, r->jain, r->rpm_tcp, r->idle_rpm_tcp };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		nb_csv_num(c, v[i]);
	nb_csv_str(c, r->congestion ? r->congestion : "");
	nb_csv_num(c, r->idle_s);
	nb_csv_str(c, r->path ? r->path : "");
	nb_csv_str(c, r->rpm_self ? r->rpm_self : "");
	nb_csv_end(c);
}

void nb_working_csv_load(struct nb_results *res)
{
	nb_results_optional_table(res, NB_WORKING_CSV_FILE, &res->working_t);
}

