/* The bottleneck sentence from a case's loss budget (reports/analysis/loss_budget.c): a place
 * is named when it holds most of the loss, "unknown" when none does. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "loss_budget.h"

static struct nb_loss_budget budget(double sent, double lost)
{
	return (struct nb_loss_budget){ .runs = 3, .sent = sent, .lost = lost, .tx_thread = NAN,
					.rx_thread = NAN, .size = 1400 };
}

static const char *verdict(const struct nb_loss_budget *b)
{
	static char buf[768];
	nb_loss_budget_verdict(b, buf, sizeof(buf));
	return buf;
}

Test(loss_verdict, names_the_place_that_holds_most_of_the_loss)
{
	struct nb_loss_budget b = budget(10000, 1000);
	b.path = 990;
	b.sock = 10;
	const char *v = verdict(&b);
	cr_expect(strncmp(v, "the path: ", 10) == 0, "%s", v);
	cr_expect(strstr(v, "990 of 1000 lost datagrams (99 %)"), "%s", v);
	cr_expect_null(strstr(v, "MTU black hole"), "not every datagram was lost: %s", v);
	b = budget(10000, 1000);
	b.sock = 900;
	b.path = 100;
	b.rx_thread = 97;
	v = verdict(&b);
	cr_expect(strncmp(v, "the receiver's socket buffer: ", 30) == 0, "%s", v);
	cr_expect(strstr(v, "97 % of a core (the CPU)"), "%s", v);
}

Test(loss_verdict, says_unknown_when_no_place_holds_most)
{
	struct nb_loss_budget b = budget(10000, 1000);
	b.path = 400;
	b.sock = 350;
	b.rx_if = 250;
	const char *v = verdict(&b);
	cr_expect(strncmp(v, "unknown: no one place holds most of the 1000 lost", 49) == 0, "%s", v);
	b = budget(10000, 0);
	cr_expect(strncmp(verdict(&b), "unknown: nothing was lost or refused", 36) == 0, "%s", verdict(&b));
	b.target = 3e6;
	b.achieved = 2.98e6;
	cr_expect(strncmp(verdict(&b), "none: the offered rate was sent and carried", 43) == 0, "%s",
		  verdict(&b));
	b.achieved = 2e6;
	cr_expect(strncmp(verdict(&b), "unknown: ", 9) == 0, "a sender short of its rate: %s", verdict(&b));
}

Test(loss_verdict, a_black_hole_loses_every_datagram_on_the_path)
{
	struct nb_loss_budget b = budget(840, 840);
	b.path = 840;
	const char *v = verdict(&b);
	cr_expect(strstr(v, "every datagram was lost: with 1400-byte datagrams (1428 B on the wire"), "%s", v);
	cr_expect(strstr(v, "an MTU black hole"), "%s", v);
}

Test(loss_verdict, refused_sends_are_the_senders_not_loss)
{
	struct nb_loss_budget b = budget(2000, 0);
	b.refused = 5000;
	b.tx_qdisc = 5010;
	const char *v = verdict(&b);
	cr_expect(strncmp(v, "the sender's qdisc: it dropped 5010 datagrams", 45) == 0, "%s", v);
	cr_expect(strstr(v, "none lost"), "%s", v);
	b.tx_qdisc = 0;
	cr_expect(strncmp(verdict(&b), "the sender's socket: ", 21) == 0, "%s", verdict(&b));
	b.refused = 0;
	b.tx_thread = 99;
	cr_expect(strncmp(verdict(&b), "the CPU: the busiest sender thread used 99 %", 44) == 0, "%s",
		  verdict(&b));
}

Test(loss_verdict, a_noisy_budget_says_so)
{
	struct nb_loss_budget b = budget(10000, 1000);
	b.sock = 1010;
	b.noisy_runs = 1;
	b.excess = 10;
	const char *v = verdict(&b);
	cr_expect(strncmp(v, "the receiver's socket buffer: ", 30) == 0, "%s", v);
	cr_expect(strstr(v, "noisy in 1 of 3 runs (the host's counters saw 10 drops more"), "%s", v);
}

/* A case without a budget (TCP): the CPU, a busy host, retransmissions, else unknown. */
Test(loss_verdict, a_tcp_case_is_judged_by_its_threads_host_and_retransmissions)
{
	struct nb_case_stats c = { .value = { .n = 2 } };
	for (int i = 0; i < NB_COL_COUNT; i++)
		c.metric_max[i] = c.metric_mean[i] = NAN;
	char v[512];
	c.metric_max[NB_COL_CPU_LOCAL_TX_THREAD_PCT] = 40;
	c.metric_max[NB_COL_CPU_PEER_RX_THREAD_PCT] = 96;
	cr_assert(nb_case_bottleneck(&c, v, sizeof(v)));
	cr_expect_str_eq(v, "the CPU: the agent's busiest receiving thread used 96 % of a core");
	c.metric_max[NB_COL_CPU_PEER_RX_THREAD_PCT] = 50;
	c.metric_max[NB_COL_HOST_CPU_LOCAL_PCT] = 95;
	nb_case_bottleneck(&c, v, sizeof(v));
	cr_expect(strncmp(v, "the client host's CPU: 95 % busy", 32) == 0, "%s", v);
	c.metric_max[NB_COL_HOST_CPU_LOCAL_PCT] = 30;
	c.metric_mean[NB_COL_RETRANS] = 1234;
	nb_case_bottleneck(&c, v, sizeof(v));
	cr_expect(strncmp(v, "the path or a queue between the ends: TCP retransmitted 1234", 60) == 0, "%s", v);
	c.metric_mean[NB_COL_RETRANS] = 0;
	nb_case_bottleneck(&c, v, sizeof(v));
	cr_expect_str_eq(v, "unknown: no thread at a core, no busy host, no retransmission");
	c.value.n = 0;
	cr_expect_not(nb_case_bottleneck(&c, v, sizeof(v)), "no counted run, no sentence");
}
