/* nbrun — the agent's log lines on stderr (see agent_int.h). Kept apart from the connections
 * (agent.c), which serve a session (agent_session.c): both log. */
#include <stdarg.h>
#include <stdio.h>

#include "agent_int.h"
#include "ctl.h"

void nb_agent_log(const struct nb_agent *a, int level, const struct sockaddr_storage *peer,
		  const char *fmt, ...)
{
	if (a->o.verbosity < level)
		return;
	char who[80] = "", line[512];
	if (peer)
		nb_ctl_addr_str(peer, who, sizeof(who));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "nbrun serve: %s%s%s\n", who, peer ? ": " : "", line);
}
