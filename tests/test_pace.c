/* The pacer's rule (nb_pacer_due, nb_pace_*), fed with times: no clock, no sleep, exact numbers.
 * A case is a script of steps against one pacer started at T0: "due at t with max" expects
 * how many may leave (or 0 and how long to wait), "sent k" reports what left. The burst is a
 * time: at 1000 packets/s a burst of 3 ms holds the 4 packets due within 3 ms of the first. A
 * case's timer is punctual unless it says how late (lead): then the batch leaves room for it. */
#include <criterion/criterion.h>

#include "pace.h"

#define T0 1000000000ull /* the pacer's start; later than the 10 ms of forgivable debt */
#define MS 1000000ull
#define US 1000ull
#define END { 0, 0, 0, 0, 0 }
/* 1400 B datagrams at a bit rate, as the stream engine paces them: rate / (8 * 1400) per s. */
#define DGRAM_DEN (8ull * 1400)

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
	uint64_t rate;           /* num of the rate: packets/s, or bits/s with den = DGRAM_DEN */
	uint64_t burst_ns;
	struct step steps[16];
	uint64_t den;            /* 1 for packets/s */
	uint64_t lead;           /* the timer's lateness, ns */
};

static void run_case(const struct pace_case *c)
{
	struct nb_pacer p;
	nb_pacer_init(&p, c->rate, c->den, c->burst_ns, T0);
	nb_pacer_set_lead(&p, c->lead);
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

/* 1000 packets/s with a burst shorter than the interval: one packet, one every millisecond. */
Test(pace, releases_one_packet_per_send_time_on_schedule)
{
	static const struct pace_case c = { "on schedule", 1000, MS / 2, {
		{ DUE, 0, 64, 1, 0 }, { SENT, 0, 1, 0, 0 },
		{ DUE, MS / 2, 64, 0, MS / 2 },
		{ DUE, MS, 64, 1, 0 }, { SENT, 0, 1, 0, 0 },
		{ DUE, 2 * MS - 1, 64, 0, 1 },
		{ DUE, 2 * MS, 64, 1, 0 },
		END }, 1, 0 };
	run_case(&c);
}

/* The burst is a time: the packets due within it of the first, one at least (a burst shorter
 * than the interval is one packet, sent on its own time); faster than 1e9/s, the most. */
Test(pace, a_burst_holds_the_packets_due_within_its_time)
{
	static const struct { uint64_t burst_ns, interval_ns; uint32_t want; } cases[] = {
		{ MS, MS, 2 }, { MS - 1, MS, 1 }, { 2 * MS - 1, MS, 2 }, { 2 * MS, MS, 3 },
		{ 0, 112000, 1 },
		{ 250 * US, 1120000, 1 },   /* the default at 10 Mbit/s of 1400 B */
		{ 250 * US, 112000, 3 },    /* 100 Mbit/s */
		{ 250 * US, 11200, 23 },    /* 1 Gbit/s */
		{ MS, 11200, 90 },
		{ 10 * MS, 1, NB_PACE_BURST_MAX }, { MS, 0, NB_PACE_BURST_MAX },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_pace_burst_of(cases[i].burst_ns, cases[i].interval_ns), cases[i].want,
			     "burst %llu ns, interval %llu ns", (unsigned long long)cases[i].burst_ns,
			     (unsigned long long)cases[i].interval_ns);
}

/* A wake-up waits for as much of the burst as the timer's lateness leaves: late by L it finds
 * ⌊L / interval⌋ more due, so that many stay out of the batch; a punctual timer waits for the
 * whole burst, a timer later than the burst's time for one packet. */
Test(pace, the_batch_is_the_burst_less_the_timers_lateness)
{
	static const struct { uint32_t burst; uint64_t interval, late; uint32_t want; } cases[] = {
		{ 3, 112000, 0, 3 },        /* 100 Mbit/s, 250 us: a punctual timer */
		{ 3, 112000, 111999, 3 },   /* late by less than an interval: still all of it */
		{ 3, 112000, 112000, 2 },
		{ 3, 112000, 223999, 2 },
		{ 3, 112000, 224000, 1 },
		{ 3, 112000, 400000, 1 },   /* later than the burst's time: one (and a spin) */
		{ 23, 11200, 30000, 21 },   /* 1 Gbit/s, 250 us, a VM's timer 30 us late */
		{ 23, 11200, 100000, 15 },
		{ 1, 1120000, 200000, 1 },  /* 10 Mbit/s: one packet, whatever the lateness */
		{ 23, 0, 5000, 23 },        /* faster than 1e9/s */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_pace_batch_of(cases[i].burst, cases[i].interval, cases[i].late),
			     cases[i].want, "burst %u, interval %llu, %llu ns late", cases[i].burst,
			     (unsigned long long)cases[i].interval, (unsigned long long)cases[i].late);
	static const struct { uint64_t num, den, burst_ns; uint32_t burst, batch; } rates[] = {
		{ 1000, 1, MS, 2, 2 },
		{ 10000000, DGRAM_DEN, 250 * US, 1, 1 },
		{ 100000000, DGRAM_DEN, 250 * US, 3, 3 },
		{ 1000000000, DGRAM_DEN, 250 * US, 23, 23 },
		{ 10000000000ull, DGRAM_DEN, 10 * MS, 8929, 8929 },
		{ 2000000000, 1, MS, NB_PACE_BURST_MAX, NB_PACE_BURST_MAX }, /* < 1 ns apart */
		{ 0, 1, MS, 1, 1 },                                           /* unpaced */
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, rates[i].num, rates[i].den, rates[i].burst_ns, T0);
		cr_expect(p.burst == rates[i].burst && p.batch == rates[i].batch,
			  "%llu/%llu per s, burst %llu ns: burst %u batch %u, expected %u and %u",
			  (unsigned long long)rates[i].num, (unsigned long long)rates[i].den,
			  (unsigned long long)rates[i].burst_ns, p.burst, p.batch, rates[i].burst,
			  rates[i].batch);
	}
}

/* 9.5 ms late at 1000/s, 10 packets are due: 4 (a 3 ms burst) leave; with max 3 the fourth
 * leaves at the next call, at once (a release larger than a send call); a burst above the debt
 * releases all that is due (a timer 5 ms late: batch 5 of a burst of 10). */
Test(pace, a_late_wake_up_releases_at_most_the_burst)
{
	static const struct pace_case cases[] = {
		{ "burst cap", 1000, 3 * MS, { { DUE, 9 * MS + MS / 2, 64, 4, 0 }, END }, 1, 0 },
		{ "max cap", 1000, 3 * MS, {
			{ DUE, 9 * MS + MS / 2, 3, 3, 0 }, { SENT, 0, 3, 0, 0 },
			{ DUE, 9 * MS + MS / 2, 64, 1, 0 }, { SENT, 0, 1, 0, 0 }, /* the rest, no wait */
			{ DUE, 9 * MS + MS / 2, 64, 0, 2 * MS },                  /* then the gate */
			END }, 1, 0 },
		{ "burst above debt", 1000, 9 * MS, { { DUE, 7 * MS + MS / 2, 64, 8, 0 }, END }, 1,
		  5 * MS },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The debt left after a capped release is paid at twice the rate: 4 packets, then a gate
 * 4 x 1 ms / 2 = 2 ms later, until the schedule is caught up (16 packets due by 15.5 ms); then
 * the next batch (4 of a 3 ms burst) waits for its last packet, at 19 ms. */
Test(pace, debt_is_paid_back_at_twice_the_rate)
{
	static const struct pace_case c = { "gate", 1000, 3 * MS, {
		{ DUE, 9 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 9 * MS + MS / 2, 64, 0, 2 * MS },  /* the gate, not the schedule (7 ms) */
		{ DUE, 11 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 13 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 },
		{ DUE, 15 * MS + MS / 2, 64, 4, 0 }, { SENT, 0, 4, 0, 0 }, /* due 4: no gate left */
		{ DUE, 15 * MS + MS / 2, 64, 0, 3 * MS + MS / 2 },     /* back on schedule */
		END }, 1, 0 };
	run_case(&c);
}

/* 30 ms late: only 10 ms of debt is owed, the schedule restarting 10 ms behind now (20 send
 * times forgiven): a burst of 10 leaves, and the next batch is the packets of 30..39 ms. Exactly
 * 10 ms late is still owed in full: the same, 20 ms earlier. */
Test(pace, debt_older_than_10_ms_is_forgiven)
{
	static const struct pace_case cases[] = {
		{ "30 ms late", 1000, 9 * MS, {
			{ DUE, 30 * MS, 64, 10, 0 }, { SENT, 0, 10, 0, 0 },
			{ DUE, 30 * MS, 64, 0, 9 * MS },
			{ DUE, 39 * MS, 64, 10, 0 },
			END }, 1, 0 },
		{ "10 ms late", 1000, 9 * MS, {
			{ DUE, 10 * MS, 64, 10, 0 }, { SENT, 0, 10, 0, 0 },
			{ DUE, 10 * MS, 64, 0, 9 * MS },
			{ DUE, 19 * MS, 64, 10, 0 },
			END }, 1, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

Test(pace, unpaced_releases_max_at_once_and_keeps_no_schedule)
{
	static const struct pace_case c = { "unpaced", 0, MS, {
		{ DUE, 0, 64, 64, 0 }, { SENT, 0, 64, 0, 0 },
		{ DUE, 0, 7, 7, 0 }, { SENT, 0, 7, 0, 0 },
		{ DUE, 0, 1, 1, 0 },
		END }, 1, 0 };
	run_case(&c);
}

/* A sender that wakes exactly when told and sends what is due sends rate packets in one second
 * of schedule (the next send time lands on T0 + 1 s exactly, for rates that do not divide 1e9
 * too), never more than a batch at once. */
Test(pace, the_long_run_rate_is_exact)
{
	static const struct { uint64_t rate, burst_ns; } cases[] = {
		{ 3000, MS }, { 7, MS }, { 999983, 16 * US }, { 1000, 4 * MS },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, cases[i].rate, 1, cases[i].burst_ns, T0);
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

/* Wake-ups per second, the pacer's CPU: a sender on time wakes fewer than once per
 * (burst - lateness) of time at every rate from 10 kbit/s to 100 Gbit/s of 1400 B datagrams
 * (a punctual timer: once per burst time; at a low rate once per datagram), and never sends
 * more than a batch at once. Over 100 ms of schedule. */
Test(pace, the_wake_rate_stays_below_one_per_burst_less_lateness_at_every_rate)
{
	static const uint64_t bursts[] = { NB_PACE_BURST_DEFAULT_NS, MS, 5 * MS };
	const uint64_t span = 100 * MS;
	for (size_t b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
		for (uint64_t late = 0; late <= bursts[b] / 2; late += bursts[b] / 2)
			for (uint64_t bits = 10000; bits <= 100000000000ull; bits = bits * 3 + 7) {
				struct nb_pacer p;
				nb_pacer_init(&p, bits, DGRAM_DEN, bursts[b], T0);
				nb_pacer_set_lead(&p, late);
				uint64_t now = T0, wakes = 0, sent = 0, wait;
				while (now < T0 + span) {
					uint32_t n = nb_pacer_due(&p, now, 64, &wait);
					nb_pacer_sent(&p, n);
					sent += n;
					wakes += n ? 0 : 1;
					now += wait;
				}
				uint64_t bound = span / (bursts[b] - late - 1) + 1;
				cr_expect_leq(wakes, bound < sent + 1 ? bound : sent + 1,
					      "%llu bit/s, burst %llu ns, %llu ns late: %llu wake-ups for "
					      "%llu datagrams", (unsigned long long)bits,
					      (unsigned long long)bursts[b], (unsigned long long)late,
					      (unsigned long long)wakes, (unsigned long long)sent);
				cr_expect_eq(p.max_run, p.batch, "%llu bit/s", (unsigned long long)bits);
			}
}

/* A wake-up late by up to the slack finds at most the burst due: (burst - batch + 1) intervals,
 * less 1 ns. */
Test(pace, the_slack_is_the_lateness_that_still_finds_one_burst)
{
	static const struct { uint32_t burst, batch; uint64_t interval, want; } cases[] = {
		{ 1, 1, 1120000, 1119999 },     /* 10 Mbit/s, one datagram: an interval */
		{ 3, 3, 112000, 111999 },       /* 100 Mbit/s, 250 us, a punctual timer */
		{ 3, 1, 112000, 335999 },       /* the same, batch 1: the burst's time */
		{ 23, 21, 11200, 33599 },       /* 1 Gbit/s, 250 us, a timer 30 us late */
		{ 23, 1, 11200, 257599 },
		{ 4, 3, 0, 0 },                 /* unpaced */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_pace_slack_ns(cases[i].burst, cases[i].batch, cases[i].interval),
			     cases[i].want, "burst %u batch %u interval %llu", cases[i].burst,
			     cases[i].batch, (unsigned long long)cases[i].interval);
}

/* 100 kpps (10 us apart), a 70 us burst: 8 packets; a timer 25 us late leaves a batch of 6 and a
 * slack of 30 us - 1 ns. The wake-up waits for the batch's last send time (50 us), never sends
 * early, and a wake-up as late as the slack still sends one burst, with no gate. */
Test(pace, a_batch_leaves_when_its_last_packet_is_due)
{
	static const struct pace_case c = { "batch", 100000, 70 * US, {
		{ DUE, 0, 64, 0, 50000 },
		{ DUE, 49999, 64, 0, 1 },
		{ DUE, 50000, 64, 6, 0 }, { SENT, 0, 6, 0, 0 },
		{ DUE, 50000, 64, 0, 60000 },            /* next batch: packets 6..11, last at 110 us */
		{ DUE, 139999, 64, 8, 0 }, { SENT, 0, 8, 0, 0 }, /* the slack late: 8 due, one burst */
		{ DUE, 139999, 64, 0, 50001 },           /* back on schedule (190 us), no gate */
		END }, 1, 25 * US };
	run_case(&c);
}

/* 1 Gbit/s of 1400 B, a 1 ms burst: 90 datagrams, all of them one batch for a punctual timer. A
 * release larger than a send call (46 with GSO, 16 with sendmmsg) takes the next calls at once,
 * with no wait between them. */
Test(pace, a_release_larger_than_a_send_call_takes_the_next_calls_at_once)
{
	static const struct pace_case cases[] = {
		{ "on time, GSO", 1000000000, MS, {
			{ DUE, 0, 46, 0, 89 * 11200 },
			{ DUE, 89 * 11200, 46, 46, 0 }, { SENT, 0, 46, 0, 0 },
			{ DUE, 89 * 11200, 46, 44, 0 }, { SENT, 0, 44, 0, 0 },
			{ DUE, 89 * 11200, 46, 0, 90 * 11200 }, /* the next batch, at 179 x 11.2 us */
			END }, DGRAM_DEN, 0 },
		{ "the slack late, sendmmsg", 1000000000, MS, {
			{ DUE, 90 * 11200 - 1, 16, 16, 0 }, { SENT, 0, 16, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 16, 0 }, { SENT, 0, 16, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 16, 0 }, { SENT, 0, 16, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 16, 0 }, { SENT, 0, 16, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 16, 0 }, { SENT, 0, 16, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 10, 0 }, { SENT, 0, 10, 0, 0 },
			{ DUE, 90 * 11200 - 1, 16, 0, 89 * 11200 + 1 },
			END }, DGRAM_DEN, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The rule that decides sleep or spin, from a given lateness: the part of the timer's lateness
 * the slack cannot absorb is spun before the deadline, none when it fits. */
Test(pace, spinning_is_only_for_lateness_beyond_the_slack)
{
	static const struct { uint64_t slack, late, want; } cases[] = {
		{ 335999, 60000, 0 },       /* 100 Mbit/s, 250 us, even a batch of one */
		{ 257599, NB_PACE_MAX_LEAD_NS, 0 }, /* 1 Gbit/s, 250 us, the most lateness counted */
		{ 11199, 60000, 48801 },    /* 1 Gbit/s, a burst of 0 (one datagram): spin the rest */
		{ 0, 0, 0 }, { 5000, 5000, 0 }, { 5000, 5001, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_pace_spin_ns(cases[i].slack, cases[i].late), cases[i].want,
			     "slack %llu, lateness %llu", (unsigned long long)cases[i].slack,
			     (unsigned long long)cases[i].late);
}

/* With the default burst no wait is spun at 10M, 100M or 1G, however late the timer (up to the
 * most lateness counted): every wait is slept, a short one too. A burst shorter than the
 * lateness spins what the slack cannot absorb, and a wait within that is spun whole. */
Test(pace, the_default_burst_sleeps_every_wait_and_a_short_burst_spins_the_rest)
{
	static const uint64_t bits[] = { 10000000, 100000000, 1000000000 };
	static const uint64_t leads[] = { 0, 60000, NB_PACE_MAX_LEAD_NS };
	static const uint64_t waits[] = { 1, 1000, 100000, 5 * MS };
	for (size_t r = 0; r < 3; r++)
		for (size_t l = 0; l < 3; l++)
			for (size_t w = 0; w < 4; w++) {
				struct nb_pacer p;
				nb_pacer_init(&p, bits[r], DGRAM_DEN, NB_PACE_BURST_DEFAULT_NS, T0);
				nb_pacer_set_lead(&p, leads[l]);
				cr_expect_eq(nb_pacer_sleep_ns(&p, waits[w]), waits[w],
					     "%llu bit/s, lead %llu", (unsigned long long)bits[r],
					     (unsigned long long)leads[l]);
			}
	static const struct { uint64_t wait, want; } shorter[] = {
		{ 100000, 100000 - 48801 }, { 48801, 0 }, { 48802, 1 },
	};
	for (size_t i = 0; i < sizeof(shorter) / sizeof(shorter[0]); i++) {
		struct nb_pacer p;
		nb_pacer_init(&p, 1000000000, DGRAM_DEN, 0, T0); /* one datagram: slack 11.2 us - 1 */
		nb_pacer_set_lead(&p, 60000);
		cr_expect_eq(nb_pacer_sleep_ns(&p, shorter[i].wait), shorter[i].want, "wait %llu",
			     (unsigned long long)shorter[i].wait);
	}
}

/* The lead is a moving average (1/8) of the lateness, a stalled sleep counted as 200 us; the
 * batch follows it. */
Test(pace, the_lead_follows_the_measured_lateness_and_the_batch_the_lead)
{
	struct nb_pacer p;
	nb_pacer_init(&p, 100000, 1, 70 * US, T0); /* 10 us apart, a burst of 8 */
	cr_expect_eq(p.batch, 8, "a punctual timer: the whole burst");
	nb_pacer_woke(&p, 80000);
	cr_expect_eq(p.lead_ns, 10000);
	cr_expect_eq(p.batch, 7, "10 us late: 1 more due, a batch of 7");
	nb_pacer_woke(&p, 5000000); /* a 5 ms stall: 200 us */
	cr_expect_eq(p.lead_ns, 10000 + (200000 - 10000) / 8);
	cr_expect_eq(p.batch, 5, "33.75 us late: 3 more due, a batch of 5");
	for (int i = 0; i < 200; i++)
		nb_pacer_woke(&p, 0);
	cr_expect_lt(p.lead_ns, 8, "a punctual timer brings the lead to ~0");
	cr_expect_eq(p.batch, 8);
}

/* The largest release so far is what the engines report as max_burst. */
Test(pace, the_largest_release_is_remembered)
{
	struct nb_pacer p;
	uint64_t wait;
	nb_pacer_init(&p, 1000, 1, 7 * MS, T0); /* a burst of 8 */
	nb_pacer_set_lead(&p, 2 * MS + MS / 2);  /* batch 6 */
	cr_assert_eq(nb_pacer_due(&p, T0 + 7 * MS + MS / 2, 64, &wait), 8);
	nb_pacer_sent(&p, 8);
	cr_assert_eq(nb_pacer_due(&p, T0 + 13 * MS, 64, &wait), 6);
	cr_assert_eq(p.max_run, 8);
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
		nb_pacer_init(&p, cases[i].rate, 1, 9 * MS, T0);
		uint32_t n = nb_pacer_due(&p, T0 + cases[i].late_ms * MS, 64, &wait);
		nb_pacer_sent(&p, n);
		cr_expect_eq(p.forgiven, cases[i].want, "case %zu: %llu forgiven", i,
			     (unsigned long long)p.forgiven);
	}
	struct nb_pacer p;
	uint64_t wait;
	nb_pacer_init(&p, 1000, 1, 9 * MS, T0);
	nb_pacer_sent(&p, nb_pacer_due(&p, T0 + 30 * MS, 64, &wait)); /* 10 sent: next at 30 ms */
	nb_pacer_sent(&p, nb_pacer_due(&p, T0 + 80 * MS, 64, &wait)); /* 50 ms late: 40 forgiven */
	cr_expect_eq(p.forgiven, 20 + 40, "a second stall adds to the count");
}
/* A bit rate paces datagrams of `size` bytes at rate / (8 · size) per second, as that fraction:
 * datagram k is due at exactly T0 + ⌊k · 8 · size · 1e9 / rate⌋ ns (the exact time truncated
 * to the ns, with no error that adds up). Rounding the rate to whole
 * datagrams per second sent 50 kbit/s of 1400 B datagrams at 5/s, 56 kbit/s (+12 %). Every
 * target from 10 kbit/s up lands within 0.5 % of its rate over the run (here exactly, to 1 ns
 * per datagram); the wall clock's share of the error is scripts/bench-udprate's to show. A burst
 * of 0 is one datagram at a time, each on its own send time. */
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
		nb_pacer_init(&p, bits, den, 0, T0);
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

/* Each release records its oldest packet's send time and when it left (the caller records the
 * difference as the flow's schedule lag): on schedule the lag is the batch's wait, after a stall
 * the whole stall, forgiven debt included; a release not yet taken stays marked new. */
Test(pace, each_release_records_how_far_behind_its_oldest_packet_is)
{
	struct nb_pacer p;
	nb_pacer_init(&p, 1000, 1, 0, T0); /* 1000/s, a burst of one packet */
	uint64_t wait;
	cr_assert_eq(nb_pacer_due(&p, T0, 8, &wait), 1u);
	cr_expect(p.lag_new);
	cr_expect_eq(p.lag_at_ns - p.lag_due_ns, 0u, "on schedule");
	p.lag_new = false;
	nb_pacer_sent(&p, 1);
	cr_assert_eq(nb_pacer_due(&p, T0 + 7 * MS + 300 * US, 8, &wait), 1u);
	cr_expect(p.lag_new);
	cr_expect_eq(p.lag_at_ns - p.lag_due_ns, 6 * MS + 300 * US, "the packet due at 1 ms left at 7.3");
	nb_pacer_sent(&p, 1);
	cr_assert_eq(nb_pacer_due(&p, T0 + 40 * MS, 8, &wait), 1u);
	cr_expect_eq(p.lag_at_ns - p.lag_due_ns, 38 * MS, "due at 2 ms, left at 40: forgiven or not");
}
