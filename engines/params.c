/* nbrun — enum names of the case parameters (see params.h), and which end sends on a flow of a
 * directional case; the flow layout that asks the registry is params_flows.c. */
#include "params.h"

#include <string.h>

const char *const nb_proto_names[NB_PROTO_N] = { "tcp", "udp", "icmp" };
const char *const nb_dir_names[NB_DIR_N] = { "forward", "reverse", "bidir" };
const char *const nb_wait_names[NB_WAIT_N] = { "block", "spin", "busy-poll" };

_Static_assert(NB_PROTO_ICMP + 1 == NB_PROTO_N, "a name for each enum nb_proto");
_Static_assert(NB_DIR_BIDIR + 1 == NB_DIR_N, "a name for each enum nb_dir");
_Static_assert(NB_WAIT_BUSY_POLL + 1 == NB_WAIT_N, "a name for each enum nb_wait");

static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
	return v < n ? names[v] : "?";
}

static bool parse(const char *const *names, unsigned n, const char *s, unsigned *out)
{
	for (unsigned i = 0; s && i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

const char *nb_proto_name(enum nb_proto p)
{
	return name_of(nb_proto_names, NB_PROTO_N, (unsigned)p);
}

const char *nb_dir_name(enum nb_dir d)
{
	return name_of(nb_dir_names, NB_DIR_N, (unsigned)d);
}

const char *nb_wait_name(enum nb_wait w)
{
	return name_of(nb_wait_names, NB_WAIT_N, (unsigned)w);
}

bool nb_proto_parse(const char *s, enum nb_proto *out)
{
	unsigned v;
	if (!parse(nb_proto_names, NB_PROTO_N, s, &v))
		return false;
	*out = (enum nb_proto)v;
	return true;
}

bool nb_dir_parse(const char *s, enum nb_dir *out)
{
	unsigned v;
	if (!parse(nb_dir_names, NB_DIR_N, s, &v))
		return false;
	*out = (enum nb_dir)v;
	return true;
}

bool nb_wait_parse(const char *s, enum nb_wait *out)
{
	unsigned v;
	if (!parse(nb_wait_names, NB_WAIT_N, s, &v))
		return false;
	*out = (enum nb_wait)v;
	return true;
}

bool nb_params_dir_client_sends(const struct nb_params *p, uint32_t flow)
{
	switch (p->direction) {
	case NB_DIR_FORWARD:
		return true;
	case NB_DIR_REVERSE:
		return false;
	case NB_DIR_BIDIR:
		return flow < p->streams;
	}
	return true;
}
