/*
 * blockers.c
 *		Lock waiters and their blockers (see blockers.h). Single-threaded:
 *		owned by the daemon loop.
 */
#include "tracer/blockers.h"

#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "tracer/tier_stats.h"

int
pgwt_blockers_init(pgwt_blockers *b, uint64_t min_interval_ns, const char *tsv_path,
				   pgwt_blocker_sink sink, void *arg)
{
	memset(b, 0, sizeof(*b));
	b->min_interval_ns = min_interval_ns;
	b->sink = sink;
	b->sink_arg = arg;
	if (tsv_path)
	{
		/* readable like the trace files: owner and group */
		int			fd = open(tsv_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);

		if (fd < 0)
			return -1;
		b->tsv = fdopen(fd, "a");
		if (!b->tsv)
		{
			close(fd);
			return -1;
		}
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
	if (b->tsv)
	{
		fprintf(b->tsv, "%" PRIu64 "\t%u\t", b->now_ns, waiter);
		for (int i = 0; i < n; i++)
			fprintf(b->tsv, "%s%u", i ? "," : "", blockers[i]);
		fputc('\n', b->tsv);
	}
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
	if (pgwt_pg_blocking_pids(pg, b->waiters, b->nwaiters, PGWT_BLOCKERS_MAX_PER_OBS,
							  blk_answer, b) < 0)
		return -1;
	if (b->tsv)
		fflush(b->tsv);
	return (int) (b->observations_total - before);
}

void
pgwt_blockers_close(pgwt_blockers *b)
{
	if (b->tsv)
		fclose(b->tsv);
	b->tsv = NULL;
}
