/* nbrun — the agent's log lines on stderr, and the counts of the rate-limited ones (see
 * agent_int.h). Kept apart from the acceptor (agent_accept.c), the connections (agent_conn.c)
 * and the sessions they serve (agent_session.c): all of them log. */
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

/* Each interval that held more lines than it showed ends with how many (now UINT64_MAX: at the
 * agent's end, whatever is held). "handshake slots full" is said once per interval: its count
 * is worded apart. */
void nb_agent_log_summaries(struct nb_agent *a, uint64_t now)
{
	uint32_t n;
	uint64_t window;
	if (nb_ratelog_due(&a->full_log, now, &n, &window))
		nb_agent_log(a, 0, NULL, "and %u more connections closed for want of a handshake slot "
			     "in the last %llu s (a flood? --allow limits who may connect)", n,
			     (unsigned long long)window / 1000);
	if (nb_ratelog_due(&a->refused_log, now, &n, &window))
		nb_agent_log(a, 0, NULL, "%u more refused handshakes in the last %llu s, not shown "
			     "(wrong or missing secrets, other versions, busy)", n,
			     (unsigned long long)window / 1000);
	if (nb_ratelog_due(&a->not_allowed, now, &n, &window))
		nb_agent_log(a, 0, NULL, "refused %u more client%s not in --allow in the last %llu s",
			     n, n == 1 ? "" : "s", (unsigned long long)(window / 1000));
}
