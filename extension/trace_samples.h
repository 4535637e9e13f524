/*
 * trace_samples.h
 *		The in-server sampler's samples into the trace files (see
 *		trace_samples.c).
 */
#ifndef PGWT_TRACE_SAMPLES_H
#define PGWT_TRACE_SAMPLES_H

#include "tracefmt/tracefmt.h"

/*
 * Append the samples the sampler's history ring gained since *cursor (its
 * count of samples ever written) to dir; advances *cursor, counts samples
 * overwritten before they were read in *lost. Returns the records written.
 * Does nothing where the sampler does not run.
 */
extern uint64 pgwt_trace_drain_samples(pgwt_tf_dir_writer *dir, uint64 *cursor,
									   uint64 now_mono_ns, uint64 *lost);

#endif							/* PGWT_TRACE_SAMPLES_H */
