/* nbrun — how a runner waits when an agent's session is another batch's (proto.h QUEUE): it
 * says its batch's plan, waits up to --queue-timeout, and says on stderr where it stands in
 * line each time that changes ("waiting for the agent at HOST: 2nd in line, about 3 min"). */
#ifndef NB_WAITING_H
#define NB_WAITING_H

#include <stdatomic.h>
#include <stdint.h>

#include "client.h"

#define NB_QUEUE_TIMEOUT_DEFAULT_MS 300000u /* --queue-timeout: 5 min */

struct nb_waiting {
	struct nb_client_wait w;     /* what nb_client_open takes */
	int verbosity;               /* -1 (quiet): say nothing */
	char said[320];              /* the last line said: said again only when it changes */
};

/** wt for a batch planned to take plan_s seconds (0 = unknown), waiting up to timeout_ms. */
void nb_waiting_init(struct nb_waiting *wt, double plan_s, uint32_t timeout_ms, int verbosity,
		     const atomic_bool *interrupt);

#endif
