/*
 * trace_records.h
 *		Turns one backend's trace-ring records into the shared record stream
 *		(tracefmt/record.h) that trace files store and the analysis engine
 *		reads: the same transitions the external tracer's full tier writes.
 *
 * Pure logic, no I/O. A wait of event E from t0 to t1 becomes
 *   - a transition 0 -> E at t0 whose duration is the time on CPU since the
 *     previous wait of the same stream ended (only when that is known, i.e.
 *     the previous record of the stream was a wait or a marker), and
 *   - a transition E -> 0 at t1 with duration t1 - t0;
 * a marker becomes a transition to the marker id at its time. Markers the
 * record format has no id for are counted and dropped.
 */
#ifndef PGWT_TRACE_RECORDS_H
#define PGWT_TRACE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extension/trace_ring.h"
#include "tracefmt/record.h"

/* State of one backend's stream between drains. */
typedef struct pgwt_trace_stream
{
	uint32_t	pid;
	bool		have_last;		/* last_end_ns is meaningful */
	uint64_t	last_end_ns;	/* end of the previous wait, or marker time */
	uint64_t	next_pos;		/* ring position to read next */
	uint64_t	dropped_markers;	/* markers without a record-format id */
} pgwt_trace_stream;

extern void pgwt_trace_stream_init(pgwt_trace_stream *s, uint32_t pid,
								   uint64_t first_pos);

/* Record-format id of a ring marker, or 0 when the format has none. */
extern uint32_t pgwt_trace_marker_event(uint32_t marker);

/*
 * Convert n ring records; out must hold 2 * n records. Returns the number
 * written. Records must come in position order; a gap in positions (lost
 * records) makes the next wait's CPU time unknown, so it gets no start
 * transition.
 */
extern size_t pgwt_trace_convert(pgwt_trace_stream *s,
								 const pgwt_tring_rec *in, size_t n,
								 pgwt_record *out);

#endif							/* PGWT_TRACE_RECORDS_H */
