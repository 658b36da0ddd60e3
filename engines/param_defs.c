/* The parameter rows every engine or several engines take (see param_defs.h), and what a row
 * answers by itself: its field, its default, its plan.csv cell. */
#include "param_defs.h"

#include <stdio.h>
#include <string.h>

#include "pace.h"
#include "params.h"

/* The offset and size of a field of struct nb_params, as a row gives them. */
#define FIELD(f) .offset = offsetof(struct nb_params, f), .size = sizeof(((struct nb_params *)0)->f)

/* gso: `auto` says true, `off` false, as a boolean does. */
static const char *const gso_words[] = { "off", "auto" };

/* datapath: the kernel's sockets, or AF_XDP (enum nb_pkt_datapath). */
static const char *const datapath_words[NB_PKT_DATAPATH_N] = { "socket", "xdp" };

/* UDP_SEGMENT by default where the engine's traits say so (stream), else only when asked. */
static int64_t gso_default(const struct nb_engine *e)
{
	return e->traits.gso_default;
}

/* The CPU list is a count and the CPUs right after it (NB_PK_CPUS). */
_Static_assert(offsetof(struct nb_params, cpus) == offsetof(struct nb_params, ncpus) + 4,
	       "nb_params.cpus follows its count");
_Static_assert(sizeof(((struct nb_params *)0)->ncpus) == 4, "a CPU count is a uint32_t");

/* In the order of the config's key table and of the wire (the wire's order is the protocol:
 * a row goes last, or bumps NB_PROTO_VERSION). */
const struct nb_param_def nb_param_defs[] = {
	{ .key = "window", .kind = NB_PK_SIZE, FIELD(window), .max = 1u << 30, .unit = "bytes",
	  .wire = 4, .column = "window", .expect = "a buffer size up to 1G such as 4M",
	  .doc_value = "size ≤ 1G, 0 = kernel default",
	  .doc = "SO_SNDBUF / SO_RCVBUF of every data socket" },
	{ .key = "mss", .kind = NB_PK_UINT, .flags = NB_PF_TCP, FIELD(mss), .max = 65535,
	  .unit = "bytes", .wire = 4, .column = "mss", .doc_value = "0..65535, 0 = default",
	  .doc = "TCP_MAXSEG" },
	{ .key = "nodelay", .kind = NB_PK_BOOL, .flags = NB_PF_TCP, FIELD(nodelay), .wire = 1,
	  .column = "nodelay", .doc_value = "boolean", .doc = "TCP_NODELAY" },
	{ .key = "congestion", .kind = NB_PK_NAME, .flags = NB_PF_TCP, FIELD(congestion),
	  .column = "congestion", .what = "congestion control",
	  .expect = "a congestion control name such as cubic or bbr",
	  .doc_value = "name such as `cubic`, `bbr`", .doc_default = "kernel default",
	  .doc = "TCP_CONGESTION" },
	{ .key = "tos", .kind = NB_PK_TOS, FIELD(tos), .def = -1, .max = 255, .wire = 4,
	  .column = "tos",
	  .doc_value = "0..255, hex `0x10`, or a DSCP name: `ef`, `af11`..`af43`, `cs0`..`cs7`, "
		       "`le` (the code point shifted into the byte: `af41` = 136)",
	  .doc_default = "left alone", .doc = "IP_TOS / IPV6_TCLASS" },
	{ .key = "wait", .kind = NB_PK_ENUM, .flags = NB_PF_LISTED | NB_PF_AXES, FIELD(wait),
	  .def = NB_WAIT_BLOCK, .names = nb_wait_names, .nnames = NB_WAIT_N, .wire = 1,
	  .column = "wait", .what = "wait mode",
	  .doc = "how a requester waits for its answer (pps, `datapath: xdp` only: how its "
		 "receiver waits for frames): blocking, a user-space spin, or kernel busy polling" },
	{ .key = "gso", .kind = NB_PK_BOOL, .flags = NB_PF_LISTED | NB_PF_UDP, FIELD(gso),
	  .engine_def = gso_default, .names = gso_words, .nnames = 2, .wire = 1, .column = "gso",
	  .expect = "auto or off",
	  .doc_value = "`auto` (UDP_SEGMENT where the kernel offers it, else sendmmsg) or `off`; "
		       "`true`/`false` say the same",
	  .doc = "UDP segmentation offload of a sender" },
	{ .key = "batch", .kind = NB_PK_UINT, .flags = NB_PF_LISTED, FIELD(batch), .max = 1024,
	  .wire = 4, .column = "batch", .doc_value = "0..1024, 0 = engine default",
	  .doc = "messages per sendmmsg / recvmmsg" },
	{ .key = "timeout", .kind = NB_PK_DURATION_MS, .flags = NB_PF_LISTED, FIELD(timeout_ms),
	  .def = 1000, .min = 1, .max = 60000, .unit = "ms", .wire = 4, .wire_max = 3600000,
	  .column = "timeout_ms", .expect = "1ms to 60s", .doc_value = "duration 1ms..60s",
	  .doc = "a reply missing after this counts as a timeout" },
	{ .key = "port", .kind = NB_PK_UINT, .flags = NB_PF_LISTED | NB_PF_LOCAL, FIELD(port),
	  .min = 1, .max = 65535, .doc_value = "1..65535", .doc_default = "none (required)",
	  .doc = "the target's TCP port" },
	{ .key = "cpus", .kind = NB_PK_CPUS, .offset = offsetof(struct nb_params, ncpus),
	  .size = 4 + sizeof(((struct nb_params *)0)->cpus), .max = 4095, .column = "cpus",
	  .doc_value = "CPU numbers and ranges, up to 64 CPUs, each once: `2`, `0-3,8`, `[0-1, 4]`",
	  .doc_default = "not pinned", .doc = "flow i runs on CPU i % n of the list" },
	{ .key = "burst", .kind = NB_PK_DURATION_US, .flags = NB_PF_LISTED | NB_PF_UDP,
	  FIELD(burst_us), .def = NB_PACE_BURST_DEFAULT_NS / 1000,
	  .max = NB_PACE_BURST_MAX_NS / 1000, .unit = "us", .wire = 4, .column = "burst_us",
	  .expect = "0 to 10ms such as 500us", .doc_value = "duration 0..10ms",
	  .doc = "paced UDP (`pacing=user`): the datagrams due within this time leave back to back, "
		 "one at least; a wake-up sends what the timer's lateness leaves of it (docs/engines.md)" },
	{ .key = "datapath", .kind = NB_PK_ENUM, .flags = NB_PF_LISTED, FIELD(datapath),
	  .def = NB_PKT_SOCKET, .names = datapath_words, .nnames = NB_PKT_DATAPATH_N, .wire = 1,
	  .column = "datapath", .what = "datapath", .expect = "socket or xdp",
	  .doc = "the packet path: the kernel's UDP sockets, or AF_XDP sockets with an XDP program "
		 "on the interface toward the peer at both ends (docs/engines.md, pps)" },
	{ .key = "threads", .kind = NB_PK_UINT, .flags = NB_PF_LISTED, FIELD(threads),
	  .max = NB_MAX_FLOWS, .wire = 4, .expect = "0 to 256 threads such as 2",
	  .doc_value = "0..256, 0 = default",
	  .doc_default = "the flows, at most the CPUs the engine may use (`cpus`, else the process's affinity), at each end",
	  .doc = "flow threads per end: each drives its share of the flows with epoll; as many as "
		 "the flows = one thread per flow (docs/engines.md)" },
	{ .key = "bottleneck", .kind = NB_PK_RATE, .flags = NB_PF_LISTED | NB_PF_LOCAL | NB_PF_TCP,
	  FIELD(bottleneck_bps), .unit = "bit/s", .max = 1000000000000000ull,
	  .column = "bottleneck_bps", .expect = "a bit rate such as 1G or 100Mbit/s",
	  .doc_value = "bit rate such as `1G`, `100Mbit/s`; 0 = unknown", .doc_default = "unknown",
	  .doc = "TCP stream: the path's bottleneck bandwidth, for RFC 6349's TCP Transfer Time Ratio "
		 "and its window-below-BDP check (docs/reports.md); the report's only, never sent" },
	{ .key = NULL },
};

#define NCOMMON (sizeof(nb_param_defs) / sizeof(nb_param_defs[0]) - 1)
_Static_assert(NCOMMON <= NB_PARAM_ROWS_MAX, "NB_PARAM_ROWS_MAX holds every common row");

static bool is_common(const struct nb_param_def *d)
{
	for (size_t i = 0; i < NCOMMON; i++)
		if (d == &nb_param_defs[i])
			return true;
	return false;
}

const struct nb_param_def *nb_param_at(const struct nb_engine *e, size_t i, bool *own)
{
	*own = i >= NCOMMON;
	if (i < NCOMMON)
		return &nb_param_defs[i];
	const struct nb_param_def *d = e ? e->params : NULL;
	for (size_t k = NCOMMON; d && d->key; d++, k++)
		if (k == i)
			return d;
	return NULL;
}

const struct nb_param_def *nb_param_find(const char *key)
{
	for (const struct nb_param_def *d = nb_param_defs; d->key; d++)
		if (strcmp(d->key, key) == 0 || (d->alias && strcmp(d->alias, key) == 0))
			return d;
	return NULL;
}

bool nb_param_applies(const struct nb_param_def *d, const struct nb_engine *e)
{
	if (is_common(d))
		return !(d->flags & NB_PF_LISTED) || nb_engine_has_key(e, d->key);
	for (const struct nb_param_def *r = e ? e->params : NULL; r && r->key; r++)
		if (r == d)
			return true;
	return false;
}

void *nb_param_field(const struct nb_param_def *d, struct nb_params *p)
{
	return (unsigned char *)p + d->offset;
}

const void *nb_param_cfield(const struct nb_param_def *d, const struct nb_params *p)
{
	return (const unsigned char *)p + d->offset;
}

int64_t nb_param_get(const struct nb_param_def *d, const struct nb_params *p)
{
	const void *f = nb_param_cfield(d, p);
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	int32_t i32;
	uint64_t u64;
	switch (d->size) {
	case 1: return memcpy(&u8, f, 1), u8;
	case 2: return memcpy(&u16, f, 2), u16;
	case 4:
		if (d->kind == NB_PK_TOS)
			return memcpy(&i32, f, 4), i32;
		return memcpy(&u32, f, 4), u32;
	default: return memcpy(&u64, f, 8), (int64_t)u64;
	}
}

void nb_param_set(const struct nb_param_def *d, struct nb_params *p, int64_t v)
{
	void *f = nb_param_field(d, p);
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;
	uint64_t u64 = (uint64_t)v;
	switch (d->size) {
	case 1: memcpy(f, &u8, 1); break;
	case 2: memcpy(f, &u16, 2); break;
	case 4: memcpy(f, &u32, 4); break; /* an int32_t TOS: the same bytes */
	default: memcpy(f, &u64, 8); break;
	}
}

void nb_params_defaults(struct nb_params *p, const struct nb_engine *e)
{
	bool own;
	const struct nb_param_def *d;
	for (size_t i = 0; (d = nb_param_at(e, i, &own)); i++) {
		if (d->kind == NB_PK_NAME || d->kind == NB_PK_CPUS)
			memset(nb_param_field(d, p), 0, d->size);
		else
			nb_param_set(d, p, d->engine_def ? d->engine_def(e) : d->def);
	}
}

/* "0,2,3": the CPUs of a NB_PK_CPUS field. */
static void cpu_list(const struct nb_param_def *d, const struct nb_params *p, char *buf,
		     size_t len)
{
	const unsigned char *f = nb_param_cfield(d, p);
	uint32_t n;
	memcpy(&n, f, 4);
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && i < (d->size - 4) / 2 && used < len; i++) {
		int16_t cpu;
		memcpy(&cpu, f + 4 + 2 * i, 2);
		int k = snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpu);
		used += k > 0 ? (size_t)k : 0;
	}
}

char *nb_param_format(const struct nb_param_def *d, const struct nb_params *p, char *buf,
		      size_t len)
{
	int64_t v = d->kind == NB_PK_NAME || d->kind == NB_PK_CPUS ? 0 : nb_param_get(d, p);
	switch (d->kind) {
	case NB_PK_BOOL: snprintf(buf, len, "%s", v ? "on" : "off"); break;
	case NB_PK_ENUM:
		snprintf(buf, len, "%s", v >= 0 && v < (int64_t)d->nnames ? d->names[v] : "?");
		break;
	case NB_PK_NAME:
		snprintf(buf, len, "%.*s", (int)d->size, (const char *)nb_param_cfield(d, p));
		break;
	case NB_PK_TOS:
		if (v < 0)
			buf[0] = '\0';
		else
			snprintf(buf, len, "%lld", (long long)v);
		break;
	case NB_PK_CPUS: cpu_list(d, p, buf, len); break;
	default: snprintf(buf, len, "%llu", (unsigned long long)v); break;
	}
	return buf;
}

bool nb_param_in_plan(const struct nb_param_def *d, const struct nb_engine *e,
		      const struct nb_params *p)
{
	return d->column && nb_param_applies(d, e) &&
	       !((d->flags & NB_PF_TCP) && p->proto != NB_PROTO_TCP) &&
	       !((d->flags & NB_PF_UDP) && p->proto != NB_PROTO_UDP);
}

uint64_t nb_param_wire_max(const struct nb_param_def *d)
{
	switch (d->kind) {
	case NB_PK_BOOL: return 1;
	case NB_PK_ENUM: return d->nnames ? d->nnames - 1 : 0;
	case NB_PK_TOS: return d->max + 1; /* the value + 1: 0 = left alone */
	default: return d->wire_max ? d->wire_max : d->max;
	}
}

/* Whether an integer field or wire width of n bytes is one the codec and the accessors know. */
static bool width_ok(size_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

bool nb_param_def_check(const struct nb_param_def *d, bool own, struct nb_error *err)
{
	size_t lo = own ? offsetof(struct nb_params, own) : 0;
	size_t hi = own ? lo + NB_PARAMS_OWN_MAX : sizeof(struct nb_params);
	bool integer = d->kind != NB_PK_NAME && d->kind != NB_PK_CPUS;
	uint64_t wmax = nb_param_wire_max(d);
	if (d->offset < lo || d->size == 0 || d->offset + d->size > hi)
		return nb_error_set(err, "parameter %s: its field lies outside %s", d->key,
				    own ? "params.own" : "struct nb_params");
	if (integer && !width_ok(d->size))
		return nb_error_set(err, "parameter %s: a field of %zu bytes (expected 1, 2, 4 or 8)",
				    d->key, d->size);
	if (integer && !(d->flags & NB_PF_LOCAL) &&
	    (!width_ok(d->wire) || (d->wire < 8 && wmax >> (8 * d->wire) != 0)))
		return nb_error_set(err, "parameter %s: %u wire bytes do not hold %llu", d->key,
				    d->wire, (unsigned long long)wmax);
	if ((d->kind == NB_PK_ENUM && (!d->names || d->nnames == 0)) ||
	    (d->kind == NB_PK_BOOL && d->names && d->nnames != 2))
		return nb_error_set(err, "parameter %s: its names do not fit its kind", d->key);
	if (d->min > d->max && d->kind != NB_PK_BOOL && d->kind != NB_PK_ENUM)
		return nb_error_set(err, "parameter %s: min above max", d->key);
	if (own && (d->flags & NB_PF_LISTED))
		return nb_error_set(err, "parameter %s: an own row is its engine's (not LISTED)", d->key);
	return true;
}
