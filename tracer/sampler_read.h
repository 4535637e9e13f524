/*
 * sampler_read.h
 *		The sampled tier's state, shared by sampler.c (the backend table, the
 *		tick, the lifecycle) and sampler_read.c (how values are read: per
 *		backend, or batched through a plan over the shared memory). Not for
 *		use outside the sampler. Single-threaded: nothing here locks.
 */
#ifndef PGWT_TRACER_SAMPLER_READ_H
#define PGWT_TRACER_SAMPLER_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "common/query_carry.h"
#include "tracer/esc_notify.h"
#include "tracer/read_plan.h"
#include "tracer/sampler.h"
#include "tracer/tick_clock.h"

/*
 * Cached pointers are re-verified this often. With the proc connector a
 * reused pid is seen exiting and forking, so the check is only a safety
 * net; listing /proc could miss an exit and a reuse between two listings.
 */
#define SAMPLER_RECHECK_NS		1000000000ull
#define SAMPLER_RECHECK_CN_NS	30000000000ull
/*
 * A backend is re-read every tick until both pointers are set: InitProcess
 * sets my_wait_event_info first and MyBEEntry comes a little later, and a
 * backend cached in between would sample query id 0 until its next
 * periodic check. Past this age (syslogger never gets a PGPROC) the check
 * runs once a second.
 */
#define SAMPLER_YOUNG_NS		1000000000ull
#define SAMPLER_BATCH_GAP		16384	/* copying a gap is cheaper than a page pin */
#define SAMPLER_BATCH_RANGES	64		/* iovecs of the batched read */
#define SAMPLER_BATCH_MAX		(8u << 20)	/* bytes read per tick at most */
/*
 * The mapped segment is checked to still be the postmaster's whenever the
 * plan changes (a crash restart replaces it: its backends exit and new ones
 * fork, so the plan changes before any value of the new segment is
 * wanted) and at least this often.
 */
#define SAMPLER_MAP_CHECK_NS	1000000000ull

typedef struct sampler_backend
{
	uint32_t	pid;
	uint64_t	wait_ptr;		/* address of its wait_event_info, 0 = none */
	uint64_t	be_ptr;			/* cached MyBEEntry value */
	uint64_t	checked_ns;		/* pointers last read */
	uint64_t	seen_ns;		/* first tick that knew the backend */
	int			suspect;		/* last value failed: re-verify pointers */
	int			own_read;		/* this tick: values came from its own read */
	int64_t		ev_off;			/* wait_event_info in the batch buffer, -1 none */
	int64_t		qid_off;		/* st_query_id in the batch buffer, -1 none */
	int64_t		xact_off;		/* st_xact_start_timestamp there, -1 none */
	uint32_t	snap_event;		/* this tick's values from the batch */
	uint64_t	snap_qid;
	int64_t		snap_xact;
	PgwtQidCarry carry;			/* common/query_carry.h */
	pgwt_live_backend live;
	int			sampled;		/* has produced at least one sample */
} sampler_backend;

typedef struct sampler_state
{
	pgwt_sampler_config cfg;
	pgwt_tick_clock clock;
	sampler_backend *be;		/* sorted by pid */
	size_t		nbe,
				capbe;
	uint32_t   *notchild;		/* sorted pids known not to be ours */
	size_t		nnot,
				capnot;
	uint32_t   *listing;		/* scratch: pids in /proc */
	size_t		caplist;
	pgwt_record *recs;			/* scratch: one tick's samples */
	size_t		caprecs;
	uint64_t	last_scan_ns;
	int			dirfd;			/* /proc, kept open */
	int			cnfd;			/* proc connector, -1 = list /proc instead */
	pgwt_read  *reads;			/* scratch: this tick's batched reads */
	size_t		capreads;
	pgwt_span	spans[SAMPLER_BATCH_RANGES];
	size_t		nspans;
	struct iovec iov_local[SAMPLER_BATCH_RANGES];
	struct iovec iov_remote[SAMPLER_BATCH_RANGES];
	uint8_t    *batch_buf;
	size_t		capbatch;
	/*
	 * The part of the server's shared memory the plan reads, mapped
	 * read-only (map.base NULL: the batch is read with process_vm_readv).
	 */
	pgwt_shm_view map;
	int			map_state;		/* 0 untried, 1 usable, -1 off */
	uint64_t	map_checked_ns;
	int			postmaster_gone;
	int			batch_state;	/* 0 untested, 1 usable, -1 off */
	uint32_t	ignore_pid;		/* our own libpq backend */
	pgwt_exclusions excl;		/* listener's backends, no-session processes */
	int			rt_on;			/* currently SCHED_FIFO */
	const char *rt_why;			/* why the asked priority is not used */
	int			plan_dirty;		/* membership or a pointer changed */
	int			plan_ok;		/* the plan below is usable */
	uint64_t	batch_total;	/* bytes the plan reads */
	pgwt_self_metrics local_metrics;
} sampler_state;

typedef struct sampler_readbuf
{
	uint64_t	wait_ptr;
	uint64_t	be_ptr;
	uint32_t	event;
	uint64_t	query_id;
	int64_t		xact_start;		/* 0: none, or its place unknown */
} sampler_readbuf;

/* Grows *arr to hold need elements (doubling); 0, or -1 out of memory. */
extern int	pgwt_smp_grow(void **arr, size_t *cap, size_t need, size_t elsize);

/* Whether backend b's pointers are due for verification (an own read). */
static inline int
pgwt_smp_needs_check(const sampler_state *s, const sampler_backend *b, uint64_t now_ns)
{
	uint64_t	every = s->cnfd >= 0 ? SAMPLER_RECHECK_CN_NS : SAMPLER_RECHECK_NS;

	if (b->suspect)
		return 1;
	if (b->wait_ptr == 0 || (s->cfg.attach.be_var && b->be_ptr == 0))
		return now_ns - b->seen_ns < SAMPLER_YOUNG_NS ||
			now_ns - b->checked_ns >= SAMPLER_RECHECK_NS;
	/* spread the checks: each backend's phase depends on its pid */
	return now_ns - b->checked_ns >= every - (b->pid % 64) * (every / 256);
}

extern int	pgwt_smp_read_one(sampler_state *s, sampler_backend *b, sampler_readbuf *rb,
							  uint64_t now_ns);
extern int	pgwt_smp_batch_source(sampler_state *s, uint64_t now_ns, const uint8_t **valsp);
extern void pgwt_smp_snapshot(sampler_state *s, const uint8_t *vals);

#endif							/* PGWT_TRACER_SAMPLER_READ_H */
