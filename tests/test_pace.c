/* The pacer's rule (nb_pacer_due), fed with times: no clock, no sleep, exact numbers.
 * A case is a script of steps against one pacer started at T0: "due at t with max" expects
 * how many may leave (or 0 and how long to wait), "sent k" reports what left. */
#include <criterion/criterion.h>

#include "pace.h"

#define T0 1000000000ull /* the pacer's start; later than the 10 ms of forgivable debt */
#define MS 1000000ull
#define END { 0, 0, 0, 0, 0 }

enum op { DUE = 1, SENT };

struct step {
	enum op op;
	uint64_t t;          /* DUE: ns after T0 */
	uint32_t arg;        /* DUE: max; SENT: packets sent */
	uint32_t want_n;     /* DUE: packets released */
	uint64_t want_wait;  /* DUE: ns to wait when none may leave */
};

struct pace_case {
	const char *name;
	uint64_t rate;
	uint32_t burst;
	struct step steps[12];
};

static void run_case(const struct pace_case *c)
{
	struct nb_pacer p;
	nb_pacer_init(&p, c->rate, 1, c->burst, T0);
	for (size_t i = 0; c->steps[i].op; i++) {
		const struct step *s = &c->steps[i];
		if (s->op == SENT) {
			nb_pacer_sent(&p, s->arg);
			continue;
		}
		uint64_t wait = 12345;
		uint32_t n = nb_pacer_due(&p, T0 + s->t, s->arg, &wait);
		cr_expect_eq(n, s->want_n, "%s, step %zu: %u released, expected %u", c->name, i, n,
			     s->want_n);
		cr_expect_eq(wait, s->want_wait, "%s, step %zu: wait %llu ns, expected %llu", c->name,
			     i, (unsigned long long)wait, (unsigned long long)s->want_wait);
	}
}

/* 1000 packets/s: one every millisecond. */
Test(pace, releases_one_packet_per_send_time_on_schedule)
{
	static const struct pace_case c = { "on schedule", 1000, 4, {
		{ DUE, 0, 64, 1, 0 }, { SENT, 0, 1, 0, 0 },
		{ DUE, MS / 2, 64, 0, MS / 2 },
		{ DUE, MS, 64, 1, 0 }, { SENT, 0, 1, 0, 0 },
		{ DUE, 2 * MS - 1, 64, 0, 1 },
		{ DUE, 2 * MS, 64, 1, 0 },
		END } };
	run_case(&c);
}

/* 9.5 ms late, 10 packets are due: 4 (the burst) leave, or max when it is smaller. */
Test(pace, a_late_wake_up_releases_at_most_the_burst_and_at_most_max)
{
	static const struct pace_case cases[] = {
		{ "burst cap", 1000, 4, { { DUE, 9 * MS + MS / 2, 64, 4, 0 }, END } },
		{ "max cap", 1000, 4, { { DUE, 9 * MS + MS / 2, 3, 3, 0 }, END } },
		{ "burst above debt", 1000, 64, { { DUE, 9 * MS + MS / 2, 64, 10, 0 }, END } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The debt left after a capped release is paid at twice the rate: 4 packets, then a gate
 * 4 x 1 ms / 2 = 2 ms later, until the schedule is caught up (16 packets due by 15.5 ms). */
Test(pace, debt_is_paid_back_at_twice_the_rate)
{
	static const struct pace_case c = { "gate", 1000, 4, {
		{ DUE, 9 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 9 * MS + MS / 2, 64, 0, 2 * MS },  /* the gate, not the schedule (4 ms) */
		{ DUE, 11 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 13 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 15 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 }, /* due 4: no gate left */
		{ DUE, 15 * MS + MS / 2, 64, 0, MS / 2 },              /* back on schedule: 16 ms */
		END } };
	run_case(&c);
}

/* 30 ms late: only 10 ms of debt is owed (10 packets + the one due now), and the schedule
 * moves up to 10 ms behind now; exactly 10 ms late is still owed in full. */
Test(pace, debt_older_than_10_ms_is_forgiven)
{
	static const struct pace_case cases[] = {
		{ "30 ms late", 1000, 64, {
			{ DUE, 30 * MS, 64, 11, 0 }, { SENT, 0, 11, 0, 0 },
			{ DUE, 30 * MS, 64, 0, MS },
			END } },
		{ "10 ms late", 1000, 64, {
			{ DUE, 10 * MS, 64, 11, 0 }, { SENT, 0, 11, 0, 0 },
			{ DUE, 10 * MS, 64, 0, MS },
			END } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

Test(pace, unpaced_releases_max_at_once_and_keeps_no_schedule)
{
	static const struct pace_case c = { "unpaced", 0, 4, {
		{ DUE, 0, 64, 64, 0 }, { SENT, 0, 64, 0, 0 },
		{ DUE, 0, 7, 7, 0 }, { SENT, 0, 7, 0, 0 },
		{ DUE, 0, 1, 1, 0 },
		END } };
	run_case(&c);
}

/* A sender that wakes exactly when told and sends what is due sends rate packets in one second
 * of schedule (the next send time lands on T0 + 1 s exactly, for rates that do not divide 1e9
 * too), never more than a batch at once. */
Test(pace, the_long_run_rate_is_exact)
{
	static const struct { uint64_t rate; uint32_t burst; } cases[] = {
		{ 3000, 2 }, { 7, 2 }, { 999983, 16 }, { 1000, 4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, cases[i].rate, 1, cases[i].burst, T0);
		uint64_t now = T0, sent = 0, wait;
		while (sent < cases[i].rate) {
			uint64_t left = cases[i].rate - sent;
			uint32_t n = nb_pacer_due(&p, now, left < 64 ? (uint32_t)left : 64, &wait);
			nb_pacer_sent(&p, n);
			sent += n;
			now += n ? 0 : wait;
		}
		cr_expect_lt(now, T0 + 1000 * MS + p.batch * p.interval_ns,
			     "rate %llu: the last batch left at +%llu ns", (unsigned long long)cases[i].rate,
			     (unsigned long long)(now - T0));
		cr_expect_eq(p.next_ns, T0 + 1000 * MS, "rate %llu: schedule at %llu",
			     (unsigned long long)cases[i].rate, (unsigned long long)p.next_ns);
		cr_expect_eq(p.max_run, p.batch, "on schedule, one batch at a time");
	}
}

/* The batch is the packets in 50 us of the schedule, at most half the burst, at least one. */
Test(pace, the_batch_follows_the_rate_and_leaves_half_the_burst_as_slack)
{
	static const struct { uint64_t rate; uint32_t burst, want; } cases[] = {
		{ 1000, 4, 1 },      /* 1 ms apart: one per wake-up */
		{ 20000, 4, 1 },     /* 50 us apart: one */
		{ 80000, 16, 4 },    /* 12.5 us apart: 4 in 50 us */
		{ 80000, 6, 3 },     /* half of 6 */
		{ 1000000, 16, 8 },  /* 50 would fit: half the burst */
		{ 1000000, 1, 1 },   /* a burst of 1: one */
		{ 0, 16, 1 },        /* unpaced: no batch */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, cases[i].rate, 1, cases[i].burst, T0);
		cr_expect_eq(p.batch, cases[i].want, "rate %llu burst %u: batch %u, expected %u",
			     (unsigned long long)cases[i].rate, cases[i].burst, p.batch, cases[i].want);
	}
}

/* 100 kpps (10 us apart), burst 8: batch 4. The wake-up waits for the batch's last send time
 * (30 us), never sends early, and a wake-up 40 us late (the slack) still sends one burst. */
Test(pace, a_batch_leaves_when_its_last_packet_is_due)
{
	static const struct pace_case c = { "batch", 100000, 8, {
		{ DUE, 0, 64, 0, 30000 },
		{ DUE, 29999, 64, 0, 1 },
		{ DUE, 30000, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 30000, 64, 0, 40000 },            /* next batch: packets 4..7, last at 70 us */
		{ DUE, 110000, 64, 8, 0 }, { SENT, 0, 8, 0, 0 }, /* 40 us late: 8 due, one burst */
		{ DUE, 110000, 64, 0, 40000 },           /* back on schedule, no gate */
		END } };
	run_case(&c);
}

/* How much of a wait is slept: all of it while the measured lateness fits in the slack; the
 * part of the lateness beyond the slack is spun, and so is a wait within NB_PACE_SPIN_NS. */
Test(pace, the_sleep_leaves_only_lateness_beyond_the_slack_to_spin)
{
	static const struct { uint64_t lead, wait, want; } cases[] = {
		{ 0, 100000, 100000 },              /* a punctual timer: sleep it all */
		{ 30000, 100000, 100000 },          /* 30 us late < 40 us slack: still all */
		{ 60000, 100000, 80000 },           /* 20 us beyond the slack: spin those */
		{ 0, NB_PACE_SPIN_NS, 0 },          /* that close: spin */
		{ 0, NB_PACE_SPIN_NS + 1, NB_PACE_SPIN_NS + 1 },
		{ 60000, 20000 + NB_PACE_SPIN_NS, 0 }, /* the early part and the spin cover it */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, 100000, 1, 8, T0); /* 10 us apart, batch 4: slack 4 x 10 us */
		p.lead_ns = cases[i].lead;
		cr_expect_eq(nb_pacer_sleep_ns(&p, cases[i].wait), cases[i].want,
			     "lead %llu, wait %llu", (unsigned long long)cases[i].lead,
			     (unsigned long long)cases[i].wait);
	}
}

/* The lead is a moving average (1/8) of the lateness, a stalled sleep counted as 200 us. */
Test(pace, the_lead_follows_the_measured_lateness)
{
	struct nb_pacer p;
	nb_pacer_init(&p, 100000, 1, 8, T0);
	nb_pacer_woke(&p, 80000);
	cr_expect_eq(p.lead_ns, 10000);
	nb_pacer_woke(&p, 5000000); /* a 5 ms stall: 200 us */
	cr_expect_eq(p.lead_ns, 10000 + (200000 - 10000) / 8);
	for (int i = 0; i < 200; i++)
		nb_pacer_woke(&p, 0);
	cr_expect_lt(p.lead_ns, 8, "a punctual timer brings the lead to ~0");
}

/* The largest release so far is what the engines report as max_burst. */
Test(pace, the_largest_release_is_remembered)
{
	struct nb_pacer p;
	uint64_t wait;
	nb_pacer_init(&p, 1000, 1, 8, T0);
	cr_assert_eq(nb_pacer_due(&p, T0 + 5 * MS, 64, &wait), 6);
	nb_pacer_sent(&p, 6);
	cr_assert_eq(nb_pacer_due(&p, T0 + 6 * MS, 64, &wait), 1);
	cr_assert_eq(p.max_run, 6);
}

/* Forgiven debt is counted in send times: 30 ms late at 1000/s forgives the 20 beyond 10 ms;
 * exactly 10 ms late forgives nothing; an unpaced sender never owes anything. */
Test(pace, forgiven_send_times_are_counted)
{
	static const struct { uint64_t rate, late_ms, want; } cases[] = {
		{ 1000, 30, 20 }, { 1000, 10, 0 }, { 1000, 11, 1 }, { 4000, 60, 200 }, { 0, 60, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_pacer p;
		uint64_t wait;
		nb_pacer_init(&p, cases[i].rate, 1, 64, T0);
		uint32_t n = nb_pacer_due(&p, T0 + cases[i].late_ms * MS, 64, &wait);
		nb_pacer_sent(&p, n);
		cr_expect_eq(p.forgiven, cases[i].want, "case %zu: %llu forgiven", i,
			     (unsigned long long)p.forgiven);
	}
	struct nb_pacer p;
	uint64_t wait;
	nb_pacer_init(&p, 1000, 1, 64, T0);
	nb_pacer_sent(&p, nb_pacer_due(&p, T0 + 30 * MS, 64, &wait)); /* 11 sent: next at 31 ms */
	nb_pacer_sent(&p, nb_pacer_due(&p, T0 + 80 * MS, 64, &wait)); /* 49 ms late: 39 forgiven */
	cr_expect_eq(p.forgiven, 20 + 39, "a second stall adds to the count");
}

/* A bit rate paces datagrams of `size` bytes at rate / (8 · size) per second, as that fraction:
 * datagram k is due at exactly T0 + ⌊k · 8 · size · 1e9 / rate⌋ ns (the exact time truncated
 * to the ns, with no error that adds up). Rounding the rate to whole
 * datagrams per second sent 50 kbit/s of 1400 B datagrams at 5/s, 56 kbit/s (+12 %). Every
 * target from 10 kbit/s up lands within 0.5 % of its rate over the run (here exactly, to 1 ns
 * per datagram); the wall clock's share of the error is scripts/bench-udprate's to show. */
Test(pace, a_bit_rate_is_paced_in_bits_not_in_whole_datagrams_per_second)
{
	static const struct { uint64_t bits; uint32_t size; } cases[] = {
		{ 10000, 1400 }, { 50000, 1400 }, { 1000000, 1400 }, { 999983, 1400 },
		{ 10000, 24 }, { 123456789, 1400 }, { 1000000000, 1400 }, { 1000000, 65507 },
		{ 100000000000ull, 9000 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t bits = cases[i].bits, den = 8ull * cases[i].size;
		struct nb_pacer p;
		nb_pacer_init(&p, bits, den, 2, T0);
		uint64_t now = T0, k = 0, wait;
		for (; k < 2000; now += wait) {
			uint32_t n = nb_pacer_due(&p, now, 1, &wait);
			if (!n)
				continue;
			unsigned __int128 exact = (unsigned __int128)k * den * 1000000000u;
			uint64_t due = T0 + (uint64_t)(exact / bits);
			cr_assert_eq(now, due, "%llu bit/s, %u B: datagram %llu at +%llu ns, due +%llu",
				     (unsigned long long)bits, cases[i].size, (unsigned long long)k,
				     (unsigned long long)(now - T0), (unsigned long long)(due - T0));
			nb_pacer_sent(&p, 1);
			k++;
		}
		double rate = (double)(k - 1) * (double)den * 1e9 / (double)(now - T0);
		cr_expect(rate <= (double)bits * 1.005 && rate >= (double)bits * 0.995,
			  "%llu bit/s, %u B: %.1f bit/s over %llu datagrams", (unsigned long long)bits,
			  cases[i].size, rate, (unsigned long long)k);
	}
}
