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
 *
 * Markers are thinned for the files (docs/TRACE_FORMAT.md section 5, "what
 * the extension writes"): each marker's duration is the time since the
 * backend's last transition, and commit/abort carry the query id of the
 * statement before them, both what the format's predictor expects, so
 * they cost no exception; an idle marker is not written when the
 * transition into its Client:ClientRead wait follows at the same instant
 * (it says the same); a statement's own executor and utility start/end
 * (the top level, between its statement start and end) are not written
 * (pgwt_trace() shows them from the ring). None of these changes what a
 * view bills: markers carry no time, and a dropped marker still opens the
 * CPU* span it would have opened. A stream with 'full' set writes every
 * marker as the ring has it (duration 0, commit/abort query id 0): what
 * the unit tests compare the thinned stream's views against.
 *
 * It also turns the escalation policy's state (analysis/policy/escalation.h),
 * as the trace writer sees it pass after pass, into the ESC_START/ESC_END
 * markers of docs/TRACE_FORMAT.md section 5.
 */
#ifndef PGWT_TRACE_RECORDS_H
#define PGWT_TRACE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/policy/escalation.h"
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
	/* thinning of markers (above) */
	bool		full;			/* write every marker as the ring has it */
	bool		have_trans;		/* last_trans_ns is meaningful */
	uint64_t	last_trans_ns;	/* ts of the last transition written */
	uint64_t	last_qid;		/* query id of the last record written */
	bool		in_stmt;		/* statement start seen, no end yet */
	bool		depth_known;	/* depth counts since a statement start */
	uint32_t	depth;			/* executor/utility nesting in the statement */
	uint64_t	thinned_markers;	/* markers not written (thinned) */
	uint64_t	marker_grain_ns;	/* PGWT_TRACE_MARKER_GRAIN_NS; 1 = exact */
	bool		have_out;		/* last_out_ns is meaningful */
	uint64_t	last_out_ns;	/* ts of the last record written */
} pgwt_trace_stream;

/*
 * Grain of a thinned stream's marker instants: each is written a whole
 * number of these after the stream's previous record (rounded down), which
 * the v8 format stores in a few bits (docs/TRACE_FORMAT.md section 5).
 */
#define PGWT_TRACE_MARKER_GRAIN_NS	1000

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

/*
 * What the trace writer has announced of the escalation windows: the
 * window whose ESC_START it wrote last, and whether its ESC_END is due.
 */
typedef struct pgwt_esc_tracker
{
	bool		open;			/* ESC_START written, ESC_END not yet */
	uint64_t	start_ns;		/* start of the last announced window */
	uint32_t	code;			/* its reason code (PGWT_ESC_CODE_*) */
} pgwt_esc_tracker;

/* Most markers one pgwt_trace_esc_markers call writes. */
#define PGWT_ESC_MARKERS_MAX	(2 * PGWT_ESC_MAX_SPANS + 3)

/* Reason code of a policy reason (the codes the external tracer writes). */
extern uint32_t pgwt_esc_reason_code(pgwt_esc_reason r);

/*
 * Start tracking: windows already closed in esc are history and are not
 * announced; an open one is (at the first pgwt_trace_esc_markers call).
 */
extern void pgwt_esc_tracker_init(pgwt_esc_tracker *t, const pgwt_escalation *esc);

/*
 * Markers for what changed in esc since the last call: ESC_END of the
 * announced window once it is among the closed spans (at its end, with the
 * length it ran), START+END pairs of windows that opened and closed in
 * between (reason code 0: the spans do not keep it), and ESC_START of the
 * open window (at its start, with its reason and planned length). now_ns
 * ends an announced window the policy lost track of. out must hold
 * PGWT_ESC_MARKERS_MAX records; returns the number written, in time order.
 */
extern size_t pgwt_trace_esc_markers(pgwt_esc_tracker *t, const pgwt_escalation *esc,
									 uint64_t now_ns, pgwt_record *out);

#endif							/* PGWT_TRACE_RECORDS_H */
