/* The report's Paths section of cases run on several paths at once (issue 28, row 7): each
 * path's loss and jitter (UDP) and retransmits (TCP) beside its headline, and a path-loss
 * warning when one path lost what the others did not. The folder is the probe's: UDP at
 * 80 Mbit/s on two paths, one shaped to 50 Mbit/s (39.4 % lost there, 0 % on the other, 19.7 %
 * in the sum), and a TCP case whose second path retransmitted. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "nbt_report.h"

#define UDP_CASE "u/udp/s1400/p1/forward/r80M"
#define TCP_CASE "t/tcp/s128K/p1/forward"

static const char plan[] =
	"case_id,test,engine,protocol,size,request,response,streams,direction,rate,wait,duration_s,"
	"warmup_s,omit_s,interval_s,repetitions,sweep\n"
	UDP_CASE ",u,stream,udp,1400,,,1,forward,80000000,,10,1,0,1,2,\n"
	TCP_CASE ",t,stream,tcp,131072,,,1,forward,0,,10,1,0,1,2,\n";

#define COLS "run_id,case_id,test,engine,protocol,rep,kind,offered_rate,status,metric,value,flags," \
	"error,started,duration_s,rx_bps,lost,loss_pct,jitter_us,retrans,path\n"
#define U(id, rep, rx, lost, loss, jit, path) \
	#id "," UDP_CASE ",u,stream,udp," #rep ",run,,ok,rx_bps," #rx ",,,2024-05-01T10:0" #id \
	":00Z,10," #rx "," #lost "," #loss "," #jit ",," path "\n"
#define T(id, rep, rx, re, path) \
	#id "," TCP_CASE ",t,stream,tcp," #rep ",run,,ok,rx_bps," #rx ",,,2024-05-01T10:0" #id \
	":00Z,10," #rx ",,,," #re "," path "\n"

static const char runs[] = COLS
	U(1, 1, 128500000, 43000, 19.7, 21.0, "all")
	U(1, 1, 48500000, 43000, 39.4, 40.0, "local->10.0.1.2")
	U(1, 1, 80000000, 0, 0, 2.0, "local->10.0.2.2")
	U(2, 2, 128400000, 43100, 19.7, 23.0, "all")
	U(2, 2, 48400000, 43100, 39.4, 44.0, "local->10.0.1.2")
	U(2, 2, 80000000, 0, 0, 2.0, "local->10.0.2.2")
	T(3, 1, 9000000000, 40, "all")
	T(3, 1, 4500000000, 0, "local->10.0.1.2")
	T(3, 1, 4500000000, 40, "local->10.0.2.2")
	T(4, 2, 9000000000, 60, "all")
	T(4, 2, 4500000000, 0, "local->10.0.1.2")
	T(4, 2, 4500000000, 60, "local->10.0.2.2");

static char dir[256];
static char *md;

static void put(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert(nbt_write(path, text, strlen(text)), "%s", path);
}

static void setup(void)
{
	cr_assert(nbt_tmpdir("paths", dir, sizeof(dir)));
	put("plan.csv", plan);
	put("runs.csv", runs);
	md = nbt_report_md(dir);
}

static void teardown(void)
{
	free(md);
	nbt_rmtree(dir);
}

TestSuite(report_paths, .init = setup, .fini = teardown);

#define line_of(text) nbt_md_line(md, text)

Test(report_paths, a_udp_case_shows_each_paths_loss_and_jitter)
{
	const char *head = line_of("| Path | Throughput (received) (mean) | ± stddev | Loss | Lost | "
				   "Jitter | Share of the sum | n | Failed |");
	cr_assert(head);
	const char *shaped = line_of("| local->10.0.1.2 | 48.5 Mbit/s |");
	cr_assert(nbt_line_has(shaped, "| 39.4 % | 43050 | 42.0 µs |"), "%.200s", shaped);
	const char *other = line_of("| local->10.0.2.2 | 80.0 Mbit/s |");
	cr_assert(nbt_line_has(other, "| 0 % | 0 | 2.00 µs |"), "%.200s", other);
	const char *sum = line_of("| **all (the sum)** | 128 Mbit/s |");
	cr_assert(nbt_line_has(sum, "| 19.7 % | 43050 | 22.0 µs |"), "%.200s", sum);
}

Test(report_paths, a_tcp_case_shows_each_paths_retransmits)
{
	cr_assert(line_of("| Path | Throughput (received) (mean) | ± stddev | Retransmits | Share of "
			  "the sum | n | Failed |"));
	cr_assert(nbt_line_has(line_of("| local->10.0.2.2 | 4.50 Gbit/s |"), "| 50 |"));
	cr_assert(nbt_line_has(line_of("| local->10.0.1.2 | 4.50 Gbit/s |"), "| 0 |"));
}

Test(report_paths, one_lossy_path_is_a_warning_naming_it)
{
	const char *w = line_of("- ⚠️ **path-loss** (`" UDP_CASE "`): ");
	cr_assert(nbt_line_has(w, "path local->10.0.1.2 lost 39.4 % of its datagrams, path "
			      "local->10.0.2.2 0 % (means over the runs): the case's 19.7 % is their "
			      "sum, the loss is on one path; look for the bottleneck on local->10.0.1.2"),
		  "%.400s", w);
	cr_assert_null(strstr(md, "**path-loss** (`" TCP_CASE), "a TCP case has no loss to compare");
}
