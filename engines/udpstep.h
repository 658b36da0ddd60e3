/* nbrun — a UDP test flow (stream, pps) as non-blocking steps, for flows over threads
 * (flowloop.h): the same sender and receiver as the blocking bodies (udpflow.h, udpgso.h), one
 * batch per step.
 *
 * Sender: each step asks the flow's own pacer what is due now (nb_pacer_due, no sleep); what
 * is due leaves in one send call, and the flow asks to be stepped again at once (a release
 * larger than one call takes the next steps, with no wait between). Nothing due: the flow
 * waits until the pacer's batch is due, less what nb_pacer_sleep_ns says to spin (the loop's
 * deadline is then the pacer's own); a timed step that came late tells the pacer how late
 * (nb_pacer_woke), as a sleeping sender does. Unpaced, or refused by the kernel (ENOBUFS,
 * EAGAIN): it waits for room (EPOLLOUT). Receiver: one recvmmsg of what is queued per step,
 * stepped when its socket is readable.
 */
#ifndef NB_UDPSTEP_H
#define NB_UDPSTEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flowloop.h"
#include "kpace.h"

/** What the engine decided for one UDP flow: the blocking bodies' own choices. */
struct nb_udpstep_setup {
	/* sender */
	uint32_t per_call;      /* datagrams per send call */
	bool gso;               /* UDP_SEGMENT asked for */
	enum nb_pacing pacing;  /* the NB_G_PACING gauge */
	uint64_t num, den;      /* user pacing at num / den datagrams/s; num 0 = unpaced */
	uint64_t burst_ns;      /* the pacer's burst (pace.h) */
	/* receiver */
	bool gro;               /* UDP_GRO asked for */
	uint32_t nmsg;          /* messages per recvmmsg without GRO */
	size_t buflen;          /* bytes per message without GRO */
	double rate;            /* the sender's datagrams/s (nb_seqrx_set_rate); 0 = unpaced */
};

/** Open f (a sender or a receiver, f->sends) with setup u into f->run; false with f->err. */
bool nb_udpstep_open(struct nb_flow *f, const struct nb_udpstep_setup *u, struct nb_flow_wants *w);
/** The steps ops of a UDP flow opened by nb_udpstep_open. */
int nb_udpstep_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w);
void nb_udpstep_close(struct nb_flow *f);

#endif
