/* nbrun — units of the config language: sizes, rates, durations, percentages.
 *
 * Sizes are bytes with binary multiples (K = KiB = KB = 1024); rates are
 * decimal (k/K = 1000, M, G, T) in bit/s, or packets/s with a `pps` suffix;
 * durations take ns/us/ms/s/m/h (a bare number is seconds). Every parser
 * leaves its output alone on failure and says why in a static string.
 */
#ifndef NB_UNITS_H
#define NB_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Which unit a rate was written in. */
enum nb_rate_unit {
	NB_RATE_BARE, /* "100M", "1000": the engine's natural unit */
	NB_RATE_BITS, /* "1Gbps", "1Gbit/s", "10Mb/s" */
	NB_RATE_PPS,  /* "500kpps" */
};

/** Parse a size ("1400", "64K", "1MiB", "2GB") into bytes; *why says what is wrong on failure. */
bool nb_units_size(const char *s, uint64_t *out, const char **why);
/** Parse a rate ("100M", "2.5Gbps", "500kpps"); *unit tells which kind of suffix was written. */
bool nb_units_rate(const char *s, uint64_t *out, enum nb_rate_unit *unit, const char **why);
/** Parse a duration ("500ms", "10s", "2m", "1h", "30" = 30 s) into nanoseconds. */
bool nb_units_duration(const char *s, uint64_t *ns, const char **why);
/** Parse a percentage ("0.1%") into a ratio (0.001); 0 % .. 100 %. */
bool nb_units_percent(const char *s, double *ratio, const char **why);
/** Parse a plain non-negative decimal integer. */
bool nb_units_uint(const char *s, uint64_t *out, const char **why);

/** Format bytes the way ids show them: "128K", "1M", "1400". Returns buf. */
char *nb_units_fmt_size(uint64_t bytes, char *buf, size_t len);
/** Format a decimal quantity exactly: "1G", "2.5G", "100M", "500k", "999". Returns buf. */
char *nb_units_fmt_si(uint64_t v, char *buf, size_t len);
/** Format a wall time for humans: "45s", "12m 30s", "2h 05m". Returns buf. */
char *nb_units_fmt_duration(double seconds, char *buf, size_t len);

#endif
