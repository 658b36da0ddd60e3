/* nbrun — load, attach and detach the embedded XDP program (see xdp_prog.h). */
#include "xdp_prog.h"

#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "engine.h" /* nb_error_set */
#include "xdp_obj.h"

struct nb_xdp_prog {
	struct bpf_object *obj;
	int ifindex;
	int link_fd;                    /* the BPF link, or -1 when attached through netlink */
	uint32_t mode_flag;             /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	int xsks_fd, stats_fd;
	char ifname[IF_NAMESIZE];
};

/* libbpf's last warning of this thread: the reason a load failed, for the error line. */
static _Thread_local char last_warning[160];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	char line[sizeof(last_warning)];
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (line[0])
		memcpy(last_warning, line, sizeof(line));
	return 0;
}

const char *nb_xdp_mode_name(enum nb_xdp_mode m)
{
	return m == NB_XDP_MODE_DRIVER ? "driver" : m == NB_XDP_MODE_GENERIC ? "generic" : "auto";
}

static bool prog_name_of(uint32_t id, char *name)
{
	int fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return false;
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	bool ok = bpf_obj_get_info_by_fd(fd, &info, &len) == 0;
	close(fd);
	if (ok)
		snprintf(name, BPF_OBJ_NAME_LEN, "%s", info.name);
	return ok;
}

bool nb_xdp_prog_query(const char *ifname, uint32_t *id, char *name, struct nb_error *err)
{
	int ifindex = (int)if_nametoindex(ifname);
	if (!ifindex)
		return nb_error_errno(err, errno, "xdp: no interface %s", ifname);
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int rc = bpf_xdp_query(ifindex, 0, &q);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: %s: query the attached program", ifname);
	*id = q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
	if (name) {
		name[0] = '\0';
		if (*id && !prog_name_of(*id, name))
			snprintf(name, BPF_OBJ_NAME_LEN, "?");
	}
	return true;
}

/* A program already on the interface: ours left by a process that died (netlink-attached,
 * no link holds it) is detached; anything else refuses the attach, naming it. */
static bool clear_stale(int ifindex, const char *ifname, struct nb_error *err)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	if (bpf_xdp_query(ifindex, 0, &q) < 0 || q.attach_mode == XDP_ATTACHED_NONE)
		return true;
	uint32_t id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id ? q.skb_prog_id : q.prog_id;
	char name[BPF_OBJ_NAME_LEN] = "?";
	prog_name_of(id, name);
	if (strcmp(name, NB_XDP_PROG_NAME) != 0 || q.hw_prog_id)
		return nb_error_set(err, "xdp: %s already has an XDP program (id %u, \"%s\"): nbrun "
				    "leaves it alone (ip link set dev %s xdp off, or test another "
				    "interface)", ifname, id, name, ifname);
	uint32_t flag = q.drv_prog_id ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	int rc = bpf_xdp_detach(ifindex, flag, NULL);
	if (rc == -EBUSY)
		return nb_error_set(err, "xdp: %s is in use by another nbrun (its XDP program, id %u, "
				    "is held by a live process): one test per interface at a time",
				    ifname, id);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: %s: remove the XDP program id %u left by an "
				      "earlier run", ifname, id);
	return true;
}

/* The exact port set's bits (nb_ports), before the program takes any port. */
static bool set_ports(struct nb_xdp_prog *p, const struct nb_xdp_prog_config *cfg,
		      struct nb_error *err)
{
	int fd = bpf_object__find_map_fd_by_name(p->obj, "nb_ports");
	uint32_t bits[NB_XDP_PORT_WORDS] = { 0 };
	for (uint32_t i = 0; i < cfg->nports; i++)
		bits[cfg->ports[i] >> 5] |= 1u << (cfg->ports[i] & 31);
	for (uint32_t w = 0; w < NB_XDP_PORT_WORDS && cfg->nports; w++)
		if (bits[w] && bpf_map_update_elem(fd, &w, &bits[w], 0) < 0)
			return nb_error_errno(err, errno, "xdp: set the program's ports");
	return true;
}

static bool load(struct nb_xdp_prog *p, const struct nb_xdp_prog_config *cfg, struct nb_error *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = "nb_xdp");
	libbpf_set_print(keep_warning);
	last_warning[0] = '\0';
	p->obj = bpf_object__open_mem(nb_xdp_prog_obj, nb_xdp_prog_obj_len, &o);
	if (!p->obj)
		return nb_error_errno(err, errno, "xdp: open the embedded BPF object");
	struct bpf_map *xsks = bpf_object__find_map_by_name(p->obj, "nb_xsks");
	uint32_t n = cfg->queues ? cfg->queues : 1;
	if (!xsks || n > NB_XDP_MAX_QUEUES || bpf_map__set_max_entries(xsks, n) < 0)
		return nb_error_set(err, "xdp: %u queues: at most %u", n, NB_XDP_MAX_QUEUES);
	int rc = bpf_object__load(p->obj);
	if (rc == -EPERM || rc == -EACCES)
		return nb_error_set(err, "xdp: loading the XDP program was refused (%s): it needs "
				    "CAP_BPF and CAP_NET_ADMIN (or root)", strerror(-rc));
	if (rc < 0)
		return nb_error_set(err, "xdp: load the XDP program: %s%s%s", strerror(-rc),
				    last_warning[0] ? ": " : "", last_warning);
	p->xsks_fd = bpf_map__fd(xsks);
	p->stats_fd = bpf_object__find_map_fd_by_name(p->obj, "nb_stats");
	struct nb_xdp_cfg c = { .port_lo = cfg->port_lo, .port_hi = cfg->port_hi, .enabled = 1,
				.exact = cfg->nports > 0 };
	if (!set_ports(p, cfg, err))
		return false;
	uint32_t zero = 0;
	rc = bpf_map_update_elem(bpf_object__find_map_fd_by_name(p->obj, "nb_cfg"), &zero, &c, 0);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: set the program's ports");
	return true;
}

/* One attach in one mode: 0, or a negative errno. */
static int attach_one(struct nb_xdp_prog *p, int prog_fd, uint32_t flag, enum nb_xdp_attach *how)
{
	if (*how == NB_XDP_ATTACH_LINK) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = flag);
		int fd = bpf_link_create(prog_fd, p->ifindex, BPF_XDP, &lo);
		if (fd >= 0) {
			p->link_fd = fd;
			return 0;
		}
		if (fd != -EINVAL)
			return fd;
		*how = NB_XDP_ATTACH_NETLINK; /* a kernel without XDP links (before 5.9) */
	}
	return bpf_xdp_attach(p->ifindex, prog_fd, flag | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
}

static bool attach(struct nb_xdp_prog *p, const struct nb_xdp_prog_config *cfg,
		   struct nb_error *err)
{
	int prog_fd = bpf_program__fd(bpf_object__find_program_by_name(p->obj, NB_XDP_PROG_NAME));
	enum nb_xdp_attach how = cfg->attach;
	int rc = -EOPNOTSUPP;
	if (cfg->mode != NB_XDP_MODE_GENERIC) {
		p->mode_flag = XDP_FLAGS_DRV_MODE;
		rc = attach_one(p, prog_fd, p->mode_flag, &how);
	}
	if (rc == -EOPNOTSUPP && cfg->mode != NB_XDP_MODE_DRIVER) {
		p->mode_flag = XDP_FLAGS_SKB_MODE;
		rc = attach_one(p, prog_fd, p->mode_flag, &how);
	}
	if (rc == -EOPNOTSUPP)
		return nb_error_set(err, "xdp: %s: its driver has no native XDP (mode driver; "
				    "generic or auto would run it in skb mode)", p->ifname);
	if (rc == -EPERM || rc == -EACCES)
		return nb_error_set(err, "xdp: attaching to %s was refused: it needs CAP_NET_ADMIN",
				    p->ifname);
	if (rc == -EBUSY || rc == -EEXIST)
		return nb_error_set(err, "xdp: %s already has an XDP program in the other mode",
				    p->ifname);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: attach to %s (%s mode)", p->ifname,
				      p->mode_flag == XDP_FLAGS_DRV_MODE ? "driver" : "generic");
	if (how == NB_XDP_ATTACH_NETLINK)
		p->link_fd = -1;
	return true;
}

bool nb_xdp_prog_attach(const struct nb_xdp_prog_config *cfg, struct nb_xdp_prog **out,
			struct nb_error *err)
{
	int ifindex = (int)if_nametoindex(cfg->ifname);
	if (!ifindex)
		return nb_error_errno(err, errno, "xdp: no interface %s", cfg->ifname);
	struct nb_xdp_prog *p;
	if (!clear_stale(ifindex, cfg->ifname, err) || !nb_xdp_prog_load(cfg, &p, err))
		return false;
	snprintf(p->ifname, sizeof(p->ifname), "%s", cfg->ifname);
	p->ifindex = ifindex;
	if (!attach(p, cfg, err)) {
		p->ifindex = 0; /* nothing to detach */
		nb_xdp_prog_detach(p);
		return false;
	}
	*out = p;
	return true;
}

bool nb_xdp_prog_load(const struct nb_xdp_prog_config *cfg, struct nb_xdp_prog **out,
		      struct nb_error *err)
{
	struct nb_xdp_prog *p = calloc(1, sizeof(*p));
	if (!p)
		return nb_error_set(err, "xdp: out of memory");
	p->link_fd = p->xsks_fd = p->stats_fd = -1;
	if (!load(p, cfg, err)) {
		bpf_object__close(p->obj);
		free(p);
		return false;
	}
	*out = p;
	return true;
}

bool nb_xdp_prog_run(const struct nb_xdp_prog *p, const void *frame, uint32_t len,
		     uint32_t *action, struct nb_error *err)
{
	int fd = bpf_program__fd(bpf_object__find_program_by_name(p->obj, NB_XDP_PROG_NAME));
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame, .data_size_in = len, .repeat = 1);
	int rc = bpf_prog_test_run_opts(fd, &t);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: run the program on a %u-byte frame", len);
	*action = t.retval;
	return true;
}

bool nb_xdp_prog_probe(struct nb_error *err)
{
	struct nb_xdp_prog_config cfg = { .queues = 1 };
	struct nb_xdp_prog *p;
	if (!nb_xdp_prog_load(&cfg, &p, err))
		return false;
	nb_xdp_prog_detach(p);
	return true;
}

void nb_xdp_prog_detach(struct nb_xdp_prog *p)
{
	if (!p)
		return;
	if (p->link_fd >= 0)
		close(p->link_fd); /* the link's last reference: the program leaves the interface */
	else if (p->ifindex)
		bpf_xdp_detach(p->ifindex, p->mode_flag, NULL);
	bpf_object__close(p->obj);
	free(p);
}

bool nb_xdp_prog_add_socket(struct nb_xdp_prog *p, uint32_t queue, int xsk_fd,
			    struct nb_error *err)
{
	int rc = bpf_map_update_elem(p->xsks_fd, &queue, &xsk_fd, 0);
	if (rc < 0)
		return nb_error_errno(err, -rc, "xdp: %s queue %u: put the socket in the XSKMAP",
				      p->ifname, queue);
	return true;
}

enum nb_xdp_mode nb_xdp_prog_mode(const struct nb_xdp_prog *p)
{
	return p->mode_flag == XDP_FLAGS_DRV_MODE ? NB_XDP_MODE_DRIVER : NB_XDP_MODE_GENERIC;
}

enum nb_xdp_attach nb_xdp_prog_attached_by(const struct nb_xdp_prog *p)
{
	return p->link_fd >= 0 ? NB_XDP_ATTACH_LINK : NB_XDP_ATTACH_NETLINK;
}

bool nb_xdp_prog_stats(const struct nb_xdp_prog *p, uint64_t out[NB_XDP_STAT_N],
		       struct nb_error *err)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return nb_error_errno(err, -ncpu, "xdp: count the possible CPUs");
	uint64_t *v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return nb_error_set(err, "xdp: out of memory");
	bool ok = true;
	for (uint32_t k = 0; k < NB_XDP_STAT_N && ok; k++) {
		ok = bpf_map_lookup_elem(p->stats_fd, &k, v) == 0;
		out[k] = 0;
		for (int c = 0; ok && c < ncpu; c++)
			out[k] += v[c];
	}
	int e = errno;
	free(v);
	return ok ? true : nb_error_errno(err, e, "xdp: read the program's counters");
}
