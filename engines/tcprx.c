/* nbrun — a TCP receiver's arrived bytes (see tcprx.h). */
#include "tcprx.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t nb_tcprx_arrived(struct nb_tcprx *st, const struct nb_tcprx_reading *r)
{
	if (!st->started) {
		*st = (struct nb_tcprx){ .bytes = r->bytes_received, .segs = r->data_segs_in,
					 .ooo = r->rcv_ooopack, .arrived = r->bytes_received,
					 .started = 1 };
		return st->arrived;
	}
	uint32_t dsegs = r->data_segs_in - st->segs, dooo = r->rcv_ooopack - st->ooo; /* wrap-safe */
	uint64_t in_order = r->bytes_received - st->bytes;
	if (dooo == 0) {
		/* nothing new waits; a clean reading measures the flow's bytes per segment */
		if (st->waiting == 0 && dsegs > 0 && in_order / dsegs > 0)
			st->seg_len = (uint32_t)min_u64(in_order / dsegs, r->rcv_mss);
		st->waiting = st->waiting > in_order ? st->waiting - in_order : 0;
	} else {
		uint64_t len = st->seg_len ? st->seg_len : r->rcv_mss;
		uint64_t came = st->waiting + (uint64_t)dsegs * len;
		st->waiting = came > in_order ? min_u64(came - in_order, r->rmem_alloc) : 0;
	}
	st->bytes = r->bytes_received;
	st->segs = r->data_segs_in;
	st->ooo = r->rcv_ooopack;
	if (r->bytes_received + st->waiting > st->arrived)
		st->arrived = r->bytes_received + st->waiting;
	return st->arrived;
}

uint64_t nb_tcprx_settled(struct nb_tcprx *st, uint64_t bytes_received)
{
	st->waiting = 0;
	st->bytes = st->arrived = bytes_received;
	return bytes_received;
}
