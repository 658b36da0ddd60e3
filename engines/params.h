/* nbrun — what a case's parameters (struct nb_params, engine.h) answer by themselves: the
 * names of their enums, the one spelling the config, the plan, the CSV files and the report
 * use, and how many flows a case runs and which end sends on each. */
#ifndef NB_PARAMS_H
#define NB_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#define NB_PROTO_N NB_NPROTO /* values of enum nb_proto */
#define NB_DIR_N 3   /* values of enum nb_dir */
#define NB_WAIT_N 3  /* values of enum nb_wait */

/** "tcp", "udp", "icmp", indexed by enum nb_proto (for parsers that list or suggest the choices). */
extern const char *const nb_proto_names[NB_PROTO_N];
/** "forward", "reverse", "bidir", indexed by enum nb_dir. */
extern const char *const nb_dir_names[NB_DIR_N];
/** "block", "spin", "busy-poll", indexed by enum nb_wait. */
extern const char *const nb_wait_names[NB_WAIT_N];

/** The name of a protocol ("?" for a value out of range). */
const char *nb_proto_name(enum nb_proto p);
/** The name of a direction ("?" for a value out of range). */
const char *nb_dir_name(enum nb_dir d);
/** The name of a wait mode ("?" for a value out of range). */
const char *nb_wait_name(enum nb_wait w);
/** The protocol named s; false (and *out untouched) when s names none. */
bool nb_proto_parse(const char *s, enum nb_proto *out);
/** The direction named s; false (and *out untouched) when s names none. */
bool nb_dir_parse(const char *s, enum nb_dir *out);
/** The wait mode named s; false (and *out untouched) when s names none. */
bool nb_wait_parse(const char *s, enum nb_wait *out);

/** Number of flows a case runs (bidir on a directional engine runs 2 x streams). */
uint32_t nb_params_nflows(const struct nb_params *p);
/** Whether the client side sends on flow i (directional engines: as direction says; the others:
 *  the client is the requester, always). */
bool nb_params_client_sends(const struct nb_params *p, uint32_t flow);
/** Whether the client sends on flow of a directional engine's case (nb_params_client_sends
 *  without asking the registry, for what knows the engine is directional). */
bool nb_params_dir_client_sends(const struct nb_params *p, uint32_t flow);

#endif
