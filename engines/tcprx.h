/* nbrun — what a TCP receiver's kernel says arrived, by tick.
 *
 * tcpi_bytes_received counts bytes as they become in order. After a loss, the segments behind
 * the hole wait in the out-of-order queue and are counted only when the retransmission fills
 * it: a window that starts while megabytes wait out of order (64 flows through a shaper after
 * slow start) then counts bytes that crossed the wire before it began, and reads above the
 * bottleneck. So a receiver's count is the in-order bytes plus an estimate of those waiting out
 * of order: the data segments that arrived (tcpi_data_segs_in, counted on arrival) times the
 * segment size, less the bytes that became in order since, never below zero — counted only over
 * readings in which some segment arrived out of order (tcpi_rcv_ooopack moved); in the others
 * nothing new waits, and what becomes in order pays off what was counted as waiting first. So
 * without reordering the count is tcpi_bytes_received exactly (short segments or not); with
 * it, segments shorter than the MSS (and duplicates) during reordering are counted as full ones
 * until in-order bytes pay them off: the count runs ahead by at most that, never behind, and
 * never goes back. */
#ifndef NB_TCPRX_H
#define NB_TCPRX_H

#include <stdint.h>

/** One receiving flow's state between readings (the harness's tick thread only). */
struct nb_tcprx {
	uint64_t bytes;   /* tcpi_bytes_received at the last reading */
	uint32_t segs;    /* tcpi_data_segs_in at the last reading */
	uint32_t ooo;     /* tcpi_rcv_ooopack at the last reading */
	uint64_t waiting; /* bytes estimated to wait out of order */
	uint64_t arrived; /* the last count returned */
	int started;
};

/** The bytes that arrived so far: in-order bytes plus those estimated to wait out of order. */
uint64_t nb_tcprx_arrived(struct nb_tcprx *st, uint64_t bytes_received, uint32_t data_segs_in,
			  uint32_t rcv_mss, uint32_t rcv_ooopack);

#endif
