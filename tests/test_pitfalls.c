/* Pitfalls: each check fires on a minimal input that shows it, with its evidence, and stays
 * quiet on a clean input that differs in one detail. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "engines.h"
#include "pitfalls.h"

#define MAXF 6

struct row {
	const char *name;
	const char *local[MAXF];  /* "group.key=value" (value "!reason" for unknown) */
	const char *peer[MAXF];   /* peer facts; when none are given the peer is NULL */
	struct nb_pitfall_case cases[2];
	const char *code;         /* expected finding, NULL for none */
	const char *evidence;     /* substring of its text */
};

#define STREAM(...) { .test = "tput", .eng = &nb_engine_stream, .protocol = "tcp", __VA_ARGS__ }
#define USTREAM(...) { .test = "udp", .eng = &nb_engine_stream, .protocol = "udp", __VA_ARGS__ }
#define RR(...) { .test = "rr", .eng = &nb_engine_rr, .protocol = "tcp", __VA_ARGS__ }
#define LAT(...) { .test = "lat", .eng = &nb_engine_latency, .protocol = "udp", __VA_ARGS__ }
#define THREADS(ltx, lrx, ptx, prx) .cpu_thread_max_pct = { { ltx, lrx }, { ptx, prx } }

static const struct row rows[] = {
	{ "governor", { "cpu.governor=powersave" }, {}, {}, "governor",
	  "on the local end: governor powersave; set the performance governor" },
	{ "governor performance", { "cpu.governor=performance" }, {}, {}, NULL, NULL },
	{ "governor not exposed", { "cpu.governor=!not exposed: no cpufreq in this VM" }, {}, {}, NULL, NULL },
	{ "governor on the peer", { "cpu.governor=performance" }, { "cpu.governor=ondemand" }, {},
	  "governor", "on the peer end: governor ondemand" },
	{ "numa", { "iface.name=eth0", "iface.numa_node=1", "cpu.numa.node0.cpus=0-1",
		    "cpu.numa.node1.cpus=2-3", "nbrun.engine_cpus=1-2" }, {}, {}, "numa",
	  "eth0 is on node 1, engine threads ran on CPUs 1-2 (node 0 among them); pin the engine to CPUs of node 1" },
	{ "numa same node", { "iface.numa_node=1", "cpu.numa.node0.cpus=0-1", "cpu.numa.node1.cpus=2-3",
			      "nbrun.engine_cpus=2-3" }, {}, {}, NULL, NULL },
	{ "mtu mismatch", { "iface.mtu=9000" }, { "iface.mtu=1500" }, {}, "mtu-mismatch",
	  "MTU differs between the ends: local 9000, peer 1500" },
	{ "mtu equal", { "iface.mtu=1500" }, { "iface.mtu=1500" }, {}, NULL, NULL },
	{ "path mtu", { "iface.mtu=9000", "iface.path_mtu=1500" }, {}, {}, "path-mtu",
	  "path MTU below the interface MTU on the local end: path 1500, interface 9000" },
	{ "path mtu of loopback", { "iface.mtu=65536", "iface.path_mtu=65535" }, {}, {}, NULL, NULL },
	{ "offload mismatch", { "iface.offload.tso=on", "iface.offload.gro=on" },
	  { "iface.offload.tso=off [fixed]", "iface.offload.gro=on" }, {}, "offload-mismatch",
	  "offload settings differ between the ends: tso on here, off at the peer;" },
	{ "offload fixed is still on", { "iface.offload.tso=on" }, { "iface.offload.tso=on [fixed]" }, {},
	  NULL, NULL },
	{ "conntrack", { "tcp.conntrack=loaded", "tcp.conntrack_count=42" }, {}, {}, "conntrack",
	  "conntrack tracks connections on the local end (42 entries with the test connected)" },
	{ "conntrack loaded but tracking nothing", { "tcp.conntrack=loaded", "tcp.conntrack_count=0" },
	  {}, {}, NULL, NULL },
	{ "conntrack not loaded", { "tcp.conntrack=not loaded" }, {}, {}, NULL, NULL },
	{ "irqs on one cpu", { "iface.name=eth0", "iface.irq.count=5", "iface.queues.rx=4", "iface.irq.cpus=0" },
	  {}, {}, "irq-concentrated", "eth0 has 5 IRQs and 4 rx queues, all handled on CPU 0" },
	{ "irqs spread", { "iface.irq.count=5", "iface.queues.rx=4", "iface.irq.cpus=0-3" }, {}, {}, NULL, NULL },
	{ "one irq one queue", { "iface.irq.count=1", "iface.queues.rx=1", "iface.irq.cpus=0" }, {}, {},
	  NULL, NULL },
	{ "engine cpu bound", {}, {}, { { .case_id = "c1", THREADS(NAN, NAN, NAN, 97) } }, "cpu-bound",
	  "CPU bound on the peer end: its busiest receiving thread used 97 % of a core" },
	{ "two threads at 50 % are not one core at 100 %", {}, {},
	  { STREAM(.case_id = "c1", .streams = 2, THREADS(50, NAN, NAN, 40)) }, NULL, NULL },
	{ "requester thread of rr", {}, {}, { RR(.case_id = "c1", THREADS(96, NAN, NAN, 30)) },
	  "cpu-bound", "CPU bound on the local end: its busiest requesting thread used 96 %" },
	{ "a busy host alone is no proof of a CPU-bound number", {}, {},
	  { { .case_id = "c1", .host_cpu_local_max_pct = 95 } }, "host-busy",
	  "the host was 95 % busy on the local end (other processes or tenants; softirq included, "
	  "steal not): this number may be low" },
	{ "a busy host with nbrun's own thread at a core is cpu-bound, said once", {}, {},
	  { { .case_id = "c1", THREADS(97, NAN, NAN, NAN), .host_cpu_local_max_pct = 99 } },
	  "cpu-bound", "CPU bound on the local end: its busiest sending thread used 97 % of a core; "
		       "the number measures the CPU" },
	{ "steal apart from busy", {}, {}, { { .case_id = "c1", .host_cpu_peer_max_pct = 60,
					     .steal_max_pct = { NAN, 30 } } },
	  "cpu-steal", "the hypervisor took 30 % of the peer end's CPU time (steal, counted apart" },
	{ "paced sender at its target spins, it is not cpu bound", {}, {},
	  { { .case_id = "c1", THREADS(100, NAN, NAN, 20), .host_cpu_local_max_pct = 95,
	      .target_rate = 5e8, .achieved_rate = 4.99e8 } }, NULL, NULL },
	{ "paced sender at its target keeps the receiver's check", {}, {},
	  { STREAM(.case_id = "c1", THREADS(100, NAN, NAN, 95), .target_rate = 5e8,
		   .achieved_rate = 5e8) },
	  "cpu-bound", "CPU bound on the peer end: its busiest receiving thread used 95 % of a core" },
	{ "rate short of target", {}, {},
	  { USTREAM(.case_id = "c1", .target_rate = 1e8, .achieved_rate = 9.8e7) },
	  "rate-short", "the sender reached 98.0 Mbit/s of its 100 Mbit/s target (98.0 %, lowest run)" },
	{ "rate at 99.5 % of target", {}, {},
	  { USTREAM(.case_id = "c1", .target_rate = 1e8, .achieved_rate = 9.95e7) },
	  NULL, NULL },
	{ "bidir direction at half its target", {}, {},
	  { USTREAM(.case_id = "c1", .target_rate = 2e8, .achieved_rate = 1.99e8,
		   .ndirs = 2, .dirs = { { "forward", 1e8, 1e8, 0, 0 }, { "reverse", 1e8, 5e7, 0, 0 } }) },
	  "rate-short", "the sender in the reverse direction (agent to client) reached 50.0 Mbit/s of "
			"its 100 Mbit/s target (50.0 %" },
	{ "receive buffer drops", {}, {},
	  { USTREAM(.case_id = "c1", .rcvbuf_drops = 12, .snd_errs = 0) },
	  "rcvbuf-drops", "the receiver's socket buffer dropped 12 datagrams (highest of a run)" },
	{ "bidir receive buffer drops name the direction", {}, {},
	  { USTREAM(.case_id = "c1", .rcvbuf_drops = 7, .ndirs = 2,
		   .dirs = { { "forward", NAN, NAN, 7, 0 }, { "reverse", NAN, NAN, 0, 0 } }) },
	  "rcvbuf-drops", "dropped 7 datagrams in the forward direction (client to agent)" },
	{ "foreign datagrams", {}, {}, { USTREAM(.case_id = "c1", .foreign_max = 400) },
	  "foreign-datagrams", "400 datagrams reached a receiving flow's port without this run's "
			       "cookie" },
	{ "send errors", {}, {}, { USTREAM(.case_id = "c1", .snd_errs = 3) },
	  "send-errors", "the sender met 3 send errors (ENOBUFS/EAGAIN) (highest of a run)" },
	{ "cpu below 90", {}, {}, { { .case_id = "c1", THREADS(89, 89, NAN, NAN),
				   .host_cpu_local_max_pct = NAN } }, NULL, NULL },
	{ "slow start", {}, {}, { STREAM(.case_id = "c1", .first_interval = 2.128e6, .median_interval = 4.008e7) },
	  "slow-start", "the first interval (2.13 Mbit/s) is 5 % of the median interval (40.1 Mbit/s)" },
	{ "slow start omitted", {}, {},
	  { STREAM(.case_id = "c1", .omit_s = 2, .first_interval = 50, .median_interval = 100) }, NULL, NULL },
	{ "first interval close to median", {}, {},
	  { STREAM(.case_id = "c1", .first_interval = 85, .median_interval = 100) }, NULL, NULL },
	{ "udp has no slow start", {}, {},
	  { { .eng = &nb_engine_stream, .protocol = "udp", .first_interval = 50, .median_interval = 100 } }, NULL, NULL },
	{ "request/response has no slow start", {}, {},
	  { { .case_id = "c1", .eng = &nb_engine_rr, .protocol = "tcp", .first_interval = 50,
	      .median_interval = 100 } }, NULL, NULL },
	{ "an unknown engine gets no engine check", {}, {},
	  { { .case_id = "c1", .eng = NULL, .protocol = "tcp", .first_interval = 50,
	      .median_interval = 100 } }, NULL, NULL },
	{ "single stream", {}, {},
	  { STREAM(.case_id = "p1", .streams = 1, .mean = 1.653e10), STREAM(.case_id = "p4", .streams = 4, .mean = 4.871e10) },
	  "single-stream", "one stream reached 16.5 Gbit/s, 34 % of 4 streams (48.7 Gbit/s in p4)" },
	{ "single stream close to N", {}, {},
	  { STREAM(.case_id = "p1", .streams = 1, .mean = 8), STREAM(.case_id = "p4", .streams = 4, .mean = 10) },
	  NULL, NULL },
	{ "single stream does not apply to rr (transactions scale with flows)", {}, {},
	  { RR(.case_id = "r1", .streams = 1, .mean = 3), RR(.case_id = "r4", .streams = 4, .mean = 10) },
	  NULL, NULL },
	{ "single stream does not apply to latency", {}, {},
	  { LAT(.case_id = "l1", .streams = 1, .mean = 3), LAT(.case_id = "l4", .streams = 4, .mean = 10) },
	  NULL, NULL },
	{ "single stream other variant", {}, {},
	  { STREAM(.case_id = "p1", .streams = 1, .mean = 3, .variant = "s64"),
	    STREAM(.case_id = "p4", .streams = 4, .mean = 10, .variant = "s128K") }, NULL, NULL },
	{ "unstable", {}, {}, { { .case_id = "c1", .n = 5, .cv = 0.10 } }, "unstable",
	  "CV 10.0 % over 5 repetitions (threshold 5.0 %); a ±2 % CI would take more than 30 "
	  "repetitions: the variance is the finding" },
	{ "unstable, within reach of repetitions", {}, {}, { { .case_id = "c1", .n = 5, .cv = 0.052 } },
	  "unstable", "CV 5.2 % over 5 repetitions (threshold 5.0 %); about 29 repetitions bring" },
	{ "stable", {}, {}, { { .case_id = "c1", .n = 5, .cv = 0.04 } }, NULL, NULL },
	{ "one repetition", {}, {}, { { .case_id = "c1", .n = 1, .cv = 0.5 } }, NULL, NULL },
};

static void load(struct nb_facts *f, const char *const *pairs)
{
	char k[96];
	for (size_t i = 0; i < MAXF && pairs[i]; i++) {
		const char *eq = strchr(pairs[i], '=');
		snprintf(k, sizeof(k), "%.*s", (int)(eq - pairs[i]), pairs[i]);
		cr_assert(nb_facts_unflatten(f, k, eq + 1), "%s", pairs[i]);
	}
}

Test(pitfalls, each_fires_on_its_evidence_and_not_on_a_clean_input)
{
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		struct nb_facts l, p;
		struct nb_pitfalls out = { 0 };
		nb_facts_init(&l);
		nb_facts_init(&p);
		load(&l, w->local);
		load(&p, w->peer);
		size_t ncases = w->cases[1].case_id ? 2 : w->cases[0].case_id || w->cases[0].eng ? 1 : 0;
		cr_assert(nb_pitfalls_check(&l, w->peer[0] ? &p : NULL, w->cases, ncases, 0.05, &out));
		if (!w->code) {
			cr_expect_eq(out.n, 0, "%s: unexpected %s: %s", w->name, out.n ? out.v[0].code : "",
				     out.n ? out.v[0].text : "");
		} else {
			cr_expect_eq(out.n, 1, "%s: %zu findings", w->name, out.n);
			if (out.n) {
				cr_expect_str_eq(out.v[0].code, w->code, "%s", w->name);
				cr_expect_not_null(strstr(out.v[0].text, w->evidence), "%s: %s", w->name,
						   out.v[0].text);
			}
		}
		nb_pitfalls_free(&out);
		nb_facts_free(&l);
		nb_facts_free(&p);
	}
}

/* Several agent hosts: each host's environment is checked and named — vm3's governor, not
 * only path 0's host as "the peer" — and so are its MTU and offloads against local's. */
Test(pitfalls, with_several_hosts_each_host_is_checked_and_named)
{
	struct nb_facts l, a, b;
	nb_facts_init(&l);
	nb_facts_init(&a);
	nb_facts_init(&b);
	load(&l, (const char *const[MAXF]){ "cpu.governor=performance", "iface.mtu=1500",
					   "iface.offload.gro=on" });
	load(&a, (const char *const[MAXF]){ "cpu.governor=performance", "iface.mtu=1500",
					   "iface.offload.gro=on" });
	load(&b, (const char *const[MAXF]){ "cpu.governor=powersave", "iface.mtu=9000",
					   "iface.offload.gro=off" });
	struct nb_pitfall_host hosts[2] = { { "vm2", &a }, { "vm3", &b } };
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check_hosts(&l, hosts, 2, &out));
	cr_assert_eq(out.n, 3, "vm2 is clean; vm3 has three findings (%zu)", out.n);
	cr_expect_str_eq(out.v[0].code, "governor");
	cr_expect_not_null(strstr(out.v[0].text, "on the vm3 end: governor powersave"), "%s", out.v[0].text);
	cr_expect_str_eq(out.v[1].code, "mtu-mismatch");
	cr_expect_not_null(strstr(out.v[1].text, "local 1500, vm3 9000"), "%s", out.v[1].text);
	cr_expect_str_eq(out.v[2].code, "offload-mismatch");
	cr_expect_not_null(strstr(out.v[2].text, "gro on here, off at vm3"), "%s", out.v[2].text);
	nb_pitfalls_free(&out);
	nb_facts_free(&l);
	nb_facts_free(&a);
	nb_facts_free(&b);
}

Test(pitfalls, paced_sender_short_of_its_target_is_cpu_bound_and_short)
{
	struct nb_pitfall_case c = STREAM(.case_id = "c1", THREADS(100, NAN, NAN, 10),
					  .target_rate = 5e8, .achieved_rate = 3e8);
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check(NULL, NULL, &c, 1, 0.05, &out));
	cr_assert_eq(out.n, 2);
	cr_expect_str_eq(out.v[0].code, "cpu-bound");
	cr_expect_not_null(strstr(out.v[0].text, "its busiest sending thread used 100 % of a core"));
	cr_expect_str_eq(out.v[1].code, "rate-short");
	nb_pitfalls_free(&out);
}

Test(pitfalls, case_findings_carry_the_case_id)
{
	struct nb_pitfall_case c = { .case_id = "tput/tcp/p1", .n = 3, .cv = 0.2 };
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check(NULL, NULL, &c, 1, 0.05, &out));
	cr_assert_eq(out.n, 1);
	cr_expect_str_eq(out.v[0].case_id, "tput/tcp/p1");
	nb_pitfalls_free(&out);
	nb_pitfalls_free(&out);
}

Test(pitfalls, reps_for_ci_is_the_smallest_n_with_t_cv_over_sqrt_n_under_the_width)
{
	cr_expect_eq(nb_pitfalls_reps_for_ci(0.02, 0.02), 7);   /* t(6)=2.447/√7 ≤ 1 < t(5)/√6 */
	cr_expect_eq(nb_pitfalls_reps_for_ci(0.10, 0.02), 99);
	cr_expect_eq(nb_pitfalls_reps_for_ci(0.001, 0.02), 2);
	cr_expect_eq(nb_pitfalls_reps_for_ci(0, 0.02), 2);
}

Test(pitfalls, print_writes_one_warning_line_each)
{
	char buf[1024];
	struct nb_pitfall_case c = { .case_id = "x", .n = 3, .cv = 0.2 };
	struct nb_pitfalls out = { 0 };
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	nb_pitfalls_check(NULL, NULL, &c, 1, 0.05, &out);
	nb_pitfalls_print(&out, m);
	fclose(m);
	cr_expect_eq(strncmp(buf, "warning: unstable x: unstable result: CV 20.0 %", 47), 0, "%s", buf);
	cr_expect_eq(strchr(buf, '\n'), buf + strlen(buf) - 1);
	nb_pitfalls_free(&out);
}

/* The same pitfall in several cases is one line naming them; the first case's other findings
 * (its other end) follow it in full, on stderr as in the report, and both count the rest alike. */
Test(pitfalls, repeated_findings_are_one_line_per_code_with_the_cases)
{
	struct nb_pitfall_case c[5] = {
		{ .case_id = "a", .n = 3, .cv = 0.2 }, { .case_id = "b", .n = 3, .cv = 0.3 },
		{ .case_id = "c", .n = 3, .cv = 0.4 }, { .case_id = "d", .n = 3, .cv = 0.5 },
		{ .case_id = "e", .n = 3, .cv = 0.01,
		  .cpu_thread_max_pct = { { 99, NAN }, { 98, NAN } } },
	};
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check(NULL, NULL, c, 5, 0.05, &out));
	cr_assert_eq(out.n, 6, "4 unstable, 2 cpu-bound");
	struct nb_pitfall_group *g;
	size_t n;
	cr_assert(nb_pitfalls_group(&out, &g, &n));
	cr_assert_eq(n, 2);
	cr_expect_str_eq(g[0].first->code, "unstable");
	cr_expect_eq(g[0].ncases, 4);
	cr_expect_eq(g[0].more, 0);
	cr_expect_str_eq(g[1].first->code, "cpu-bound");
	cr_expect_eq(g[1].ncases, 1);
	cr_expect_eq(g[1].more, 1, "the peer end of the same case");
	cr_assert_eq(g[1].nalso, 1, "the first case's other finding is kept for the report");
	cr_expect_eq(strncmp(g[1].also[0]->text, "CPU bound on the peer end", 25), 0, "%s",
		     g[1].also[0]->text);
	nb_pitfalls_groups_free(g, n);
	char buf[2048];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	nb_pitfalls_print(&out, m);
	fclose(m);
	cr_expect_eq(strncmp(buf, "warning: unstable in 4 cases (a, b, c and 1 more): unstable result: "
			     "CV 20.0 %", 77), 0, "%s", buf);
	char *second = strchr(buf, '\n') + 1;
	cr_expect_eq(strncmp(second, "warning: cpu-bound e: CPU bound on the local end: its busiest "
			     "sending thread", 76), 0, "%s", second);
	cr_expect_null(strstr(second, "more like it"), "the peer end is shown: %s", second);
	char *third = strchr(second, '\n') + 1;
	cr_expect_eq(strncmp(third, "  also: CPU bound on the peer end", 33), 0, "%s", third);
	cr_expect_eq(strchr(third, '\n'), buf + strlen(buf) - 1, "three lines");
	nb_pitfalls_free(&out);
}

/* icmp (issue 19): every case says the echo is the target's kernel; unanswered requests also name
 * the target's ICMP rate limit; an engine with no such notes (latency over UDP) says neither. */
Test(pitfalls, icmp_cases_say_what_an_echo_measures_and_what_a_missing_reply_may_be)
{
	struct nb_pitfall_case c[3] = {
		{ .case_id = "ping/icmp/s56/f1", .eng = &nb_engine_icmp, .n = 1, .lost_max = 0 },
		{ .case_id = "ping/icmp/s56/f1/r2kpps", .eng = &nb_engine_icmp, .n = 1, .lost_max = 40,
		  .loss_pct_max = 1 },
		{ .case_id = "lat/udp/s64/f1/pp", .eng = &nb_engine_latency, .n = 1, .lost_max = 40,
		  .loss_pct_max = 1 },
	};
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check(NULL, NULL, c, 3, 0.05, &out));
	cr_assert_eq(out.n, 3);
	cr_expect_str_eq(out.v[0].code, "icmp-kernel");
	cr_expect_str_eq(out.v[0].case_id, "ping/icmp/s56/f1");
	cr_expect_str_eq(out.v[1].code, "icmp-kernel");
	cr_expect_str_eq(out.v[2].code, "icmp-ratelimit");
	cr_expect_str_eq(out.v[2].case_id, "ping/icmp/s56/f1/r2kpps");
	cr_expect_not_null(strstr(out.v[2].text, "up to 40 requests (1.00 %)"), "%s", out.v[2].text);
	cr_expect_not_null(strstr(out.v[2].text, "icmp_ratelimit"));
	nb_pitfalls_free(&out);
}

/* connect (issue 27): refused attempts in a run that still connected are a warning with their
 * count; none refused says nothing. */
Test(pitfalls, refused_connection_attempts_are_a_warning_with_their_count)
{
	struct nb_pitfall_case c[2] = {
		{ .case_id = "ssh/tcp/f1/r10pps", .eng = &nb_engine_connect, .n = 3, .refused_max = 12 },
		{ .case_id = "web/tcp/f1/r10pps", .eng = &nb_engine_connect, .n = 3, .refused_max = 0 },
	};
	struct nb_pitfalls out = { 0 };
	cr_assert(nb_pitfalls_check(NULL, NULL, c, 2, 0.05, &out));
	cr_assert_eq(out.n, 1);
	cr_expect_str_eq(out.v[0].code, "refused");
	cr_expect_str_eq(out.v[0].case_id, "ssh/tcp/f1/r10pps");
	cr_expect_not_null(strstr(out.v[0].text, "up to 12 connection attempts of a run were refused"),
			   "%s", out.v[0].text);
	nb_pitfalls_free(&out);
}

/* ---- what the run side held against its runs (pitfalls_runs.h) ------------------------------ */

#include "pitfalls_runs.h"

struct verdict_row {
	const char *name;
	const char *status, *flags, *error;
	double lag_max_us, lag_p99_us;
	const char *peer_mtu;              /* NULL: the peer's facts are unknown */
	const char *code, *evidence;       /* the finding, NULL for none */
};

static const struct verdict_row verdicts[] = {
	{ "a stall of the measuring process, left out", "invalid", "timeline-stall=2.49s",
	  "timeline stall: the client's tick 3 came 1.49 s late, 2.49 s after tick 2 (interval 1 s): its "
	  "process did not run meanwhile", NAN, NAN, NULL, "timeline-stall",
	  "the measuring process stalled (1 of 2 runs, status invalid: left out of the statistics, run again): the "
	  "longest, the client's tick 3 came 1.49 s late, 2.49 s after tick 2 (interval 1 s)" },
	{ "a late tick while the flows went on", "ok", "timeline-stall=358ms", "", NAN, NAN, NULL,
	  "timeline-stall", "a tick came late in 1 of 2 runs, up to 0.358 s after the one before "
	  "(interval 1 s), while the engine threads kept their pace: the counts hold" },
	{ "impossible counters", "suspect", "suspect", "suspect counters: flow 0: the agent received "
	  "3000000000000 bytes over the whole flow, more than the client put on the wire (1380000000, "
	  "retransmissions included)", NAN, NAN, NULL, "suspect",
	  "impossible counters (1 of 2 runs, status suspect: never a result): flow 0: the agent "
	  "received 3000000000000 bytes" },
	{ "nothing received above the peer's MTU", "failed", "nothing-received",
	  "nothing received: no datagram of 1400 B left, the kernel refused all 844 sends "
	  "(ENOBUFS/EAGAIN)", NAN, NAN, "1400", "nothing-received",
	  "the kernel refused all 844 sends (ENOBUFS/EAGAIN); likely cause: each datagram is 1428 B on "
	  "the wire (1400 B + 28 B of UDP/IP headers), above the MTU 1400 of the peer end, the other's "
	  "1500 (mtu-mismatch)" },
	{ "nothing received, no MTU to blame", "failed", "nothing-received",
	  "nothing received: none of the 1784 datagrams of 1400 B sent in the run's window arrived",
	  NAN, NAN, "1500", "nothing-received",
	  "no MTU below the datagrams (1428 B on the wire) was seen at either end: look for a firewall" },
	{ "a sender far behind its schedule", "ok", "pacing=user;schedule-lag=650ms", "", 650000,
	  612000, NULL, "schedule-lag", "the sender fell up to 650 ms behind its schedule (1 of 2 runs, "
	  "p99 612 ms): these latencies include that wait" },
	{ "a clean run", "ok", "pacing=user;gso=off", "", 12, 8, NULL, NULL, NULL },
};

Test(pitfalls, each_run_verdict_is_said_once_per_case_with_its_evidence)
{
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		const struct verdict_row *w = &verdicts[i];
		struct nb_plan_case pc = { .case_id = "c/udp/s1400", .size = 1400, .interval_s = 1 };
		struct nb_run runs[2] = {
			{ .case_idx = 0, .kind = "run", .status = "ok", .flags = "", .error = "" },
			{ .case_idx = 0, .kind = "run", .status = w->status, .flags = w->flags, .error = w->error },
		};
		nb_metrics_clear(&runs[0].m);
		nb_metrics_clear(&runs[1].m);
		runs[1].m.v[NB_COL_SCHED_LAG_MAX_US] = w->lag_max_us;
		runs[1].m.v[NB_COL_SCHED_LAG_P99_US] = w->lag_p99_us;
		struct nb_results res = { .cases = &pc, .ncases = 1, .runs = runs, .nruns = 2 };
		nb_facts_init(&res.local);
		nb_facts_init(&res.peer);
		load(&res.local, (const char *const[MAXF]){ "iface.mtu=1500", "iface.local_addr=10.0.0.2" });
		if (w->peer_mtu) {
			char kv[32];
			snprintf(kv, sizeof(kv), "iface.mtu=%s", w->peer_mtu);
			load(&res.peer, (const char *const[MAXF]){ kv });
		}
		struct nb_pitfalls out = { 0 };
		cr_assert(nb_pitfalls_check_runs(&res, &out));
		if (!w->code) {
			cr_expect_eq(out.n, 0, "%s: %s", w->name, out.n ? out.v[0].text : "");
		} else {
			cr_expect_eq(out.n, 1, "%s: %zu findings", w->name, out.n);
		}
		if (w->code && out.n) {
			cr_expect_str_eq(out.v[0].code, w->code, "%s", w->name);
			cr_expect_str_eq(out.v[0].case_id, "c/udp/s1400");
			cr_expect(strstr(out.v[0].text, w->evidence), "%s: %s", w->name, out.v[0].text);
		}
		nb_pitfalls_free(&out);
		nb_facts_free(&res.local);
		nb_facts_free(&res.peer);
	}
}
