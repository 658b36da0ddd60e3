/* Units of the config language: sizes (1024 powers), rates (1000 powers, bit/s or pps),
 * durations, percentages, and the formats ids use. */
#include <criterion/criterion.h>
#include <string.h>

#include "units.h"

#define SENTINEL 0xdeadbeefull

Test(units, sizes_use_binary_multiples)
{
	static const struct {
		const char *in;
		uint64_t want;
	} t[] = {
		{ "1", 1 },           { "1400", 1400 },          { "64K", 65536 },
		{ "128K", 131072 },   { "1k", 1024 },            { "1KB", 1024 },
		{ "1KiB", 1024 },     { "1M", 1048576 },         { "2MiB", 2097152 },
		{ "1G", 1073741824 }, { "1GiB", 1073741824 },    { "1.5K", 1536 },
		{ "100B", 100 },      { "0", 0 },                { "007", 7 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = SENTINEL;
		const char *why = NULL;
		cr_assert(nb_units_size(t[i].in, &v, &why), "%s: %s", t[i].in, why);
		cr_assert_eq(v, t[i].want, "%s -> %llu", t[i].in, (unsigned long long)v);
	}
}

Test(units, bad_sizes_say_why_and_leave_output_alone)
{
	static const struct {
		const char *in, *why;
	} t[] = {
		{ "", "empty" },        { "abc", "not a number" }, { "12Q", "unknown unit" },
		{ "-5", "negative" },   { "0.3K", "not a whole number" }, { "1Kb", "unknown unit" },
		{ "K", "not a number" }, { "99999999999999999999", "too many digits" },
		{ "17179869184G", "too large" }, { "1 K", "unknown unit" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = SENTINEL;
		const char *why = NULL;
		cr_assert_not(nb_units_size(t[i].in, &v, &why), "%s parsed", t[i].in);
		cr_assert_eq(v, SENTINEL);
		cr_assert_str_eq(why, t[i].why, "%s: %s", t[i].in, why);
	}
}

Test(units, rates_use_decimal_multiples_and_tell_the_unit)
{
	static const struct {
		const char *in;
		uint64_t want;
		enum nb_rate_unit unit;
	} t[] = {
		{ "1000", 1000, NB_RATE_BARE },          { "100M", 100000000, NB_RATE_BARE },
		{ "1G", 1000000000, NB_RATE_BARE },      { "2.5G", 2500000000ull, NB_RATE_BARE },
		{ "10k", 10000, NB_RATE_BARE },          { "10K", 10000, NB_RATE_BARE },
		{ "1Gbps", 1000000000, NB_RATE_BITS },   { "1Gbit/s", 1000000000, NB_RATE_BITS },
		{ "10Mb/s", 10000000, NB_RATE_BITS },    { "500kpps", 500000, NB_RATE_PPS },
		{ "1.5Mpps", 1500000, NB_RATE_PPS },     { "100pps", 100, NB_RATE_PPS },
		{ "1T", 1000000000000ull, NB_RATE_BARE }, { "0", 0, NB_RATE_BARE },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = SENTINEL;
		enum nb_rate_unit u = NB_RATE_BITS + 7;
		const char *why = NULL;
		cr_assert(nb_units_rate(t[i].in, &v, &u, &why), "%s: %s", t[i].in, why);
		cr_assert_eq(v, t[i].want, "%s -> %llu", t[i].in, (unsigned long long)v);
		cr_assert_eq(u, t[i].unit, "%s unit %d", t[i].in, u);
	}
}

Test(units, bad_rates_are_rejected)
{
	static const char *const bad[] = { "", "fast", "10X", "-1M", "1Mbpss", "10 M", "1mbps" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = SENTINEL;
		enum nb_rate_unit u = NB_RATE_BARE;
		const char *why = NULL;
		cr_assert_not(nb_units_rate(bad[i], &v, &u, &why), "%s parsed", bad[i]);
		cr_assert_eq(v, SENTINEL);
		cr_assert_not_null(why);
	}
}

Test(units, durations_take_units_and_bare_seconds)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} t[] = {
		{ "10", 10000000000ull },  { "10s", 10000000000ull }, { "500ms", 500000000ull },
		{ "250us", 250000ull },    { "7ns", 7 },              { "2m", 120000000000ull },
		{ "1min", 60000000000ull }, { "1h", 3600000000000ull }, { "1.5s", 1500000000ull },
		{ "0", 0 },                { "0.5", 500000000ull },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = SENTINEL;
		const char *why = NULL;
		cr_assert(nb_units_duration(t[i].in, &v, &why), "%s: %s", t[i].in, why);
		cr_assert_eq(v, t[i].ns, "%s -> %llu", t[i].in, (unsigned long long)v);
	}
}

Test(units, negative_and_unknown_durations_are_rejected)
{
	uint64_t v = SENTINEL;
	const char *why = NULL;
	cr_assert_not(nb_units_duration("-1s", &v, &why));
	cr_assert_str_eq(why, "negative");
	cr_assert_not(nb_units_duration("10sec", &v, &why));
	cr_assert_str_eq(why, "unknown unit");
	cr_assert_not(nb_units_duration("s", &v, &why));
	cr_assert_str_eq(why, "not a number");
	cr_assert_eq(v, SENTINEL);
}

Test(units, percentages_become_ratios)
{
	double r = -1;
	const char *why = NULL;
	cr_assert(nb_units_percent("0.1%", &r, &why));
	cr_assert_float_eq(r, 0.001, 1e-12);
	cr_assert(nb_units_percent("0%", &r, &why));
	cr_assert_float_eq(r, 0.0, 1e-12);
	cr_assert(nb_units_percent("100%", &r, &why));
	cr_assert_float_eq(r, 1.0, 1e-12);
	r = -1;
	cr_assert_not(nb_units_percent("0.1", &r, &why));
	cr_assert_str_eq(why, "missing '%'");
	cr_assert_not(nb_units_percent("101%", &r, &why));
	cr_assert_str_eq(why, "over 100%");
	cr_assert_not(nb_units_percent("-1%", &r, &why));
	cr_assert_float_eq(r, -1.0, 1e-12);
}

Test(units, plain_integers_refuse_units_and_fractions)
{
	uint64_t v = SENTINEL;
	const char *why = NULL;
	cr_assert(nb_units_uint("18446744073709551", &v, &why));
	cr_assert_eq(v, 18446744073709551ull);
	v = SENTINEL;
	cr_assert_not(nb_units_uint("3.0", &v, &why));
	cr_assert_not(nb_units_uint("3K", &v, &why));
	cr_assert_not(nb_units_uint("-3", &v, &why));
	cr_assert_eq(v, SENTINEL);
}

Test(units, sizes_format_as_ids_show_them)
{
	static const struct {
		uint64_t v;
		const char *want;
	} t[] = {
		{ 131072, "128K" }, { 1024, "1K" }, { 1400, "1400" }, { 1048576, "1M" },
		{ 1073741824, "1G" }, { 1536, "1536" }, { 64, "64" }, { 0, "0" }, { 3072, "3K" },
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_str_eq(nb_units_fmt_size(t[i].v, buf, sizeof(buf)), t[i].want);
}

Test(units, si_values_format_exactly)
{
	static const struct {
		uint64_t v;
		const char *want;
	} t[] = {
		{ 1000000000, "1G" },  { 100000000, "100M" }, { 2500000000ull, "2.5G" },
		{ 500000, "500k" },    { 999, "999" },        { 1234567, "1234.567k" },
		{ 10000000000ull, "10G" }, { 1001000, "1.001M" }, { 0, "0" }, { 1500, "1.5k" },
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_assert_str_eq(nb_units_fmt_si(t[i].v, buf, sizeof(buf)), t[i].want, "%llu",
				 (unsigned long long)t[i].v);
}

Test(units, formatted_rates_parse_back_to_the_same_value)
{
	static const uint64_t vals[] = { 1, 999, 1500, 1234567, 2500000000ull, 10000000000ull,
					 987654321ull };
	char buf[32];
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t back = 0;
		enum nb_rate_unit u;
		const char *why;
		cr_assert(nb_units_rate(nb_units_fmt_si(vals[i], buf, sizeof(buf)), &back, &u, &why));
		cr_assert_eq(back, vals[i], "%s", buf);
	}
}

Test(units, wall_times_read_well)
{
	char buf[32];
	cr_assert_str_eq(nb_units_fmt_duration(45, buf, sizeof(buf)), "45s");
	cr_assert_str_eq(nb_units_fmt_duration(750, buf, sizeof(buf)), "12m 30s");
	cr_assert_str_eq(nb_units_fmt_duration(7500, buf, sizeof(buf)), "2h 05m");
	cr_assert_str_eq(nb_units_fmt_duration(2.5, buf, sizeof(buf)), "2.5s");
	cr_assert_str_eq(nb_units_fmt_duration(3599.9, buf, sizeof(buf)), "1h 00m");
}
