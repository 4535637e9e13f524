/*
 * sampler.h
 *		The sampled capture tier: reads every backend's wait_event_info and
 *		query_id with process_vm_readv at a fixed rate.
 */
#ifndef PGWT_TRACER_SAMPLER_H
#define PGWT_TRACER_SAMPLER_H

#include "tracer/attach.h"
#include "tracer/capture.h"
#include "tracer/self_metrics.h"

typedef struct pgwt_sampler_config
{
	unsigned	rate_hz;		/* 1..1000 */
	int			postmaster_pid;
	pgwt_attach attach;
	pgwt_self_metrics *metrics; /* updated in place; may be NULL */
} pgwt_sampler_config;

/* NULL on out-of-memory. The source starts with no backends known. */
extern pgwt_capture_source *pgwt_sampler_create(const pgwt_sampler_config *cfg);

/* Sampler-specific controls (the capture interface stays generic). */
extern void pgwt_sampler_set_qid_offset(pgwt_capture_source *src, int offset);
/* A backend never sampled: the tracer's own libpq connection. */
extern void pgwt_sampler_ignore_pid(pgwt_capture_source *src, uint32_t pid);

#endif
