/* nbrun — what crosses the control connection besides counters: environment
 * facts in HELLO. */
#ifndef NB_HELLO_FACTS_H
#define NB_HELLO_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "facts.h"
#include "proto.h"

/** Fill h's fact list: this host's environment toward peer (collect = false: nbrun facts only). */
void nb_hello_facts_fill(struct nb_msg_hello *h, bool collect, const struct sockaddr_storage *peer,
			 socklen_t len);
/** Free a fact list filled by nb_hello_facts_fill. */
void nb_hello_facts_free(struct nb_msg_hello *h);
/** Turn a received HELLO's fact list back into facts (malformed keys are skipped). */
void nb_hello_facts_read(const struct nb_msg_hello *h, struct nb_facts *out);

#endif
