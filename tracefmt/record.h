/*
 * record.h
 *		The in-memory record every tier produces and every reader consumes.
 *
 * This is the contract between capture (tracer, extension), the trace
 * format (tracefmt/) and the analysis engine (analysis/). It is not an
 * on-disk layout: the file format stores these fields column by column
 * through explicit little-endian helpers (docs/TRACE_FORMAT.md).
 */
#ifndef PGWT_TRACEFMT_RECORD_H
#define PGWT_TRACEFMT_RECORD_H

#include <stdint.h>

/* Record kinds; numerically equal to the block types of the file format. */
typedef enum pgwt_rec_kind
{
	PGWT_REC_TRANSITION = 0,	/* exact: a backend moved old -> new event */
	PGWT_REC_SAMPLE = 1			/* sampled: a backend was seen in event */
} pgwt_rec_kind;

/* Special event ids. 0 means "no wait event set" (on CPU when active). */
#define PGWT_EVENT_NONE			0x00000000u
#define PGWT_EVENT_EXIT			0xFFFFFFFFu	/* transition: backend exited */
/*
 * Markers are transitions whose new_event is in this reserved range
 * (docs/TRACE_FORMAT.md section 5). 0xF0..0xF7 are the seed tool's ids;
 * 0xF8..0xFC were added for the extension's statement phases; 0xFD and
 * 0xFE stay reserved.
 */
#define PGWT_MARKER_FIRST		0xFFFFFFF0u
#define PGWT_MARKER_EXEC_START	0xFFFFFFF0u
#define PGWT_MARKER_EXEC_END	0xFFFFFFF1u
#define PGWT_MARKER_PLAN_START	0xFFFFFFF2u
#define PGWT_MARKER_PLAN_END	0xFFFFFFF3u
#define PGWT_MARKER_ESC_START	0xFFFFFFF4u
#define PGWT_MARKER_ESC_END		0xFFFFFFF5u
#define PGWT_MARKER_CMD_START	0xFFFFFFF6u
#define PGWT_MARKER_CMD_END		0xFFFFFFF7u
#define PGWT_MARKER_UTILITY_START 0xFFFFFFF8u
#define PGWT_MARKER_UTILITY_END	0xFFFFFFF9u
#define PGWT_MARKER_XACT_COMMIT	0xFFFFFFFAu
#define PGWT_MARKER_XACT_ABORT	0xFFFFFFFBu
#define PGWT_MARKER_IDLE		0xFFFFFFFCu
#define PGWT_MARKER_LAST		0xFFFFFFFCu
#define PGWT_IS_MARKER(ev)		((ev) >= PGWT_MARKER_FIRST && (ev) <= PGWT_MARKER_LAST)

/* Reason codes in the old_event column of ESC_START / ESC_END markers. */
#define PGWT_ESC_CODE_UNSPECIFIED	0
#define PGWT_ESC_CODE_MANUAL		1
#define PGWT_ESC_CODE_ANOMALY		2	/* the AAS rule */
#define PGWT_ESC_CODE_SCHEDULE		3
#define PGWT_ESC_CODE_ANOMALY_LOCK	4
#define PGWT_ESC_CODE_ANOMALY_CPU	5
/* query_id of an ESC_START that repeats, at the head of a new file, a
 * window open across a rotation (docs/TRACE_FORMAT.md section 5). */
#define PGWT_ESC_CONTINUED			1

#define PGWT_CPU_UNKNOWN		UINT64_MAX

typedef struct pgwt_record
{
	uint64_t	ts_ns;			/* CLOCK_MONOTONIC nanoseconds */
	uint64_t	duration_ns;	/* transition: time spent in old_event */
	uint64_t	query_id;		/* 0 = unknown */
	uint64_t	cpu_ns;			/* transition: CPU time in old state, or
								 * PGWT_CPU_UNKNOWN */
	uint64_t	weight_ns;		/* sample: the time this sample stands for
								 * (the tick's measured length) */
	uint32_t	pid;
	uint32_t	old_event;		/* transition only */
	uint32_t	new_event;		/* transition: event entered; sample: the
								 * event seen; markers: PGWT_MARKER_* */
	uint8_t		kind;			/* pgwt_rec_kind */
} pgwt_record;

#endif							/* PGWT_TRACEFMT_RECORD_H */
