#include "udpseq.h"

#include <stdlib.h>
#include <string.h>

#include "epoch.h"

static void put_be64(unsigned char *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static uint64_t get_be64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | b[i];
	return v;
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

void nb_dgram_put(unsigned char *buf, uint64_t seq, uint64_t send_ns, uint32_t epoch)
{
	put_be64(buf, seq);
	put_be64(buf + 8, send_ns);
	put_be32(buf + 16, NB_DGRAM_MAGIC);
	put_be32(buf + 20, epoch);
}

void nb_seqrx_init(struct nb_seqrx *r)
{
	memset(r, 0, sizeof(*r));
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
	if (len < NB_DGRAM_HDR || get_be32(buf + 16) != NB_DGRAM_MAGIC)
		return false;
	uint64_t seq = get_be64(buf);
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
	nb_epoch_count(f, get_be32(buf + 20), r->cur);
	if (recv_ns)
		jitter(r, f, get_be64(buf + 8), recv_ns);
	return true;
}
