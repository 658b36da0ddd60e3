/* nbrun — what an agent lets one test ask of it (`nbrun serve --max-*`).
 *
 * A SETUP beyond a limit is refused with ERROR limit, saying which limit and by how much:
 * never clamped, so a result always measured what the config asked for. The rate limit
 * counts what the test's flows are asked to pace, summed, in payload bit/s (packet rates
 * times the message size); closed-loop tests (rr, crr, latency ping-pong) are held back by
 * their own feedback and pass, but an unpaced stream, UDP or TCP, is bounded by nothing but
 * the path (a TCP sender fills whatever the path carries), so with a rate limit set it is
 * refused: every sender of a test then keeps to a rate the limit allows.
 */
#ifndef NB_LIMITS_H
#define NB_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "proto.h"

/* struct nb_limits, the limits themselves, is in proto.h: CHECK_RESULT carries them. */

/* `nbrun serve` without options: generous for a benchmark, bounded for a public address. */
#define NB_LIMITS_SERVE_FLOWS 64u
#define NB_LIMITS_SERVE_DURATION_S 3600u
#define NB_LIMITS_SERVE_MESSAGE (1u << 20)
/* `nbrun serve --insecure`: no secret beyond loopback, so anyone may use it: conservative. */
#define NB_LIMITS_OPEN_FLOWS 8u
#define NB_LIMITS_OPEN_DURATION_S 60u
#define NB_LIMITS_OPEN_RATE 1000000000ull

/** Whether su (of engine e) keeps within l; else why (one line naming the option) in why. */
bool nb_limits_check(const struct nb_limits *l, const struct nb_engine *e,
		     const struct nb_msg_setup *su, char *why, size_t n);
/** nb_limits_check, naming who holds the limits ("this agent", "nbrun serve"). */
bool nb_limits_check_as(const struct nb_limits *l, const struct nb_engine *e,
			const struct nb_msg_setup *su, const char *who, char *why, size_t n);
/** The limits of `nbrun serve` without options. */
void nb_limits_serve_defaults(struct nb_limits *l);
/** A test's offered load in payload bit/s, summed over its flows; 0 when unpaced or closed-loop
 *  engines' (rate 0). */
double nb_limits_offered_bps(const struct nb_engine *e, const struct nb_params *p);

#endif
