/* nbrun — the ops tables of the engines linked into nbrun (listed in registry.c). */
#ifndef NB_ENGINES_H
#define NB_ENGINES_H

#include "engine.h"

/** TCP/UDP bulk throughput (stream.c). */
extern const struct nb_engine nb_engine_stream;
/** Small-packet UDP packets per second (pps.c). */
extern const struct nb_engine nb_engine_pps;

/** Request/response transactions: TCP_RR and UDP_RR by params.proto (rr.c). */
extern const struct nb_engine nb_engine_rr;
/** Connect/request/response/close transactions: TCP_CRR (rr.c). */
extern const struct nb_engine nb_engine_crr;
/** Round-trip time: ping-pong, or under load at a fixed rate (latency.c). */
extern const struct nb_engine nb_engine_latency;
/** ICMP echo round trips to any host, no agent (icmp.c). */
extern const struct nb_engine nb_engine_icmp;
/** TCP handshake time to any host:port, no agent (connect.c). */
extern const struct nb_engine nb_engine_connect;

#endif
