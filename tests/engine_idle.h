/* nbrun tests — the idle engine: an engine of the tests' own, registered by a test binary with
 * nb_engine_register (engines/engine.h). Its flows do nothing but tick; it takes one parameter
 * of its own, `tick`, which no file outside engine_idle.c names. (Not "null": YAML reads
 * `engine: null` as no value at all.) */
#ifndef NBT_ENGINE_IDLE_H
#define NBT_ENGINE_IDLE_H

#include <stdint.h>

#include "engine.h"

extern const struct nb_engine nbt_engine_idle;

/** The idle engine's `tick` (ms) in a case's parameters. */
uint32_t nbt_idle_tick_ms(const struct nb_params *p);

#endif
