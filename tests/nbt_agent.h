/* Support for the tests that meet an agent in this process the way a client or an attacker
 * would: the agent on a thread, and an authenticated session with it. */
#ifndef NBT_AGENT_H
#define NBT_AGENT_H

#include "agent.h"
#include "client.h"

/** An agent of options o (bind 127.0.0.1 when o->bind is NULL) on a thread, and, when c is not
 *  NULL, a session with it in *c that shook hands with secret s (NULL: none). Asserts each step;
 *  the caller closes c and destroys the agent. */
struct nb_agent *nbt_agent_session(const struct nb_agent_opts *o, const struct nb_secret *s,
				   struct nb_client *c);
/** A short paced TCP stream test of run run_id (0.3 s, 50 Mbit/s: what an agent with --max-rate
 *  runs too), case id "honest". */
struct nb_msg_setup nbt_small_test(uint32_t run_id);
/** Open one more session *c with a running agent a (secret s, or NULL); false with err. */
bool nbt_agent_open(struct nb_agent *a, const char *bind, const struct nb_secret *s,
		    struct nb_client *c, struct nb_error *err);
/** Run test su in session c with no interval sink; its outcome (res->error says why not ok;
 *  what res owns is freed). */
enum nb_outcome nbt_run_test(struct nb_client *c, const struct nb_msg_setup *su,
			     struct nb_test_result *res);

#endif
