/* nbrun — what the kinds of target share (target.c), for their files only. */
#ifndef NB_TARGET_INT_H
#define NB_TARGET_INT_H

#include "target.h"

/** The sink a single path's test (nb_client_test_path, nb_solo_test ...) calls for run r: each
 *  interval to r->sink, named r->path. */
struct nb_test_sink nb_target_test_sink(const struct nb_target_run *r);

#endif
