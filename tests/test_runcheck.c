/* What a run's own readings hold against it (runner/control/runcheck.h), from readings written
 * by hand: a tick that came late (the measuring process stalled) and the gap it names; counters
 * that go back; the identities a flow's two ends must keep; a UDP run that received nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engines.h"
#include "runcheck.h"

#define MS 1000000ull
#define S 1000000000ull

static struct nb_snapshot *snap(uint64_t t_ns, uint32_t nflows)
{
	struct nb_snapshot *s = nb_snapshot_create(false);
	cr_assert_not_null(s);
	s->t_ns = t_ns;
	s->nflows = nflows;
	return s;
}

/* One end's readings of ticks 0 .. n-1 at these instants (its timeline starts at start). */
static void readings(struct nb_runcheck *rc, const struct nb_timeline *tl, int end,
		     uint64_t start, const uint64_t *at, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		struct nb_snapshot *s = snap(at[k], 1);
		nb_runcheck_reading(rc, tl, end, start, k, s);
		nb_snapshot_destroy(s);
	}
}

static void verdict_of(const uint64_t *at, uint32_t n, uint64_t interval, int end, uint64_t start,
		       struct nb_run_verdict *v)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, start, 0, 0, 5 * interval, interval);
	struct nb_runcheck rc;
	cr_assert(nb_runcheck_init(&rc, "client", "agent"));
	readings(&rc, &tl, end, start, at, n);
	struct nb_metrics m;
	nb_metrics_clear(&m);
	struct nb_params p = { .engine = "stream", .proto = NB_PROTO_TCP, .streams = 1 };
	nb_runcheck_verdict(&rc, &tl, &m, &p, &nb_engine_stream, &v[0]);
	nb_runcheck_free(&rc);
}

/* SIGSTOP for 2 s: tick 3 comes 1.49 s late, ticks 4 and 5 back to back after it. */
Test(runcheck, a_late_tick_is_a_stall_naming_its_gap)
{
	const uint64_t T0 = 100 * S;
	const uint64_t at[] = { T0, T0 + 1 * S, T0 + 2 * S, T0 + 4490 * MS, T0 + 4490 * MS + 340000,
				T0 + 5 * S };
	struct nb_run_verdict v;
	verdict_of(at, 6, S, 0, T0, &v);
	cr_expect_str_eq(v.stall, "the client's tick 3 came 1.49 s late, 2.49 s after tick 2 "
				  "(interval 1 s): its process did not run meanwhile");
	cr_expect_float_eq(v.stall_gap_s, 2.49, 1e-9);
	cr_expect(nb_run_verdict_any(&v));
}

/* On a loaded host the reading thread alone may wake late while the flows go on: their CPU
 * time keeps its pace over the late tick's gap, the counts hold. Flagged, still a result; the
 * same late tick with the threads stopped too (SIGSTOP) is no result. */
Test(runcheck, a_late_tick_whose_threads_kept_their_pace_is_a_note_not_a_stall)
{
	for (int stopped = 0; stopped < 2; stopped++) {
		struct nb_timeline tl;
		nb_timeline_init(&tl, 0, 0, 0, 5 * S, S);
		struct nb_runcheck rc;
		cr_assert(nb_runcheck_init(&rc, "client", "agent"));
		const uint64_t at[] = { 0, S, 2 * S, 3300 * MS, 4 * S, 5 * S };
		for (uint32_t k = 0; k < 6; k++) {
			struct nb_snapshot *s = snap(at[k], 1);
			/* 60 % of a core; stopped: no CPU time from tick 2 to the late tick 3 */
			uint64_t busy = stopped && k >= 3 ? at[k] - (at[3] - at[2]) : at[k];
			s->engine_cpu_ns = busy * 6 / 10;
			nb_runcheck_reading(&rc, &tl, 0, 0, k, s);
			nb_snapshot_destroy(s);
		}
		struct nb_metrics m;
		nb_metrics_clear(&m);
		struct nb_params p = { .engine = "stream", .proto = NB_PROTO_TCP, .streams = 1 };
		struct nb_run_verdict v;
		nb_runcheck_verdict(&rc, &tl, &m, &p, &nb_engine_stream, &v);
		cr_expect_float_eq(v.stall_gap_s, 1.3, 1e-9);
		cr_expect_eq(v.stalled, stopped, "stopped %d: %s", stopped, v.stall);
		cr_expect_eq(nb_run_verdict_any(&v), stopped);
		cr_expect(strstr(v.stall, stopped ? "its process did not run meanwhile"
						  : "its engine threads kept their pace meanwhile, so the "
						    "counts hold"), "%s", v.stall);
		nb_runcheck_free(&rc);
	}
}

/* An agent's stamps count from its own START; its stall is named as the agent's. */
Test(runcheck, the_agents_ticks_are_judged_on_its_own_clock)
{
	const uint64_t at[] = { 0, 1 * S, 2 * S, 3 * S, 6 * S, 6 * S + 1000 };
	struct nb_run_verdict v;
	verdict_of(at, 6, S, 1, 0, &v);
	cr_expect(strstr(v.stall, "the agent's tick 4 came 2 s late, 3 s after tick 3"), "%s", v.stall);
}

/* How late is late: more than 5 % of the interval and than 50 ms (a loaded scheduler's wake-up
 * is no stall); the ticks after the drain come back to back by design. */
Test(runcheck, the_tolerance_of_a_tick)
{
	static const struct { uint64_t interval, late; bool stall; const char *why; } t[] = {
		{ 1 * S, 40 * MS, false, "40 ms of a 1 s interval" },
		{ 1 * S, 60 * MS, true, "60 ms of a 1 s interval: above 5 % and 50 ms" },
		{ 100 * MS, 45 * MS, false, "45 ms of 100 ms: below the 50 ms floor" },
		{ 100 * MS, 60 * MS, true, "60 ms of 100 ms" },
		{ 10 * S, 400 * MS, false, "400 ms of 10 s: 4 %" },
		{ 10 * S, 600 * MS, true, "600 ms of 10 s: 6 %" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t I = t[i].interval;
		const uint64_t at[] = { 0, I, 2 * I + t[i].late, 3 * I, 4 * I, 5 * I };
		struct nb_run_verdict v;
		verdict_of(at, 6, I, 0, 0, &v);
		cr_expect_eq(v.stall[0] != '\0', t[i].stall, "%s: '%s'", t[i].why, v.stall);
	}
	/* ticks 6 and 7 settle the last intervals after the drain, back to back, seconds late */
	const uint64_t at[] = { 0, S, 2 * S, 3 * S, 4 * S, 5 * S, 9 * S, 9 * S + 1 };
	struct nb_run_verdict v;
	verdict_of(at, 8, S, 0, 0, &v);
	cr_expect_str_eq(v.stall, "");
}

static void two(struct nb_runcheck *rc, int end, struct nb_snapshot *a, struct nb_snapshot *b)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 0, 5 * S, S);
	nb_runcheck_reading(rc, &tl, end, 0, 0, a);
	nb_runcheck_reading(rc, &tl, end, 0, 1, b);
}

/* A cumulative counter never goes back: it is never taken for a wrap; a UDP receiver's live gap
 * count (lost) may. */
Test(runcheck, a_counter_that_goes_back_is_suspect)
{
	struct nb_snapshot *a = snap(0, 1), *b = snap(S, 1);
	a->flow[0].c[NB_C_RX_BYTES] = 5000;
	b->flow[0].c[NB_C_RX_BYTES] = 4000;
	struct nb_runcheck rc;
	cr_assert(nb_runcheck_init(&rc, "client", "agent"));
	two(&rc, 1, a, b);
	cr_expect_str_eq(rc.suspect, "the agent's rx_bytes of flow 0 went back from 5000 at tick 0 "
				     "to 4000 at tick 1 (a cumulative counter never decreases)");
	nb_runcheck_free(&rc);
	b->flow[0].c[NB_C_RX_BYTES] = 5000;
	a->flow[0].c[NB_C_LOST] = 9;
	cr_assert(nb_runcheck_init(&rc, "client", "agent"));
	two(&rc, 1, a, b);
	cr_expect_str_eq(rc.suspect, "", "a gap that a late datagram filled");
	nb_runcheck_free(&rc);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
}

/* The identities of one forward flow (the client sends, the agent receives), from the ends'
 * readings at the window's edges (l0, l1, p0, p1) and after the drain (lend, pend). */
struct flow_case {
	enum nb_proto proto;
	uint64_t tx_window, rx_window;   /* TCP bytes, UDP settled datagrams */
	uint64_t tx_total, rx_total;     /* TCP, after the drain */
	const char *suspect;             /* a substring of the finding, NULL for none */
	bool nothing;
};

static void judge(const struct flow_case *c)
{
	struct nb_snapshot *l0 = snap(S, 1), *l1 = snap(3 * S, 1), *p0 = snap(S, 1), *p1 = snap(3 * S, 1);
	struct nb_snapshot *lend = snap(4 * S, 1), *pend = snap(4 * S, 1);
	enum nb_counter tx = c->proto == NB_PROTO_TCP ? NB_C_TX_BYTES : NB_C_TX_SETTLED;
	enum nb_counter rx = c->proto == NB_PROTO_TCP ? NB_C_RX_BYTES : NB_C_RX_SETTLED;
	l1->flow[0].c[tx] = c->tx_window;
	p1->flow[0].c[rx] = c->rx_window;
	lend->flow[0].c[tx] = c->tx_total;
	pend->flow[0].c[rx] = c->rx_total;
	if (c->proto == NB_PROTO_UDP) {
		l1->flow[0].c[NB_C_TX_PACKETS] = c->tx_window;
		p1->flow[0].c[NB_C_RX_PACKETS] = c->rx_window;
	}
	struct nb_params p = { .engine = "stream", .proto = c->proto, .streams = 1, .size = 1400 };
	struct nb_span sp = { l0, l1, p0, p1, l0, l1, p0, p1, 0 };
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &sp, -1, NULL, &m);
	struct nb_runcheck rc;
	cr_assert(nb_runcheck_init(&rc, "client", "agent"));
	nb_runcheck_result(&rc, &nb_engine_stream, &p, &sp, lend, pend, &m);
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 0, 2 * S, S);
	struct nb_run_verdict v;
	nb_runcheck_verdict(&rc, &tl, &m, &p, &nb_engine_stream, &v);
	if (c->suspect)
		cr_expect(strstr(v.suspect, c->suspect), "wanted '%s', got '%s'", c->suspect, v.suspect);
	else
		cr_expect_str_eq(v.suspect, "");
	cr_expect_eq(v.nothing[0] != '\0', c->nothing, "nothing: '%s'", v.nothing);
	nb_runcheck_free(&rc);
	struct nb_snapshot *all[] = { l0, l1, p0, p1, lend, pend };
	for (size_t i = 0; i < 6; i++)
		nb_snapshot_destroy(all[i]);
}

Test(runcheck, the_identities_both_ends_of_a_flow_must_keep)
{
	static const struct flow_case t[] = {
		{ NB_PROTO_TCP, 1380000000, 1379000000, 1381000000, 1381000000, NULL, false },
		{ NB_PROTO_TCP, 1380000000, 3000000000000, 1381000000, 3000000000000,
		  "flow 0: the agent received 3000000000000 bytes over the whole flow, more than the "
		  "client put on the wire (1381000000, retransmissions included) and could still hold "
		  "(67108864)", false },
		/* the sender's last reading came before its socket sent its last bytes */
		{ NB_PROTO_TCP, 2843000000, 2843000000, 2843607040, 2843607041, NULL, false },
		{ NB_PROTO_TCP, 2760000000, 0, 2760000000, 0,
		  "the receivers counted no byte in the run's window while the senders put 2760000000 "
		  "on the wire", false },
		{ NB_PROTO_UDP, 1000, 990, 0, 0, NULL, false },
		{ NB_PROTO_UDP, 1000, 1001, 0, 0,
		  "flow 0: the agent counted 1001 datagrams received of the 1000 the client sent", false },
		{ NB_PROTO_UDP, 1000, 0, 0, 0, NULL, true },
		{ NB_PROTO_UDP, 0, 0, 0, 0, NULL, true }, /* every send refused: nothing either */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		judge(&t[i]);
}

/* A part's stall (a probe of a working case, a path of several) is its run's, named: one that
 * stopped the engine threads over a late tick alone, the longer gap of two alike. */
Test(runcheck, a_parts_stall_is_the_whole_runs_named_by_the_part)
{
	struct nb_run_verdict whole = { .stall = "" }, probe = { .stalled = true, .stall_gap_s = 0.559 };
	snprintf(probe.stall, sizeof(probe.stall), "the client's tick 2 came 0.06 s late");
	nb_run_verdict_take_stall(&whole, &probe, "probe2");
	cr_assert(whole.stalled);
	cr_assert_str_eq(whole.stall, "probe2: the client's tick 2 came 0.06 s late");
	cr_assert(nb_run_verdict_any(&whole));

	/* a late tick whose threads kept their pace gives way to a stall, never the reverse */
	struct nb_run_verdict note = { .stalled = false, .stall_gap_s = 2.0 };
	snprintf(note.stall, sizeof(note.stall), "the agent's tick 4 came 1 s late");
	nb_run_verdict_take_stall(&whole, &note, "load");
	cr_assert(whole.stalled);
	cr_assert_str_eq(whole.stall, "probe2: the client's tick 2 came 0.06 s late");
	struct nb_run_verdict w2 = note;
	nb_run_verdict_take_stall(&w2, &probe, "probe2");
	cr_assert(w2.stalled);
	cr_assert_float_eq(w2.stall_gap_s, 0.559, 1e-9);

	/* two stalls: the longer gap names it */
	struct nb_run_verdict longer = probe;
	longer.stall_gap_s = 1.5;
	snprintf(longer.stall, sizeof(longer.stall), "the agent's tick 3 came 1 s late");
	nb_run_verdict_take_stall(&whole, &longer, "probe5");
	cr_assert_str_eq(whole.stall, "probe5: the agent's tick 3 came 1 s late");
	nb_run_verdict_take_stall(&whole, &probe, "probe2");
	cr_assert_str_eq(whole.stall, "probe5: the agent's tick 3 came 1 s late");

	/* a part with nothing against it leaves the whole alone */
	struct nb_run_verdict clean = { .stall = "" }, none = { .stall = "" };
	nb_run_verdict_take_stall(&clean, &none, "probe1");
	cr_assert(!nb_run_verdict_any(&clean));
}
