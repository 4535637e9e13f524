/*
 * attach.h
 *		Resolve, for one running cluster, the addresses the sampler reads in
 *		every backend: the pointer to wait_event_info (my_wait_event_info,
 *		or MyProc on 13: tracer/pg_layout.c) and MyBEEntry.
 *
 * All backends are forked from the postmaster without exec, so they share
 * its load base: the addresses are computed once per postmaster.
 */
#ifndef PGWT_TRACER_ATTACH_H
#define PGWT_TRACER_ATTACH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracer/pg_layout.h"
#include "tracer/target.h"

typedef struct pgwt_attach
{
	int			pg_major;
	pgwt_pg_layout layout;		/* which pointer leads to wait_event_info */
	uint64_t	wait_var;		/* runtime address of layout.pointer_sym */
	uint64_t	be_var;			/* runtime address of MyBEEntry, 0 = none */
	uint64_t	image_lo;		/* the binary's loaded image [lo, hi): a */
	uint64_t	image_hi;		/* pointer into it is the local dummy */
	int			qid_offset;		/* st_query_id in PgBackendStatus, -1 = unknown */
	int			xact_offset;	/* st_xact_start_timestamp there, -1 = unknown */
} pgwt_attach;

extern int	pgwt_attach_resolve(const pgwt_cluster *c, pgwt_attach *a,
								char *errbuf, size_t errlen);

/* Read len bytes at remote addr of pid. 0 on success, -1 (errno set). */
extern int	pgwt_remote_read(int pid, uint64_t addr, void *out, size_t len);

/*
 * A read-only view of part of a process's shared memory segment, mapped
 * into our own address space through /proc/PID/map_files (needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE). The server address a is at
 * base + (a - lo).
 */
typedef struct pgwt_shm_view
{
	const uint8_t *base;		/* NULL = not mapped */
	uint64_t	lo,
				hi;				/* the view, in the server's addresses */
	size_t		len;
	dev_t		dev;			/* the segment's backing file */
	ino_t		ino;
	char		path[80];		/* /proc/PID/map_files/start-end */
} pgwt_shm_view;

/* Map the pages holding [lo, hi) of pid's shared mapping. 0 or -1. */
extern int	pgwt_shm_view_open(pgwt_shm_view *v, int pid, uint64_t lo, uint64_t hi);
extern void pgwt_shm_view_close(pgwt_shm_view *v);

/*
 * Does pid still map the segment the view shows? A restart after a crash
 * replaces it (maybe at the same address); the old one must not be read.
 */
extern int	pgwt_shm_view_current(const pgwt_shm_view *v);

#endif
