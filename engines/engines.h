/* nbrun — the ops tables of the engines linked into nbrun (listed in registry.c). */
#ifndef NB_ENGINES_H
#define NB_ENGINES_H

#include "engine.h"

/** TCP/UDP bulk throughput (stream.c). */
extern const struct nb_engine nb_engine_stream;

#endif
