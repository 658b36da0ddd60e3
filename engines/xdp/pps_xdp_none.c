/* nbrun — the pps engine's xdp datapath in a build without it (see pps_xdp.h): every entry
 * refuses, saying what the build left out (meson's summary: no libxdp, libbpf or clang, or a
 * static build without their .a files). */
#include "pps_xdp.h"

#include <stdio.h>

#include "nb_config.h"

bool nb_pps_xdp_built(void)
{
	return false;
}

const char *nb_pps_xdp_missing(void)
{
	return "datapath xdp: this nbrun was built without the AF_XDP data path (" NB_XDP_WHY ")";
}

bool nb_pps_xdp_validate(const struct nb_params *p, struct nb_error *err)
{
	(void)p;
	return nb_error_set(err, "%s", nb_pps_xdp_missing());
}

bool nb_pps_xdp_flow_init(struct nb_flow *f, struct nb_error *err)
{
	(void)f;
	return nb_error_set(err, "%s", nb_pps_xdp_missing());
}

void nb_pps_xdp_flow_fini(struct nb_flow *f)
{
	(void)f;
}

bool nb_pps_xdp_prepare(struct nb_flow *flows, uint32_t n, struct nb_error *err)
{
	(void)flows, (void)n, (void)err;
	return true;
}

int nb_pps_xdp_flow(struct nb_flow *f)
{
	return nb_error_set(&f->err, "%s", nb_pps_xdp_missing()), -1;
}

void nb_pps_xdp_kernel_counters(struct nb_flow *f)
{
	(void)f;
}

bool nb_pps_xdp_check(const struct sockaddr *peer, socklen_t peer_len, bool rx, bool tx,
		      uint32_t senders, char *what, size_t n, struct nb_error *err)
{
	(void)peer, (void)peer_len, (void)rx, (void)tx, (void)senders, (void)what, (void)n;
	return nb_error_set(err, "%s", nb_pps_xdp_missing());
}

void nb_pps_xdp_facts(uint64_t g, uint32_t readers, char *buf, size_t n)
{
	(void)g, (void)readers;
	if (n)
		buf[0] = '\0';
}
