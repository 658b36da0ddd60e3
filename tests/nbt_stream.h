/* Helpers for the net tests that run the stream engine end to end: an agent and a client on
 * 127.0.0.1 in this process (the control protocol, the harness, real sockets), a case's setup,
 * one run with every interval row and both ends' final counters, and the UDP row identities. */
#ifndef NBT_STREAM_H
#define NBT_STREAM_H

#include "agent.h"
#include "client.h"
#include "metrics.h"
#include "session.h"

#define NBT_MAX_ROWS 64

extern struct nb_agent *nbt_agent;
extern struct nb_client nbt_cli;

/** What a run left: how many intervals the sink saw, each interval's row (all flows summed, as
 *  intervals.csv has it), and both ends' final counters. */
struct nbt_capture {
	const struct nb_msg_setup *su;
	uint32_t intervals;
	struct nb_metrics row[NBT_MAX_ROWS + 1];   /* by interval index, 1-based */
	struct nb_snapshot l, p;
};

/** Start an agent on 127.0.0.1 and open the client to it (nbt_agent, nbt_cli). */
void nbt_stream_open(void);
/** Close the client and destroy the agent. */
void nbt_stream_close(void);
/** A stream case: 200 ms warm-up, 1 s in 0.5 s intervals, UDP drains 300 ms; gso off. */
struct nb_msg_setup nbt_stream_setup(enum nb_proto proto, enum nb_dir dir, uint32_t streams,
				     uint32_t size, uint64_t rate);
/** Run su through the client into cap; res->m is the run's row (res is freed). */
enum nb_outcome nbt_stream_run(const struct nb_msg_setup *su, struct nbt_capture *cap,
			       struct nb_test_result *res);
/** In every interval row and in the run's row: lost = tx - rx, the rows add up to the run. */
void nbt_stream_assert_udp_rows(const struct nbt_capture *cap, const struct nb_test_result *res);

#endif
