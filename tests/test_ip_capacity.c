/* RFC 9097's IP-layer capacity (reports/analysis/ip_capacity.c) against hand-computed values:
 * the headers counted per datagram, the mean over the measured time, the maximum over the
 * sub-intervals, and the intervals that are not part of it. */
#include <criterion/criterion.h>
#include <math.h>

#include "ip_capacity.h"

static struct nb_interval iv(double t0, double t1, double bytes, double packets)
{
	struct nb_interval x = { .t_start = t0, .t_end = t1 };
	for (size_t k = 0; k < NB_COL_COUNT; k++)
		x.m.v[k] = NAN;
	x.m.v[NB_COL_RX_BYTES] = bytes;
	x.m.v[NB_COL_RX_PACKETS] = packets;
	return x;
}

Test(ip_capacity, counts_the_udp_and_ip_headers_of_each_datagram)
{
	/* 1000 datagrams of 1400 B in 1 s: 8 * (1 400 000 + 1000 * 28) = 11 424 000 bit/s */
	cr_expect_float_eq(nb_ip_layer_bps(1400000, 1000, 1, 28), 11424000, 1e-6);
	/* IPv6: 8 * (1 400 000 + 1000 * 48) / 0.5 = 23 168 000 bit/s */
	cr_expect_float_eq(nb_ip_layer_bps(1400000, 1000, 0.5, 48), 23168000, 1e-6);
	cr_expect(isnan(nb_ip_layer_bps(1, 1, 0, 28)));
}

Test(ip_capacity, the_maximum_is_the_largest_sub_interval_and_the_mean_is_over_t)
{
	/* warm-up (t < 0), three measured 0.5 s intervals, an omitted and a cool-down one */
	struct nb_interval x[] = {
		iv(-0.5, 0, 9e9, 1e6), iv(0, 0.5, 700000, 500), iv(0.5, 1, 1400000, 1000),
		iv(1, 1.5, 350000, 250), iv(1.5, 2, 9e9, 1e6), iv(2, 2.5, 9e9, 1e6),
	};
	x[4].omitted = true;
	x[5].cooldown = true;
	const struct nb_interval *p[6];
	for (size_t i = 0; i < 6; i++)
		p[i] = &x[i];
	struct nb_ip_capacity c;
	nb_ip_capacity(p, 6, 28, &c);
	cr_expect_eq(c.n, 3);
	/* the second: 8 * (1 400 000 + 28 000) / 0.5 = 22 848 000 */
	cr_expect_float_eq(c.max_bps, 22848000, 1e-6);
	/* all three: 8 * (2 450 000 + 1750 * 28) / 1.5 = 13 328 000 */
	cr_expect_float_eq(c.mean_bps, 13328000, 1e-6);
	cr_expect_float_eq(c.dt_s, 0.5, 1e-12);
}

Test(ip_capacity, the_header_follows_the_peers_address_family)
{
	bool assumed;
	cr_expect_eq(nb_ip_header_bytes("10.0.0.2:7500", &assumed), 28);
	cr_expect_not(assumed);
	cr_expect_eq(nb_ip_header_bytes("[fd00::2]:7500", &assumed), 48);
	cr_expect_not(assumed);
	cr_expect_eq(nb_ip_header_bytes("fd00::2", &assumed), 48);
	cr_expect_eq(nb_ip_header_bytes("embedded agent on 127.0.0.1", &assumed), 28);
	cr_expect_not(assumed);
	cr_expect_eq(nb_ip_header_bytes("vm3:7500", &assumed), 28);
	cr_expect(assumed, "a name: IPv4 assumed, and said");
}
