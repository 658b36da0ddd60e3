/* nbrun — what crosses the control connection besides counters: the agent's environment
 * facts (FACTS, once the session is the client's). */
#ifndef NB_HELLO_FACTS_H
#define NB_HELLO_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "facts.h"
#include "proto.h"

/** Fill f: this host's environment toward peer (collect = false: nbrun facts only), each key
 *  and value clean text (text.h). */
void nb_hello_facts_fill(struct nb_msg_facts *f, bool collect, const struct sockaddr_storage *peer,
			 socklen_t len);
/** Free a fact list filled by nb_hello_facts_fill. */
void nb_hello_facts_free(struct nb_msg_facts *f);
/** Turn a received fact list back into facts (malformed keys are skipped). */
void nb_hello_facts_read(const struct nb_msg_facts *f, struct nb_facts *out);

#endif
