/* nbrun — which pacing a sender uses: the kernel's where it offers it, else our own.
 *
 * SO_MAX_PACING_RATE caps a socket's rate, but only something must enforce it:
 * the fq qdisc does for every socket (TCP and UDP); without fq, TCP paces itself
 * (its internal pacing, since Linux 4.13) and UDP is not paced at all. So a UDP
 * sender leaves pacing to the kernel only when the interface that carries the
 * test (nb_ifstats_route) has fq at its root; otherwise it paces in user space
 * (pace.h). Which one ran is a gauge of the sender's flow (NB_G_PACING) and a
 * flag of the row ("pacing=user"), so a result says how its rate was kept.
 * SO_TXTIME with the etf qdisc is not used: no kernel this was built on had etf.
 */
#ifndef NB_KPACE_H
#define NB_KPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** How a sender's rate is kept (the value of NB_G_PACING). */
enum nb_pacing {
	NB_PACING_NONE,         /* unpaced, or not a sender */
	NB_PACING_USER,         /* our token bucket (pace.h) */
	NB_PACING_FQ,           /* SO_MAX_PACING_RATE, enforced by the fq qdisc */
	NB_PACING_TCP,          /* SO_MAX_PACING_RATE, enforced by TCP's internal pacing */
	NB_PACING_COUNT
};

/** The pacing's name as rows and reports show it ("user", "fq", "tcp"; "" for none). */
const char *nb_pacing_name(enum nb_pacing p);
/** The rule alone: the pacing a sender of this protocol uses at rate (bit/s, 0 = unpaced) when
 *  the root qdisc of its interface is root_qdisc ("" = unknown). */
enum nb_pacing nb_pacing_choose(bool tcp, uint64_t rate, const char *root_qdisc);
/** The root and first child qdisc kinds of interface ifindex over rtnetlink (klen bytes each,
 *  "" when none); 0 or an errno. */
int nb_qdisc_kinds(int ifindex, char *root, char *child, size_t klen);
/** Choose the pacing of connected socket fd at rate bit/s from its interface's qdisc and, for
 *  the kernel's, set SO_MAX_PACING_RATE; returns what was chosen. */
enum nb_pacing nb_kpace_apply(int fd, bool tcp, uint64_t rate);

#endif
