/*
 * blockers.c
 *		Lock waiters and their blockers (see blockers.h). Single-threaded:
 *		owned by the daemon loop. blockers.tsv is opened per poll by name
 *		in the checked trace directory (tracefmt/safe_dir.c), so a file
 *		rewritten by retention is appended to by its new inode.
 */
#include "tracer/blockers.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer/tier_stats.h"

/* One observation line at most: ts, waiter, PGWT_BLOCKERS_MAX_PER_OBS pids. */
#define BLK_LINE_MAX	(24 + 12 + PGWT_BLOCKERS_MAX_PER_OBS * 11 + 2)

int
pgwt_blockers_init_at(pgwt_blockers *b, uint64_t min_interval_ns, int dirfd,
					  const pgwt_tf_file_opts *opts, pgwt_blocker_sink sink, void *arg)
{
	memset(b, 0, sizeof(*b));
	b->min_interval_ns = min_interval_ns;
	b->sink = sink;
	b->sink_arg = arg;
	b->dirfd = -1;
	/* readable like the trace files: owner and group */
	b->tsv_opts.mode = 0640;
	b->tsv_opts.group_gid = -1;
	if (opts)
		b->tsv_opts = *opts;
	if (dirfd >= 0)
	{
		b->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		if (b->dirfd < 0)
			return -1;
	}
	return 0;
}

static void
blk_set(pgwt_blockers *b, uint32_t pid, int waiting)
{
	for (int i = 0; i < b->nwaiters; i++)
		if (b->waiters[i] == pid)
		{
			if (!waiting)
				b->waiters[i] = b->waiters[--b->nwaiters];
			return;
		}
	if (waiting && b->nwaiters < PGWT_BLOCKERS_MAX_WAITERS)
		b->waiters[b->nwaiters++] = pid;
}

void
pgwt_blockers_note(pgwt_blockers *b, const pgwt_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];

		if (r->kind == PGWT_REC_TRANSITION && PGWT_IS_MARKER(r->new_event))
			continue;
		blk_set(b, r->pid, pgwt_is_lock_wait(r->new_event));
	}
}

static void
blk_answer(void *arg, uint32_t waiter, const uint32_t *blockers, int n, int nall)
{
	pgwt_blockers *b = arg;

	(void) nall;
	if (n > PGWT_BLOCKERS_MAX_PER_OBS)
		n = PGWT_BLOCKERS_MAX_PER_OBS;
	b->observations_total++;
	if (b->dirfd >= 0)
	{
		if (b->cap - b->len < BLK_LINE_MAX)
		{
			size_t		cap = b->cap ? b->cap * 2 : 4096;
			char	   *nb = realloc(b->buf, cap);

			if (!nb)
			{
				b->lines_refused++;
				goto sink;
			}
			b->buf = nb;
			b->cap = cap;
		}
		b->len += (size_t) snprintf(b->buf + b->len, b->cap - b->len, "%" PRIu64 "\t%u\t",
									b->now_ns, waiter);
		for (int i = 0; i < n; i++)
			b->len += (size_t) snprintf(b->buf + b->len, b->cap - b->len, "%s%u",
										i ? "," : "", blockers[i]);
		b->buf[b->len++] = '\n';
	}
sink:
	if (b->sink)
		b->sink(b->sink_arg, b->now_ns, waiter, blockers, n);
}

int
pgwt_blockers_poll(pgwt_blockers *b, pgwt_pgconn *pg, uint64_t now_ns)
{
	uint64_t	before = b->observations_total;

	if (!pg || b->nwaiters == 0 ||
		(b->last_query_ns && now_ns - b->last_query_ns < b->min_interval_ns))
		return 0;
	b->last_query_ns = now_ns;
	b->now_ns = now_ns;
	b->queries_total++;
	b->len = 0;
	if (pgwt_pg_blocking_pids(pg, b->waiters, b->nwaiters, PGWT_BLOCKERS_MAX_PER_OBS,
							  blk_answer, b) < 0)
		return -1;
	/* one write per poll; the file's bound may refuse it (counted) */
	if (b->dirfd >= 0 && b->len > 0 &&
		pgwt_tf_side_append_at(b->dirfd, PGWT_TF_BLOCKERS_NAME, &b->tsv_opts,
							   b->buf, b->len) < 0)
		b->lines_refused += b->observations_total - before;
	b->len = 0;
	return (int) (b->observations_total - before);
}

void
pgwt_blockers_close(pgwt_blockers *b)
{
	if (b->dirfd >= 0)
		close(b->dirfd);
	b->dirfd = -1;
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}
