/*
 * trace_statements.c
 *		Per-statement grouping of trace-ring records (see
 *		trace_statements.h). No shared state.
 */
#include "extension/trace_statements.h"

#include <string.h>

#include "common/event_ids.h"

static pgwt_tstmt *
tstmt_open(pgwt_tstmt *out, size_t *ng, size_t max, bool in_stmt,
		   uint64_t ts, uint64_t qid)
{
	pgwt_tstmt *g;

	if (*ng >= max)
		return NULL;
	g = &out[(*ng)++];
	memset(g, 0, sizeof(*g));
	g->in_statement = in_stmt;
	g->started = in_stmt;
	g->start_ns = g->end_ns = ts;
	g->query_id = qid;
	return g;
}

static void
tstmt_add_wait(pgwt_tstmt *g, const pgwt_tring_rec *r)
{
	uint64_t	end = r->start_ns + r->duration_ns;
	int			i;

	g->waits++;
	g->wait_ns += r->duration_ns;
	if (pgwt_event_is_idle(r->event))
		g->idle_waits++;
	if (end > g->end_ns)
		g->end_ns = end;
	if (g->query_id == 0 && g->in_statement)
		g->query_id = r->query_id;
	for (i = 0; i < g->nevents; i++)
		if (g->events[i].event == r->event)
			break;
	if (i == g->nevents)
	{
		if (g->nevents == PGWT_TSTMT_TOP_EVENTS)
		{
			g->other_wait_ns += r->duration_ns;
			return;
		}
		g->events[g->nevents].event = r->event;
		g->nevents++;
	}
	g->events[i].waits++;
	g->events[i].wait_ns += r->duration_ns;
}

size_t
pgwt_trace_group_statements(const pgwt_tring_rec *in, size_t n,
							pgwt_tstmt *out, size_t max)
{
	size_t		ng = 0;
	pgwt_tstmt *cur = NULL;

	for (size_t i = 0; i < n; i++)
	{
		const pgwt_tring_rec *r = &in[i];

		if (r->kind == PGWT_TRING_MARKER && r->event == PGWT_TMARK_STMT_START)
		{
			if (cur != NULL && !cur->in_statement && cur->idle_waits == 0)
			{
				/* the waits of its parse analysis: the statement's own */
				cur->in_statement = true;
				cur->started = true;
				cur->query_id = r->query_id;
				continue;
			}
			cur = tstmt_open(out, &ng, max, true, r->start_ns, r->query_id);
			if (cur == NULL)
				break;
		}
		else if (r->kind == PGWT_TRING_MARKER && r->event == PGWT_TMARK_STMT_END)
		{
			if (cur == NULL)
			{
				/* its start (and any wait) was overwritten */
				cur = tstmt_open(out, &ng, max, true, r->start_ns, r->query_id);
				if (cur == NULL)
					break;
				cur->started = false;
			}
			else if (!cur->in_statement)
			{
				/* waits with no start before them: the tail of a statement */
				cur->in_statement = true;
				cur->started = false;
			}
			cur->ended = true;
			if (r->start_ns > cur->end_ns)
				cur->end_ns = r->start_ns;
			if (cur->query_id == 0)
				cur->query_id = r->query_id;
			cur = NULL;
		}
		else if (r->kind == PGWT_TRING_WAIT)
		{
			/* a busy wait after an idle one may be the next parse: split */
			if (cur != NULL && !cur->in_statement && cur->idle_waits > 0 &&
				!pgwt_event_is_idle(r->event))
				cur = NULL;
			if (cur == NULL)
			{
				cur = tstmt_open(out, &ng, max, false, r->start_ns, 0);
				if (cur == NULL)
					break;
			}
			tstmt_add_wait(cur, r);
		}
		/* other markers (executor, utility, commit...) do not split groups */
	}
	return ng;
}

int
pgwt_tstmt_top_event(const pgwt_tstmt *s)
{
	int			best = -1;

	for (int i = 0; i < s->nevents; i++)
		if (best < 0 || s->events[i].wait_ns > s->events[best].wait_ns)
			best = i;
	return best;
}
