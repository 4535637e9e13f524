/*
 * scenario.h
 *		The synthetic workload description read by pgwt-synth, and the
 *		simulation that turns it into records plus the exact truth.
 */
#ifndef PGWT_SYNTH_SCENARIO_H
#define PGWT_SYNTH_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefmt/record.h"

#define SYN_MAX_EVENTS		64
#define SYN_MAX_BACKENDS	100000
#define SYN_NAME_MAX		64

typedef enum syn_dist
{
	SYN_DIST_EXP = 0,			/* exponential around the mean */
	SYN_DIST_FIXED,				/* always the mean */
	SYN_DIST_UNIFORM			/* uniform on [0, 2 * mean] */
} syn_dist;

typedef struct syn_event
{
	uint32_t	id;
	uint32_t	weight;			/* relative frequency */
	uint64_t	mean_ns;
	syn_dist	dist;
	char		name[SYN_NAME_MAX];	/* "Class:Name", optional */
} syn_event;

typedef struct syn_scenario
{
	uint64_t	seed;
	uint64_t	duration_ns;
	uint64_t	start_realtime_ns;
	uint64_t	start_monotonic_ns;
	uint32_t	pg_version;
	uint32_t	backends;
	uint32_t	first_pid;
	uint32_t	query_ids;		/* 0 = every record has query_id 0 */
	uint64_t	cpu_mean_ns;
	syn_dist	cpu_dist;
	bool		transitions;
	bool		cpu_column;		/* transitions carry cpu_ns (else unknown) */
	uint64_t	sample_period_ns;	/* 0 = no sampler */
	uint32_t	sample_jitter_pct;
	uint64_t	max_records;	/* 0 = no limit */
	/* exact windows (escalation): transitions are written only inside
	 * [start + offset + k * every, + length), between ESC_START/ESC_END
	 * markers; every = 0 means always (no markers) */
	uint64_t	esc_every_ns;
	uint64_t	esc_length_ns;
	uint64_t	esc_offset_ns;
	size_t		nevents;
	syn_event	events[SYN_MAX_EVENTS];
} syn_scenario;

/* Parses scenario text; on error returns -1 with a one-line message. */
extern int	syn_parse(const char *text, syn_scenario *sc, char *err, size_t errlen);

/* Exact truth, accumulated from the records as they are produced. */
typedef struct syn_truth_event
{
	uint64_t	waits;			/* transitions out of the event */
	uint64_t	wait_ns;		/* their durations */
	uint64_t	samples;
	uint64_t	sampled_ns;		/* sum of sample weights */
} syn_truth_event;

typedef struct syn_truth
{
	uint64_t	records;
	uint64_t	transitions;
	uint64_t	samples;
	uint64_t	first_ts;
	uint64_t	last_ts;
	syn_truth_event cpu;		/* event 0: on CPU */
	syn_truth_event ev[SYN_MAX_EVENTS];
} syn_truth;

/* Called for each record in time order; non-zero stops the run. */
typedef int (*syn_emit_fn) (const pgwt_record *rec, void *arg);

/* Runs the scenario; returns 0, the emitter's non-zero value, or -1. */
extern int	syn_run(const syn_scenario *sc, syn_emit_fn emit, void *arg,
					syn_truth *truth);

#endif
