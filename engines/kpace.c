/* nbrun — kernel pacing where the interface's qdisc offers it (see kpace.h). */
#include "kpace.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ifstats.h"

const char *nb_pacing_name(enum nb_pacing p)
{
	static const char *const names[NB_PACING_COUNT] = { "", "user", "fq", "tcp" };
	return (unsigned)p < NB_PACING_COUNT ? names[p] : "";
}

enum nb_pacing nb_pacing_choose(bool tcp, uint64_t rate, const char *root_qdisc)
{
	if (rate == 0)
		return NB_PACING_NONE;
	if (strcmp(root_qdisc, "fq") == 0)
		return NB_PACING_FQ;
	return tcp ? NB_PACING_TCP : NB_PACING_USER;
}

/* Walk one netlink reply buffer: the root qdisc's kind into root, a child's into child.
 * Returns 1 at the end of the dump, 0 for more, -1 on error. */
static int qdisc_msgs(const char *buf, ssize_t len, int ifindex, char *root, char *child, size_t klen)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -1;
		if (h->nlmsg_type != RTM_NEWQDISC)
			continue;
		const struct tcmsg *t = NLMSG_DATA(h);
		if (t->tcm_ifindex != ifindex || t->tcm_parent == TC_H_INGRESS)
			continue;
		int alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*t)));
		for (const struct rtattr *a = (const void *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
		     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type != TCA_KIND)
				continue;
			char *dst = t->tcm_parent == TC_H_ROOT ? root : child;
			if (!dst[0])
				snprintf(dst, klen, "%.*s", (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
		}
	}
	return 0;
}

static int qdisc_dump(int fd, int ifindex, char *root, char *child, size_t klen)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg t;
	} req = { .h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETQDISC,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex } };
	if (send(fd, &req, sizeof(req), 0) < 0)
		return errno;
	char buf[32768];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno;
		int rc = qdisc_msgs(buf, n, ifindex, root, child, klen);
		if (rc)
			return rc < 0 ? EPROTO : 0;
	}
}

int nb_qdisc_kinds(int ifindex, char *root, char *child, size_t klen)
{
	root[0] = child[0] = '\0';
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return errno;
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int err = qdisc_dump(fd, ifindex, root, child, klen);
	close(fd);
	return err;
}

/* The root qdisc kind of the interface that carries fd's traffic, or "" when unknown. */
static void root_qdisc_of(int fd, char *root, size_t klen)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	char ifname[IF_NAMESIZE], child[32];
	struct nb_error err;
	root[0] = '\0';
	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0 ||
	    !nb_ifstats_route_ifname((struct sockaddr *)&peer, len, ifname, sizeof(ifname), &err))
		return;
	int ifindex = (int)if_nametoindex(ifname);
	if (ifindex)
		nb_qdisc_kinds(ifindex, root, child, klen);
}

enum nb_pacing nb_kpace_apply(int fd, bool tcp, uint64_t rate)
{
	if (rate == 0)
		return NB_PACING_NONE;
	char root[32];
	root_qdisc_of(fd, root, sizeof(root));
	enum nb_pacing how = nb_pacing_choose(tcp, rate, root);
	uint64_t bytes_per_s = rate / 8;
	if (how != NB_PACING_USER &&
	    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_s, sizeof(bytes_per_s)) < 0)
		how = tcp ? NB_PACING_TCP : NB_PACING_USER; /* refused: TCP still paces, UDP is ours */
	return how;
}
