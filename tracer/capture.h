/*
 * capture.h
 *		The capture-source interface: what the daemon loop drives.
 *
 * A source produces pgwt_records for one attached cluster. The sampler
 * (sampler.c) is the only implementation today; the exact watchpoint tier
 * plugs in behind the same calls. Sources are driven from one thread.
 */
#ifndef PGWT_TRACER_CAPTURE_H
#define PGWT_TRACER_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "tracefmt/record.h"
#include "tracer/wait_class.h"

typedef void (*pgwt_emit_fn) (void *arg, const pgwt_record *recs, size_t n);

/* Live state of one backend as the source last saw it (for `active`). */
typedef struct pgwt_live_backend
{
	uint32_t	pid;
	uint32_t	event;
	uint64_t	query_id;
	pgwt_backend_state state;
	uint64_t	state_since_ns;	/* first tick this event was seen */
	uint64_t	db_time_ns;		/* sampled non-idle time since attach */
} pgwt_live_backend;

typedef struct pgwt_capture_source
{
	const char *name;			/* "sampled" */
	void	   *state;
	/* Capture once at now_ns; records go to emit. 0, or -1 when the
	 * cluster is gone (postmaster exited). */
	int			(*tick) (struct pgwt_capture_source *src, uint64_t now_ns,
						 pgwt_emit_fn emit, void *arg);
	/* Nanoseconds until the source wants its next tick. */
	uint64_t	(*next_deadline) (struct pgwt_capture_source *src);
	/* Snapshot of live backends; returns the count (<= max). */
	size_t		(*live) (struct pgwt_capture_source *src, pgwt_live_backend *out, size_t max);
	void		(*destroy) (struct pgwt_capture_source *src);
} pgwt_capture_source;

#endif
