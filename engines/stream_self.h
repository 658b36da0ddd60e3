/* nbrun — self probes of a TCP stream (`self: N`, issue 32; docs/engines.md, "Self probes"):
 * round trips multiplexed on the load's own connection, draft-ietf-ippm-responsiveness's "self
 * probes" without HTTP/2.
 *
 * With self off (0, the default) nothing here runs: the stream engine's bodies are untouched.
 * With self on, the flow's bulk sender writes its byte stream as frames, and its receiver parses
 * them. A frame is a 16-byte header (4 bytes "NBS" + its type, its payload length and a
 * sequence number, both big-endian) and its payload: DATA frames of min(size, 16 KiB) bytes in
 * all (each write: size rounded down to whole DATA frames), and REQ / RESP frames of the header
 * alone, put between two DATA frames. The other direction of the connection (idle in a stream)
 * carries REQ / RESP frames only.
 *
 * The client always asks and measures, N requests per second per flow (open loop, never more
 * than 256 unanswered; a request whose time comes while 256 wait is not sent):
 * - upload (the client sends the bulk): the client puts a REQ between two DATA frames of its
 *   stream; the agent, parsing the stream, answers with a RESP on the idle direction at once.
 *   The round trip sees the client's send buffer and the path's queue on the way out.
 * - download (the agent sends the bulk): the client writes a REQ on the idle direction (up);
 *   the agent puts the RESP between two DATA frames of its stream, at the next frame boundary.
 *   The round trip sees the agent's send buffer and the path's queue on the way back.
 * A round trip runs from the moment the request's last byte was written into the socket to the
 * moment its response was read; it goes into the flow's round-trip histogram (so into the
 * case's latency columns, and a working case's self term of RPM). TCP keeps each direction in
 * order, so responses come in the order of their requests: a response out of order, or a frame
 * that is not one, fails the flow. Counts: requests written, responses read, and at a row's
 * end those written and not yet answered (in flight: TCP loses none), so in every row
 * answered = sent + waiting at its start - waiting at its end. The stream's byte counts are
 * the kernel's at both ends as without self, the frame headers included in both. */
#ifndef NB_STREAM_SELF_H
#define NB_STREAM_SELF_H

#include <stdbool.h>
#include <stdint.h>

#include "cols.h"
#include "engine.h"
#include "param_defs.h"

#define NB_SELF_HDR 16u           /* a frame's header */
#define NB_SELF_REC_MAX 16384u    /* a DATA frame's bytes at most, header included */
#define NB_SELF_RATE_MAX 1000u    /* requests per second per flow */

/** The stream engine's own parameters (params.own). */
struct nb_stream_own {
	uint32_t self_rate; /* self probes per second per TCP flow; 0 = none */
};

extern const struct nb_param_def nb_stream_params[];   /* self */
extern const struct nb_counter_def nb_stream_counters[]; /* self requests, self answers */
extern const struct nb_col_def nb_stream_columns[];    /* self_sent, self_answered, self_waiting */

/** Self probes per second per flow of p (0: none). */
uint32_t nb_stream_self_rate(const struct nb_params *p);
/** Whether p's flows run self probes (TCP and a rate). */
bool nb_stream_self_on(const struct nb_params *p);
/** False with why when p asks for self probes it cannot run (UDP; a size below two headers). */
bool nb_stream_self_validate(const struct nb_params *p, struct nb_error *err);
/** The flow's body, either side, either role, with self on (one thread per flow). */
int nb_stream_self_flow(struct nb_flow *f);
/** The self columns of flows [lo, hi) over s (NAN without self). */
void nb_stream_self_report(const struct nb_params *p, const struct nb_span *s, uint32_t lo,
			   uint32_t hi, struct nb_metrics *m);

/* The frames, for the tests: encode one header; parse a header (false: not a frame). */
enum nb_self_type { NB_SELF_DATA = 'D', NB_SELF_REQ = 'Q', NB_SELF_RESP = 'R' };
void nb_self_put(unsigned char *b, enum nb_self_type t, uint32_t len, uint64_t seq);
bool nb_self_get(const unsigned char *b, enum nb_self_type *t, uint32_t *len, uint64_t *seq);

#endif
