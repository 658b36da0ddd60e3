/* nbrun — compare internals shared by compare*.c (not a public interface). */
#ifndef NB_COMPARE_INT_H
#define NB_COMPARE_INT_H

#include <stdio.h>

#include "compare.h"

/** "9.30 ± 0.30 Gbit/s (n=3)", "—" when n = 0. */
void nb_cmp_fmt_stats(const struct nb_stats *st, const char *unit, char *buf, size_t len);
/** "+3.1 %", "-20.0 %", "—", "+∞ (base 0)". */
void nb_cmp_fmt_change(double change, char *buf, size_t len);
/** The unit of a row's metric column ("" unknown). */
const char *nb_cmp_row_unit(const struct nb_cmp_row *row);

#endif
