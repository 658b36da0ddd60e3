/* nbrun — the numbers of a case under working conditions (issue 32; docs/design.md, "Latency
 * under working conditions"): which phase each interval of a probe is in, a probe's histogram
 * split by phase, its idle and loaded percentiles and their inflation, Jain's fairness index
 * over the load's flows, and RPM in its TCP variant (draft-ietf-ippm-responsiveness's TCP-only
 * formula over connect, crr and a loaded request/response; not HTTP RPM). Pure: the run, the
 * report and compare compute them one way. */
#ifndef NB_WORKING_H
#define NB_WORKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "nb_error.h"

/** Where an interval of a probe lies on the case's time axis. */
enum nb_phase {
	NB_PHASE_IDLE,     /* the probes alone, before the load */
	NB_PHASE_RAMP,     /* the load's omitted first intervals: the queue filling */
	NB_PHASE_LOADED,   /* the load's measured window */
	NB_PHASE_AFTER,    /* the probes alone, after the load */
	NB_PHASE_OUTSIDE,  /* not an interval of the case (k = 0, or past its end) */
	NB_PHASES
};

/** A working case's timing, in ns; every field a whole number of interval_ns. */
struct nb_working_timing {
	uint64_t interval_ns;
	uint64_t idle_ns;      /* the probes alone first */
	uint64_t omit_ns;      /* the load's ramp, inside duration */
	uint64_t duration_ns;  /* the load's time, ramp included */
	uint64_t after_ns;     /* the probes alone after the load */
};

/** The phase's name as rows and reports spell it ("idle", "ramp", "loaded", "after"). */
const char *nb_phase_name(enum nb_phase p);
/** False, saying which, when a field is not a whole number of intervals, the interval is 0 or
 *  the ramp leaves the load no measured interval. */
bool nb_working_timing_check(const struct nb_working_timing *t, struct nb_error *err);
/** The probes' intervals: (idle + duration + after) / interval. */
uint32_t nb_working_nticks(const struct nb_working_timing *t);
/** Interval k (1-based, as intervals.csv numbers them) of a probe: its phase. */
enum nb_phase nb_working_phase_of(const struct nb_working_timing *t, uint32_t k);
/** The first interval of the load on the probes' axis (its START is idle after the case's). */
uint32_t nb_working_load_first_tick(const struct nb_working_timing *t);

/** Merge ivl[1 .. nk] (ivl[0] unused; a NULL entry: an interval without samples) into
 *  phase[p] by each interval's phase; every phase[p] must be a histogram (emptied first).
 *  Returns how many samples went outside every phase (intervals past the case's end). */
uint64_t nb_working_split(const struct nb_working_timing *t, struct nb_hist *const *ivl,
			  uint32_t nk, struct nb_hist *const phase[NB_PHASES]);

/** The same for the load's intervals ivl[1 .. nk], numbered on the load's own axis (its first
 *  interval is the probes' nb_working_load_first_tick): a load's self probes (stream_self.h),
 *  which exist in the ramp and loaded phases only. Returns the samples outside every phase. */
uint64_t nb_working_split_load(const struct nb_working_timing *t, struct nb_hist *const *ivl,
			       uint32_t nk, struct nb_hist *const phase[NB_PHASES]);

/** The single-sided trimmed mean of h in ns: the mean of the lowest ceil(keep * count) samples
 *  (keep 0.95: the draft's TMP of 95 %), each at its bucket's midpoint clamped to the
 *  histogram's min and max, a sample above the histogram's range at max. NaN when empty. */
double nb_hist_trimmed_mean(const struct nb_hist *h, double keep);

/** One probe across the phases. */
struct nb_probe_phases {
	struct nb_hist_summary idle, loaded;
	double tm_idle_ns, tm_loaded_ns;        /* trimmed means (95 %); NaN when empty */
	double inflation_p50_ns, inflation_p99_ns; /* loaded - idle; NaN when either is empty */
	double ratio_p50, ratio_p99;            /* loaded / idle; NaN when either is empty */
};
void nb_working_probe(const struct nb_hist *idle, const struct nb_hist *loaded,
		      struct nb_probe_phases *out);

/** Jain's fairness index (Σx)² / (n Σx²) over n shares (1: equal, 1/n: one has all); NaN for
 *  n = 0 or when every share is 0. */
double nb_jain(const double *x, size_t n);

/** RPM's inputs, trimmed means in ns; NaN: that probe did not run (or saw nothing). */
struct nb_rpm_in {
	double tcp_f_ns;  /* connect: a TCP handshake on a new connection */
	double crr_ns;    /* crr: handshake + request/response on a new connection */
	double rr_l_ns;   /* a request/response on another open connection: the stand-in */
	double rr_s_ns;   /* a self probe: request/response on a load connection (stream_self.h) */
};
struct nb_rpm {
	double foreign, loaded, rpm;            /* round trips per minute; NaN: an input missing */
	double rr_f_ns;                         /* crr less the handshake (clamped at 0) */
	bool self;                              /* the self term is the self probes' (else the
						   stand-in's, or missing) */
};
/** The draft's formula (its weights: 1/2 on the foreign probes, 1/2 on the self probes),
 *  adapted to TCP with no TLS: the foreign probes' half is shared by the handshake and the
 *  request/response on the new connection, 1/4 each:
 *    RPM = 60000 / (1/4 TM(tcp_f) + 1/4 TM(rr_f) + 1/2 TM(rr_s)), times in ms,
 *  rr_f = TM(crr) - TM(tcp_f) (clamped at 0), rr_s the self probes' trimmed mean, else the
 *  stand-in rr_l (and self false). foreign = 60000 / ((TM(tcp_f) + TM(rr_f)) / 2) and
 *  loaded = 60000 / TM(rr_s) are each half's own RPM (RPM is their harmonic mean). */
void nb_rpm_tcp(const struct nb_rpm_in *in, struct nb_rpm *out);

#endif
