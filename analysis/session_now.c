/*
 * session_now.c
 *		Each backend's state at the end of a range (session_now.h): the
 *		latest record of each pid decides, a transition exactly, a run of
 *		samples of one (event, query) from its first sample. Pure; the
 *		table belongs to one thread.
 */
#include "analysis/session_now.h"

#include <stdlib.h>

bool
pgwt_now_init(pgwt_now *n, uint64_t end_ns, unsigned max_pids)
{
	memset(n, 0, sizeof(*n));
	n->end_ns = end_ns;
	if (max_pids == 0 || max_pids > PGWT_NOW_MAX_PIDS)
		max_pids = PGWT_NOW_MAX_PIDS;
	n->ok = pgwt_agg_init(&n->pids, max_pids, sizeof(pgwt_now_row));
	if (!n->ok)
		pgwt_agg_free(&n->pids);
	return n->ok;
}

/* The row of pid, NULL when the table is full (counted). */
static pgwt_now_row *
now_row(pgwt_now *n, uint32_t pid, bool *fresh)
{
	pgwt_now_row *row;

	*fresh = pgwt_agg_find(&n->pids, pid, 0) < 0;
	row = pgwt_agg_get(&n->pids, pid, 0);
	if (row == (pgwt_now_row *) n->pids.other)
	{
		n->dropped++;
		return NULL;
	}
	return row;
}

/*
 * A transition at or past the end whose wait began before it: the backend
 * was in old_event at the end, since the wait's start (a range loader
 * hands such a wait on cut to the range: its start is then the range's
 * start at the earliest). Unless a later record before the end says
 * otherwise.
 */
static void
now_add_late(pgwt_now *n, const pgwt_record *r)
{
	uint64_t	start = r->ts_ns - (r->duration_ns < r->ts_ns ? r->duration_ns : r->ts_ns);
	pgwt_now_row *row;
	bool		fresh;

	if (r->kind != PGWT_REC_TRANSITION || start >= n->end_ns || r->old_event == PGWT_EVENT_EXIT)
		return;
	if (!(row = now_row(n, r->pid, &fresh)) || (!fresh && row->last_ns > start))
		return;
	row->pid = r->pid;
	row->last_ns = start;
	row->gone = false;
	row->event = r->old_event;
	row->query_id = r->query_id;
	row->since_ns = start;
	row->exact = true;
}

void
pgwt_now_add(pgwt_now *n, const pgwt_record *r)
{
	pgwt_now_row *row;
	bool		fresh;

	if (!n->ok || r->pid == 0)
		return;
	if (r->kind == PGWT_REC_TRANSITION && PGWT_IS_MARKER(r->new_event))
		return;
	if (r->kind != PGWT_REC_TRANSITION && r->kind != PGWT_REC_SAMPLE)
		return;
	if (r->ts_ns >= n->end_ns)
	{
		now_add_late(n, r);
		return;
	}
	if (!(row = now_row(n, r->pid, &fresh)))
		return;
	if (!fresh && r->ts_ns < row->last_ns)
		return;					/* older than what is known */
	row->pid = r->pid;
	row->last_ns = r->ts_ns;
	if (r->kind == PGWT_REC_TRANSITION)
	{
		if (r->new_event == PGWT_EVENT_EXIT)
		{
			if (!row->gone)
				n->exited++;
			row->gone = true;
			return;
		}
		row->gone = false;
		row->event = r->new_event;
		row->query_id = r->query_id;
		row->since_ns = r->ts_ns;
		row->exact = true;
		return;
	}
	/* a sample continues a run of the same state, else starts one */
	if (fresh || row->gone || row->event != r->new_event || row->query_id != r->query_id)
	{
		row->since_ns = r->ts_ns;
		row->exact = false;
	}
	row->gone = false;
	row->event = r->new_event;
	row->query_id = r->query_id;
}

void
pgwt_now_add_many(pgwt_now *n, const pgwt_record *r, size_t count)
{
	for (size_t i = 0; i < count; i++)
		pgwt_now_add(n, &r[i]);
}

static int
now_cmp(const void *a, const void *b)
{
	const pgwt_now_row *x = a,
			   *y = b;

	if (x->since_ns != y->since_ns)
		return x->since_ns < y->since_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

bool
pgwt_now_rows(const pgwt_now *n, pgwt_now_row **rows, size_t *nrows)
{
	size_t		k = 0;

	*rows = NULL;
	*nrows = 0;
	if (!n->ok || n->pids.n == 0)
		return true;
	if (!(*rows = malloc(n->pids.n * sizeof(**rows))))
		return false;
	for (unsigned i = 0; i < n->pids.n; i++)
	{
		const pgwt_now_row *row = agg_value(&n->pids, n->pids.order[i]);

		if (!row->gone)
			(*rows)[k++] = *row;
	}
	qsort(*rows, k, sizeof(**rows), now_cmp);
	*nrows = k;
	if (k == 0)
	{
		free(*rows);
		*rows = NULL;
	}
	return true;
}

void
pgwt_now_free(pgwt_now *n)
{
	if (n->ok)
		pgwt_agg_free(&n->pids);
	n->ok = false;
}
