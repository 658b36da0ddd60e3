/* nbrun — the UDP test datagram header and the receiver's sequence accounting (see udpseq.h). */
#include "udpseq.h"

#include <endian.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "dhello.h"
#include "epoch.h"
#include "sock.h"

/* One byte swap and one 8-byte access each: every datagram's header goes through these. */
static void put_be64(unsigned char *b, uint64_t v)
{
	uint64_t be = htobe64(v);
	memcpy(b, &be, sizeof(be));
}

static uint64_t get_be64(const unsigned char *b)
{
	uint64_t be;
	memcpy(&be, b, sizeof(be));
	return be64toh(be);
}

static void put_be32(unsigned char *b, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

#define COOKIE_CONTEXT "nbcookie" /* crypto_kdf context of a run key's flow cookies: 8 bytes */

uint64_t nb_dgram_cookie(const unsigned char key[NB_KEY_LEN], uint32_t flow)
{
	unsigned char k[crypto_kdf_BYTES_MIN];
	crypto_kdf_derive_from_key(k, sizeof(k), (uint64_t)flow + 1, COOKIE_CONTEXT, key);
	uint64_t c;
	memcpy(&c, k, sizeof(c)); /* the bytes as they go: the same on any host's byte order */
	sodium_memzero(k, sizeof(k));
	return c;
}

void nb_dgram_put(unsigned char *buf, uint64_t seq, uint64_t send_ns, uint64_t cookie, uint32_t epoch)
{
	put_be64(buf, seq);
	put_be64(buf + 8, send_ns);
	memcpy(buf + 16, &cookie, sizeof(cookie));
	put_be32(buf + 24, epoch);
}

void nb_seqrx_init(struct nb_seqrx *r, const struct nb_flow *f)
{
	memset(r, 0, sizeof(*r));
	r->cookie = nb_dgram_cookie(f->p->key, f->index);
	r->key = f->p->key;
	r->reach_pps = NB_SEQ_PPS_CEILING;
	r->last_ns = nb_now_ns();
}

void nb_seqrx_set_rate(struct nb_seqrx *r, double pps)
{
	r->reach_pps = pps > 0 ? pps : NB_SEQ_PPS_CEILING;
}

/* Whether seq, arriving at now_ns, is within what the sender can have sent: the reorder window
 * ahead of the highest one seen always is (the common case costs one compare); further, twice
 * the rate over the time since the last datagram counted, plus 100 ms of it. */
static inline bool within_reach(const struct nb_seqrx *r, uint64_t seq, uint64_t now_ns)
{
	if (seq < r->next + NB_SEQ_WINDOW)
		return true;
	double dt = now_ns > r->last_ns ? (double)(now_ns - r->last_ns) / 1e9 : 0;
	return (double)(seq - r->next) < NB_SEQ_WINDOW + r->reach_pps * (2.0 * dt + 0.1);
}

/* Not a datagram of this flow: counted apart, nothing else touched. A data hello of the run (a
 * repeated answer of the return-path check, late) is not foreign either. */
static bool foreign(const struct nb_seqrx *r, struct nb_flow *f, const unsigned char *buf,
		    size_t len)
{
	if (!(r->key && nb_dhello_of_run(buf, len, r->key)))
		nb_count(f, NB_C_FOREIGN, 1);
	return false;
}

static bool bit_test_set(struct nb_seqrx *r, uint64_t seq)
{
	uint64_t i = seq % NB_SEQ_WINDOW;
	uint64_t m = 1ull << (i % 64);
	bool was = r->seen[i / 64] & m;
	r->seen[i / 64] |= m;
	return was;
}

/* Move the window forward to cover seq: clear the bits of sequences skipped. */
static void advance(struct nb_seqrx *r, uint64_t seq)
{
	if (seq - r->next >= NB_SEQ_WINDOW) {
		memset(r->seen, 0, sizeof(r->seen));
	} else {
		for (uint64_t s = r->next; s <= seq; s++)
			r->seen[(s % NB_SEQ_WINDOW) / 64] &= ~(1ull << (s % 64));
	}
	r->next = seq + 1;
}

static void jitter(struct nb_seqrx *r, struct nb_flow *f, uint64_t send_ns, uint64_t recv_ns)
{
	int64_t transit = (int64_t)(recv_ns - send_ns);
	if (r->have_transit) {
		double d = (double)llabs(transit - r->last_transit_ns);
		r->jitter_ns += (d - r->jitter_ns) / 16.0;
		nb_gauge_set(f, NB_G_JITTER_NS, (uint64_t)r->jitter_ns);
	}
	r->have_transit = true;
	r->last_transit_ns = transit;
}

bool nb_seqrx_account(struct nb_seqrx *r, struct nb_flow *f, const unsigned char *buf, size_t len,
		      uint64_t recv_ns)
{
	uint64_t cookie;
	if (len >= NB_DGRAM_HDR)
		memcpy(&cookie, buf + 16, sizeof(cookie));
	if (len < NB_DGRAM_HDR || cookie != r->cookie)
		return foreign(r, f, buf, len);
	uint64_t seq = get_be64(buf);
	if (!within_reach(r, seq, recv_ns ? recv_ns : r->last_ns))
		return foreign(r, f, buf, len);
	if (recv_ns)
		r->last_ns = recv_ns;
	nb_count(f, NB_C_RX_PACKETS, 1);
	nb_count(f, NB_C_RX_BYTES, len);
	if (seq >= r->next) {
		nb_count(f, NB_C_LOST, seq - r->next);
		advance(r, seq);
		bit_test_set(r, seq);
	} else if (r->next - seq > NB_SEQ_WINDOW) {
		/* Too old to tell a duplicate from a late arrival: late, and nothing else. */
		nb_count(f, NB_C_LATE, 1);
		return true;
	} else if (bit_test_set(r, seq)) {
		nb_count(f, NB_C_DUP, 1);
		return true;
	} else {
		nb_count(f, NB_C_REORDER, 1);
		nb_count(f, NB_C_LOST, (uint64_t)-1);
	}
	nb_epoch_count(f, get_be32(buf + 24), r->cur);
	if (recv_ns)
		jitter(r, f, get_be64(buf + 8), recv_ns);
	return true;
}
