/*
 * attach.h
 *		Resolve, for one running cluster, the addresses the sampler reads in
 *		every backend: the my_wait_event_info and MyBEEntry variables.
 *
 * All backends are forked from the postmaster without exec, so they share
 * its load base: the addresses are computed once per postmaster.
 */
#ifndef PGWT_TRACER_ATTACH_H
#define PGWT_TRACER_ATTACH_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/target.h"

typedef struct pgwt_attach
{
	int			pg_major;
	uint64_t	wait_var;		/* runtime address of my_wait_event_info */
	uint64_t	be_var;			/* runtime address of MyBEEntry, 0 = none */
	uint64_t	image_lo;		/* the binary's loaded image [lo, hi): a */
	uint64_t	image_hi;		/* pointer into it is the local dummy */
	int			qid_offset;		/* st_query_id in PgBackendStatus, -1 = unknown */
} pgwt_attach;

/* Oldest and newest major versions the method is known to hold for. */
#define PGWT_MIN_PG_MAJOR 14
#define PGWT_MAX_PG_MAJOR 18

extern int	pgwt_attach_resolve(const pgwt_cluster *c, pgwt_attach *a,
								char *errbuf, size_t errlen);

/* Read len bytes at remote addr of pid. 0 on success, -1 (errno set). */
extern int	pgwt_remote_read(int pid, uint64_t addr, void *out, size_t len);

#endif
