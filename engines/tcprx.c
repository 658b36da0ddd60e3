/* nbrun — a TCP receiver's arrived bytes (see tcprx.h). */
#include "tcprx.h"

uint64_t nb_tcprx_arrived(struct nb_tcprx *st, uint64_t bytes_received, uint32_t data_segs_in,
			  uint32_t rcv_mss, uint32_t rcv_ooopack)
{
	if (!st->started) {
		*st = (struct nb_tcprx){ .bytes = bytes_received, .segs = data_segs_in,
					 .ooo = rcv_ooopack, .arrived = bytes_received, .started = 1 };
		return bytes_received;
	}
	uint32_t dsegs = data_segs_in - st->segs, dooo = rcv_ooopack - st->ooo; /* wrap-safe */
	uint64_t came = (uint64_t)dsegs * rcv_mss, in_order = bytes_received - st->bytes;
	if (dooo == 0)
		came = 0; /* nothing new waits: what became in order is counted, less what waited */
	st->waiting = st->waiting + came > in_order ? st->waiting + came - in_order : 0;
	st->bytes = bytes_received;
	st->segs = data_segs_in;
	st->ooo = rcv_ooopack;
	if (bytes_received + st->waiting > st->arrived)
		st->arrived = bytes_received + st->waiting;
	return st->arrived;
}
