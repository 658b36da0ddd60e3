/* nbrun — how every number is written. For people: human units for metric values (bit/s →
 * Gbit/s, pkt/s → Mpps, us → µs) with about three significant digits, shared by the Markdown
 * report, the warnings, the charts, the exports' text and the progress display so a value
 * reads the same everywhere. For machines (CSV, JSON, Prometheus): NB_FMT_DIGITS significant
 * digits and never an exponent, so a file keeps what was measured without the noise that
 * floating-point arithmetic leaves in the last bits (16.639999999999997 is 16.64). */
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
/** Significant digits of a number written for a machine: DBL_DIG, the most a decimal keeps
 *  through a double; a 17th digit only shows the rounding of the arithmetic that made it. */
#define NB_FMT_DIGITS 15
/** v for a machine: NB_FMT_DIGITS significant digits in plain decimal, trailing zeros dropped,
 *  never an exponent ("22477948213.4568", "0.000003", "-5"); "" when v is NAN or infinite. */
void nb_fmt_num(double v, char *buf, size_t len);
/** The nb_cols unit of a metric column name ("" when unknown). */
const char *nb_fmt_metric_unit(const char *metric);

#endif
