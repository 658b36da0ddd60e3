/* nbrun — what a TCP receiver's kernel says arrived, by tick.
 *
 * tcpi_bytes_received counts bytes as they become in order. After a loss, the segments behind
 * the hole wait in the out-of-order queue and are counted only when the retransmission fills
 * it: a window that starts while megabytes wait out of order (64 flows through a shaper after
 * slow start) then counts bytes that crossed the wire before it began, and reads above the
 * bottleneck. So a receiver's count is the in-order bytes plus an estimate of those waiting out
 * of order, taken at each reading:
 * - over readings in which some segment arrived out of order (tcpi_rcv_ooopack moved), the data
 *   segments that arrived (tcpi_data_segs_in, counted on arrival) times the flow's own bytes
 *   per segment (measured over the last reading without reordering; the MSS before one), less
 *   the bytes that became in order since; never more than the memory the socket holds for
 *   received data (SO_MEMINFO's rmem_alloc: out-of-order segments are in it), never below 0;
 * - over the others nothing new waits, and what becomes in order pays off what was counted
 *   as waiting first.
 * The count never goes back. Without reordering it is tcpi_bytes_received exactly; with it,
 * segments shorter than the flow's average (or duplicates) during reordering are counted as
 * average ones until in-order bytes pay them off. */
#ifndef NB_TCPRX_H
#define NB_TCPRX_H

#include <stdint.h>

/** One receiving flow's state between readings (the harness's tick thread only). */
struct nb_tcprx {
	uint64_t bytes;   /* tcpi_bytes_received at the last reading */
	uint32_t segs;    /* tcpi_data_segs_in at the last reading */
	uint32_t ooo;     /* tcpi_rcv_ooopack at the last reading */
	uint32_t seg_len; /* bytes per data segment over the last reading without reordering */
	uint64_t waiting; /* bytes estimated to wait out of order */
	uint64_t arrived; /* the last count returned */
	int started;
};

/** One reading of a receiving socket's kernel counts (TCP_INFO, SO_MEMINFO). */
struct nb_tcprx_reading {
	uint64_t bytes_received;  /* tcpi_bytes_received */
	uint32_t data_segs_in;    /* tcpi_data_segs_in */
	uint32_t rcv_mss;         /* tcpi_rcv_mss */
	uint32_t rcv_ooopack;     /* tcpi_rcv_ooopack */
	uint64_t rmem_alloc;      /* SO_MEMINFO's SK_MEMINFO_RMEM_ALLOC (UINT64_MAX: unknown) */
};

/** After the senders stopped and the receiver drained (no window left to count), the whole
 *  flow's count is the in-order count exactly: forget the estimate and return bytes_received. */
uint64_t nb_tcprx_settled(struct nb_tcprx *st, uint64_t bytes_received);
/** The bytes that arrived so far: in-order bytes plus those estimated to wait out of order. */
uint64_t nb_tcprx_arrived(struct nb_tcprx *st, const struct nb_tcprx_reading *r);

#endif
