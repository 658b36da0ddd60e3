/* nb_fuzz_seeds — writes the seed corpora of the proto and handshake harnesses from this build's
 * encoder, so a protocol change refreshes them in one step:
 *     build/tests/nb_fuzz_seeds tests/fuzz/corpus
 * proto/NAME: one frame body each (what fuzz_proto takes). handshake/NAME: the harness's first
 * byte (bit 0: the agent's end, bit 1: it holds a secret), then everything the peer sends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "proto.h"
#include "session.h"

static const char *dir;

static void write_file(const char *sub, const char *name, const uint8_t *p, size_t n)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* m's whole frame appended to b. */
static void frame(struct nb_buf *b, const struct nb_msg *m)
{
	struct nb_error err;
	if (!nb_msg_encode(m, b, &err)) {
		fprintf(stderr, "nb_fuzz_seeds: %s\n", err.msg);
		exit(1);
	}
}

static void proto_seed(const char *name, const struct nb_msg *m)
{
	struct nb_buf b = { 0 };
	frame(&b, m);
	write_file("proto", name, b.p + 4, b.len - 4);
	nb_buf_free(&b);
}

static struct nb_msg hello(enum nb_role role, uint16_t proto, const char *version, uint8_t auth)
{
	struct nb_msg m = { .type = NB_MSG_HELLO };
	m.u.hello = (struct nb_msg_hello){ .proto_version = proto, .role = (uint8_t)role, .auth = auth };
	snprintf(m.u.hello.version, sizeof(m.u.hello.version), "%s", version);
	for (int i = 0; i < NB_NONCE_LEN; i++)
		m.u.hello.nonce[i] = (uint8_t)i;
	return m;
}

static struct nb_msg error_msg(enum nb_err_code code, const char *text)
{
	struct nb_msg m = { .type = NB_MSG_ERROR };
	m.u.error.code = (uint16_t)code;
	snprintf(m.u.error.text, sizeof(m.u.error.text), "%s", text);
	return m;
}

static struct nb_msg_setup setup_of(const char *engine, enum nb_proto proto, enum nb_dir dir_)
{
	struct nb_msg_setup s = { .run_id = 7, .duration_ns = 5000000000ull, .interval_ns = 1000000000ull };
	snprintf(s.case_id, sizeof(s.case_id), "t/%s/s1400/p1", engine);
	s.params = (struct nb_params){ .proto = proto, .direction = dir_, .size = 1400, .streams = 1,
				       .tos = -1 };
	snprintf(s.params.engine, sizeof(s.params.engine), "%s", engine);
	return s;
}

static struct nb_msg snap_msg(enum nb_msg_type type, struct nb_snapshot *snap)
{
	snap->nflows = 2;
	snap->host_busy_ticks = 123456789;
	for (uint32_t f = 0; f < snap->nflows; f++) {
		snap->flow[f].sends = f == 0;
		for (int c = 0; c < NB_C_COUNT; c++)
			snap->flow[f].c[c] = 1000u * (f + 1) + (uint64_t)c;
	}
	struct nb_msg m = { .type = type };
	struct nb_msg_snap *s = type == NB_MSG_RESULT ? &m.u.result.s : &m.u.interval;
	*s = (struct nb_msg_snap){ .index = 3, .t_ns = 1500000000ull, .snap = snap };
	return m;
}

static void proto_setups(void)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	m.u.setup = setup_of("stream", NB_PROTO_TCP, NB_DIR_FORWARD);
	proto_seed("setup_stream_tcp", &m);
	m.u.setup = setup_of("pps", NB_PROTO_UDP, NB_DIR_BIDIR);
	m.u.setup.params.rate = 100000;
	proto_seed("setup_pps_udp_bidir", &m);
	m.u.setup = setup_of("rr", NB_PROTO_TCP, NB_DIR_FORWARD);
	m.u.setup.params.ncpus = 2;
	m.u.setup.params.cpus[1] = 1;
	snprintf(m.u.setup.params.congestion, sizeof(m.u.setup.params.congestion), "cubic");
	proto_seed("setup_rr_cpus_cc", &m);
	m.u.setup = setup_of("stream", NB_PROTO_UDP, NB_DIR_FORWARD);
	m.u.setup.any_source = 1;
	proto_seed("setup_listen_any_source", &m);
	m.u.setup = setup_of("stream", NB_PROTO_UDP, NB_DIR_FORWARD);
	m.u.setup.end = NB_END_CONNECT;
	m.u.setup.target = (struct nb_target){ .family = 4, .addr = { 192, 0, 2, 7 }, .port = 7601 };
	memset(m.u.setup.grant, 0x5a, sizeof(m.u.setup.grant));
	proto_seed("setup_connect_grant_v4", &m);
	m.u.setup.target = (struct nb_target){ .family = 6, .addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 },
					       .port = 7602 };
	proto_seed("setup_connect_grant_v6", &m);
}

static void proto_seeds(void)
{
	struct nb_msg m = hello(NB_ROLE_CLIENT, NB_PROTO_VERSION, "0.1.0", NB_AUTH_NONE);
	proto_seed("hello_client", &m);
	m = hello(NB_ROLE_AGENT, 0, "", NB_AUTH_MAC);
	proto_seed("hello_agent_mac", &m);
	m = hello(NB_ROLE_CLIENT, 1, "0.1.0", NB_AUTH_NONE);
	proto_seed("hello_v1", &m);
	m = (struct nb_msg){ .type = NB_MSG_AUTH };
	memset(m.u.auth.mac, 0xa5, sizeof(m.u.auth.mac));
	proto_seed("auth", &m);
	struct nb_kv kv[2] = { { "iface.mtu", "1500" }, { "cpu.model", "caf\xc3\xa9 \xe2\x82\xac" } };
	m = (struct nb_msg){ .type = NB_MSG_FACTS, .u.facts = { .nkv = 2, .kv = kv } };
	proto_seed("facts", &m);
	proto_setups();
	m = (struct nb_msg){ .type = NB_MSG_READY, .u.ready.port = 7601 };
	proto_seed("ready", &m);
	const enum nb_msg_type bare[] = { NB_MSG_START, NB_MSG_STOP, NB_MSG_BYE };
	const char *bare_names[] = { "start", "stop", "bye" };
	for (int i = 0; i < 3; i++) {
		m = (struct nb_msg){ .type = bare[i] };
		proto_seed(bare_names[i], &m);
	}
	struct nb_snapshot *snap = nb_snapshot_create(false);
	m = snap_msg(NB_MSG_INTERVAL, snap);
	proto_seed("interval", &m);
	snap->has_loss = true; /* protocol 7: the loss budget's counters at the end */
	snap->loss_ok = (1u << NB_L_COUNT) - 1;
	for (int i = 0; i < NB_L_COUNT; i++)
		snap->loss[i] = 10u * (unsigned)i;
	m = snap_msg(NB_MSG_INTERVAL, snap);
	proto_seed("interval_loss", &m);
	struct nb_snapshot *lagged = nb_snapshot_create_with(false, true); /* protocol 9 */
	nb_hist_record(lagged->lag, 40000);
	nb_hist_record(lagged->lag, 6200000);
	lagged->has_loss = true;
	m = snap_msg(NB_MSG_INTERVAL, lagged);
	proto_seed("interval_lag", &m);
	nb_snapshot_destroy(lagged);
	snap->has_loss = false;
	m = snap_msg(NB_MSG_RESULT, snap);
	proto_seed("result_ok", &m);
	m.u.result.ok = 0;
	snprintf(m.u.result.text, sizeof(m.u.result.text), "flow 0: recv: Connection reset by peer");
	proto_seed("result_failed", &m);
	nb_snapshot_destroy(snap);
	m = error_msg(NB_ERR_BUSY, "agent is busy");
	proto_seed("error_busy", &m);
	m = (struct nb_msg){ .type = NB_MSG_CHECK };
	m.u.check = (struct nb_msg_check){ .ncc = 2, .cc = { "cubic", "bbr" }, .ncpus = 2,
					   .cpus = { 0, 3 }, .protocols = 3, .max_flows = 8 };
	proto_seed("check", &m);
	m = (struct nb_msg){ .type = NB_MSG_CHECK_RESULT };
	snprintf(m.u.check_result.text, sizeof(m.u.check_result.text), "congestion control 'bbr2' "
		 "is not available\nCPU 999 does not exist\n");
	m.u.check_result.limits = (struct nb_limits){ .max_rate = 10000000000ull, .max_flows = 64,
						      .max_duration_s = 3600, .max_message = 1u << 20 };
	proto_seed("check_result", &m);
	m = (struct nb_msg){ .type = NB_MSG_PROBE, .u.probe = { NB_PROTO_UDP, 0 } };
	proto_seed("probe_udp", &m);
	m = (struct nb_msg){ .type = NB_MSG_QUEUE, .u.queue = { 0, 180000, 300000 } };
	proto_seed("queue_client", &m);
	m = (struct nb_msg){ .type = NB_MSG_QUEUE, .u.queue = { 2, 0, 240000 } };
	proto_seed("queue_agent", &m);
	m = (struct nb_msg){ .type = NB_MSG_TIME, .u.time = { 1, 2, 3 } };
	proto_seed("time", &m);
	m = (struct nb_msg){ .type = NB_MSG_COMPANION };
	memset(m.u.companion.ticket, 0xc3, sizeof(m.u.companion.ticket));
	proto_seed("companion", &m);
}

/* One handshake seed: the mode byte, then the frames of msgs. */
static void handshake_seed(const char *name, uint8_t mode, const struct nb_msg *msgs, int n)
{
	struct nb_buf b = { 0 };
	uint8_t head = mode;
	for (int i = 0; i < n; i++)
		frame(&b, &msgs[i]);
	uint8_t *all = malloc(b.len + 1);
	all[0] = head;
	memcpy(all + 1, b.p, b.len);
	write_file("handshake", name, all, b.len + 1);
	free(all);
	nb_buf_free(&b);
}

enum { AGENT_END = 1, WITH_SECRET = 2 };

static void handshake_seeds(void)
{
	struct nb_msg auth = { .type = NB_MSG_AUTH }, setup = { .type = NB_MSG_SETUP };
	setup.u.setup = setup_of("stream", NB_PROTO_TCP, NB_DIR_FORWARD);
	struct nb_msg client = hello(NB_ROLE_CLIENT, NB_PROTO_VERSION, "0.1.0", NB_AUTH_NONE);
	struct nb_msg client_mac = hello(NB_ROLE_CLIENT, NB_PROTO_VERSION, "0.1.0", NB_AUTH_MAC);
	struct nb_msg open_agent = hello(NB_ROLE_AGENT, NB_PROTO_VERSION, "0.1.0", NB_AUTH_NONE);
	struct nb_msg quiet_agent = hello(NB_ROLE_AGENT, 0, "", NB_AUTH_MAC);
	struct nb_msg old = hello(NB_ROLE_CLIENT, 1, "0.1.0", NB_AUTH_NONE);
	handshake_seed("agent_no_secret_client_hello", AGENT_END, &client, 1);
	handshake_seed("agent_secret_client_hello_auth", AGENT_END | WITH_SECRET,
		       (struct nb_msg[]){ client_mac, auth }, 2);
	handshake_seed("agent_secret_client_no_secret", AGENT_END | WITH_SECRET, &client, 1);
	handshake_seed("agent_setup_first", AGENT_END, &setup, 1);
	handshake_seed("agent_wrong_version", AGENT_END, &old, 1);
	/* a sealed session's first frames, made up: the end under test refuses the first */
	handshake_seed("agent_no_secret_then_frames", AGENT_END,
		       (struct nb_msg[]){ client, setup, setup }, 3);
	struct nb_msg busy = error_msg(NB_ERR_BUSY, "agent is busy");
	handshake_seed("client_agent_busy", 0, &busy, 1);
	struct nb_msg refused = error_msg(NB_ERR_AUTH, "authentication failed");
	handshake_seed("client_agent_error_auth", WITH_SECRET,
		       (struct nb_msg[]){ quiet_agent, refused }, 2);
	struct nb_msg mismatch = error_msg(NB_ERR_VERSION, "protocol version mismatch: agent nbrun "
					   "9.9 speaks v7, client nbrun 0.1.0 speaks v6");
	handshake_seed("client_agent_error_version_after_auth", WITH_SECRET,
		       (struct nb_msg[]){ quiet_agent, mismatch }, 2);
	handshake_seed("client_no_secret_agent_hello", 0, &open_agent, 1);
	handshake_seed("client_no_secret_agent_hello_then_frames", 0,
		       (struct nb_msg[]){ open_agent, busy, busy }, 3);
	handshake_seed("client_secret_agent_hello_auth", WITH_SECRET,
		       (struct nb_msg[]){ quiet_agent, auth }, 2);
	struct nb_buf b = { 0 };
	frame(&b, &client);
	uint8_t cut[20] = { AGENT_END };
	memcpy(cut + 1, b.p, sizeof(cut) - 1);
	write_file("handshake", "truncated", cut, sizeof(cut));
	nb_buf_free(&b);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nb_fuzz_seeds CORPUS_DIR   (e.g. tests/fuzz/corpus)\n");
		return 2;
	}
	dir = argv[1];
	proto_seeds();
	handshake_seeds();
	return 0;
}
