/* nbrun — human units for metric values: bit/s → Gbit/s, pkt/s → Mpps, us → µs.
 * Shared by the Markdown report, the charts and the progress display so a value
 * reads the same everywhere. */
#ifndef NB_FMT_H
#define NB_FMT_H

#include <stddef.h>

/** A display unit: value / div, shown with unit. */
struct nb_scale {
	double div;
	const char *unit;
};

/** The scale for values of magnitude mag in a column unit ("bit/s", "pkt/s", "us", ...). */
struct nb_scale nb_fmt_scale(const char *unit, double mag);
/** Decimals that show mean to ~3 significant digits and sd to 2 (both already scaled); 0..3. */
int nb_fmt_decimals(double mean, double sd);
/** "9.41 Gbit/s" for value v in column unit; "—" when v is NAN. */
void nb_fmt_value(double v, const char *unit, char *buf, size_t len);
/** The nb_cols unit of a metric column name ("" when unknown). */
const char *nb_fmt_metric_unit(const char *metric);

#endif
