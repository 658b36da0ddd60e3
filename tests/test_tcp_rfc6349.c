/* RFC 6349's formulas (reports/analysis/tcp_rfc6349.c) against a hand-computed table. */
#include <criterion/criterion.h>
#include <math.h>

#include "tcp_rfc6349.h"

Test(rfc6349, efficiency_buffer_delay_and_bdp_as_the_rfc_computes_them)
{
	/* section 4.2: 100 x (102 400 000 - 1 024 000) / 102 400 000 = 99 % */
	cr_expect_float_eq(nb_rfc6349_efficiency_pct(102400000, 1024000), 99, 1e-9);
	cr_expect_float_eq(nb_rfc6349_efficiency_pct(5000, 0), 100, 1e-12);
	cr_expect(isnan(nb_rfc6349_efficiency_pct(0, 0)), "nothing sent: no efficiency");
	/* section 4.3: baseline 25 ms, 32 ms during the transfer: 100 x 7 / 25 = 28 % */
	cr_expect_float_eq(nb_rfc6349_buffer_delay_pct(32000, 25000), 28, 1e-9);
	cr_expect(isnan(nb_rfc6349_buffer_delay_pct(32000, 0)));
	/* section 3.3.1: 100 Mbit/s x 25 ms = 312 500 bytes */
	cr_expect_float_eq(nb_rfc6349_bdp_bytes(100e6, 25000), 312500, 1e-6);
}

Test(rfc6349, transfer_time_ratio_is_the_measured_time_over_the_bytes_at_the_bottleneck)
{
	/* section 4.1: 100 MB at 100 Mbit/s take 8 s ideally; measured 10 s: 1.25 */
	cr_expect_float_eq(nb_rfc6349_ttr(10, 100e6, 100e6), 1.25, 1e-12);
	cr_expect_float_eq(nb_rfc6349_ttr(8, 100e6, 100e6), 1, 1e-12);
	cr_expect(isnan(nb_rfc6349_ttr(10, 100e6, 0)), "no bottleneck: not computed");
	cr_expect(isnan(nb_rfc6349_ttr(10, 0, 100e6)), "nothing received: no ratio");
}
