/*
 * exact_views.c
 *		The views of exact.h, read from the engine's window tables and
 *		the exact-analysis state (exact_internal.h).
 *
 * Views only read the engine; they allocate their results and some
 * scratch arrays while they run.
 */
#include "analysis/exact.h"
#include "analysis/exact_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMP_DESC(a, b) do { if ((a) != (b)) return (a) > (b) ? -1 : 1; } while (0)
#define CMP_ASC(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

/* The status every exact view starts from. */
static pgwt_view_status
xv_exact_status(const pgwt_engine *eng, int w, bool needs_state)
{
	const window_agg *wa = engine_window(eng, w);

	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	if (needs_state && !eng->exact)
		return PGWT_VIEW_NOT_ENABLED;
	if (wa->exact_records == 0)
		return wa->sample_records ? PGWT_VIEW_REQUIRES_EXACT : PGWT_VIEW_NO_DATA;
	return PGWT_VIEW_OK;
}

static double
xv_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

/* ---- transitions ------------------------------------------------------------ */

static int
xv_cmp_trans_old(const void *pa, const void *pb)
{
	const pgwt_transition_row *a = pa,
			   *b = pb;

	CMP_ASC(a->other, b->other);
	CMP_ASC(a->old_event, b->old_event);
	CMP_ASC(a->new_event, b->new_event);
	return 0;
}

static int
xv_cmp_trans(const void *pa, const void *pb)
{
	const pgwt_transition_row *a = pa,
			   *b = pb;

	CMP_ASC(a->other, b->other);
	CMP_DESC(a->count, b->count);
	CMP_ASC(a->old_event, b->old_event);
	CMP_ASC(a->new_event, b->new_event);
	return 0;
}

pgwt_view_status
pgwt_view_transitions(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					  pgwt_transition_rows *out)
{
	pgwt_view_status st = xv_exact_status(eng, w, true);
	const agg_table *t;
	size_t		i,
				j;

	memset(out, 0, sizeof(*out));
	if (st != PGWT_VIEW_OK)
		return st;
	t = &eng->exact->win[w].trans;
	if (t->n == 0 && t->other_keys_records == 0)
		return PGWT_VIEW_NO_DATA;
	out->rows = calloc(t->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (i = 0; i < t->n; i++)
	{
		unsigned	slot = t->order[i];
		const xa_trans *v = agg_value(t, slot);
		pgwt_transition_row *r = &out->rows[out->n++];

		r->old_event = (uint32_t) agg_k1(t, slot);
		r->new_event = agg_k2(t, slot);
		r->count = v->count;
		r->total_ns = v->ns;
		out->transitions += v->count;
	}
	if (t->other_keys_records)
	{
		const xa_trans *v = (const xa_trans *) t->other;
		pgwt_transition_row *r = &out->rows[out->n++];

		r->other = true;
		r->count = v->count;
		r->total_ns = v->ns;
		r->pct_of_old = -1.0;
		out->transitions += v->count;
	}
	/* shares of the moves out of each old event: group by old */
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_trans_old);
	for (i = 0; i < out->n; i = j)
	{
		uint64_t	sum = 0;

		for (j = i; j < out->n && !out->rows[j].other && out->rows[j].old_event == out->rows[i].old_event; j++)
			sum += out->rows[j].count;
		if (j == i)
		{
			j++;				/* the other row */
			continue;
		}
		for (size_t k = i; k < j; k++)
			out->rows[k].pct_of_old = xv_pct(out->rows[k].count, sum);
	}
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_trans);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	return PGWT_VIEW_OK;
}

void
pgwt_transition_rows_free(pgwt_transition_rows *rows)
{
	free(rows->rows);
	memset(rows, 0, sizeof(*rows));
}

/* ---- fingerprints ----------------------------------------------------------- */

bool
pgwt_fingerprint_format(const uint64_t class_ns[PGWT_NCLASSES + 1], char *buf, size_t len)
{
	unsigned	idx[PGWT_NCLASSES + 1];
	unsigned	n = 0,
				shown = 0;
	unsigned __int128 total = 0;
	size_t		used = 0;

	if (len > 0)
		buf[0] = '\0';
	for (unsigned c = 0; c <= PGWT_NCLASSES; c++)
		if (class_ns[c] > 0)
		{
			unsigned	pos = n++;

			total += class_ns[c];
			/* insertion: time descending, class index ascending */
			while (pos > 0 && class_ns[idx[pos - 1]] < class_ns[c])
			{
				idx[pos] = idx[pos - 1];
				pos--;
			}
			idx[pos] = c;
		}
	if (total == 0)
		return false;
	for (unsigned i = 0; i < n && shown < PGWT_FINGERPRINT_CLASSES; i++)
	{
		unsigned	c = idx[i];
		unsigned	pct = (unsigned) (((unsigned __int128) class_ns[c] * 100 + total / 2) / total);
		const char *name = c == PGWT_CLASS_CPU ? "CPU" : pgwt_class_name(c);
		char		unnamed[8];
		int			k;

		if (pct < 1)
			break;				/* the rest are smaller still */
		if (!name)
		{
			/* a class byte no server names: its number; any byte past 0x0F: Other */
			if (c < PGWT_NCLASSES)
				snprintf(unnamed, sizeof(unnamed), "0x%02X", c);
			else
				snprintf(unnamed, sizeof(unnamed), "Other");
			name = unnamed;
		}
		k = snprintf(buf + used, len > used ? len - used : 0, "%s%s:%u%%",
					 shown ? "|" : "", name, pct);
		if (k < 0 || used + (size_t) k >= len)
			break;				/* keep the classes that fit whole */
		used += (size_t) k;
		shown++;
	}
	return true;
}

typedef struct xv_qc
{
	uint64_t	query_id;
	unsigned	class_index;
	uint64_t	ns;
} xv_qc;

static int
xv_cmp_qc(const void *pa, const void *pb)
{
	const xv_qc *a = pa,
			   *b = pb;

	CMP_ASC(a->query_id, b->query_id);
	return 0;
}

static int
xv_cmp_fp(const void *pa, const void *pb)
{
	const pgwt_fingerprint_row *a = pa,
			   *b = pb;

	CMP_DESC(a->exact_ns, b->exact_ns);
	CMP_ASC(a->query_id, b->query_id);
	return 0;
}

pgwt_view_status
pgwt_view_fingerprints(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					   pgwt_fingerprint_rows *out)
{
	pgwt_view_status st = xv_exact_status(eng, w, false);
	const agg_table *qe;
	xv_qc	   *qc;
	size_t		nqc = 0,
				i,
				j;

	memset(out, 0, sizeof(*out));
	if (st != PGWT_VIEW_OK)
		return st;
	qe = &engine_window(eng, w)->query_events;
	qc = malloc((qe->n + 1) * sizeof(*qc));
	out->rows = calloc(qe->n + 1, sizeof(*out->rows));
	if (!qc || !out->rows)
	{
		free(qc);
		pgwt_fingerprint_rows_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	for (i = 0; i < qe->n; i++)
	{
		unsigned	slot = qe->order[i];
		uint64_t	q = agg_k1(qe, slot);
		uint32_t	ev = agg_k2(qe, slot);
		const pgwt_stat *s = agg_value(qe, slot);

		if (q == 0 || s->exact_ns == 0 || pgwt_event_is_idle(ev))
			continue;
		if (opts && opts->has_query && q != opts->query_id)
			continue;
		qc[nqc].query_id = q;
		qc[nqc].class_index = pgwt_event_class(ev);
		qc[nqc].ns = s->exact_ns;
		nqc++;
	}
	qsort(qc, nqc, sizeof(*qc), xv_cmp_qc);
	for (i = 0; i < nqc; i = j)
	{
		uint64_t	class_ns[PGWT_NCLASSES + 1] = {0};
		pgwt_fingerprint_row *r = &out->rows[out->n++];

		for (j = i; j < nqc && qc[j].query_id == qc[i].query_id; j++)
		{
			class_ns[qc[j].class_index] += qc[j].ns;
			r->exact_ns += qc[j].ns;
		}
		r->query_id = qc[i].query_id;
		pgwt_fingerprint_format(class_ns, r->text, sizeof(r->text));
	}
	free(qc);
	if (out->n == 0)
	{
		pgwt_fingerprint_rows_free(out);
		return PGWT_VIEW_NO_DATA;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_fp);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	return PGWT_VIEW_OK;
}

void
pgwt_fingerprint_rows_free(pgwt_fingerprint_rows *rows)
{
	free(rows->rows);
	memset(rows, 0, sizeof(*rows));
}

/* ---- concurrency ------------------------------------------------------------- */

static int
xv_cmp_conc(const void *pa, const void *pb)
{
	const pgwt_concurrency_row *a = pa,
			   *b = pb;

	CMP_DESC(a->peak, b->peak);
	CMP_ASC(a->event, b->event);
	return 0;
}

pgwt_view_status
pgwt_view_concurrency(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					  pgwt_concurrency *out)
{
	pgwt_view_status st = xv_exact_status(eng, w, true);
	const pgwt_exact *x = eng->exact;
	const agg_table *t;
	const pgwt_window_spec *sp;

	memset(out, 0, sizeof(*out));
	if (st != PGWT_VIEW_OK)
		return st;
	t = &x->win[w].conc;
	sp = &eng->win[w].spec;
	out->burst_sessions = eng->cfg.burst_sessions;
	out->burst_window_ns = eng->cfg.burst_window_ns;
	out->late_intervals = eng->counters.late_intervals;
	out->forced_intervals = eng->counters.forced_intervals;
	out->concurrent_overflow = eng->counters.concurrent_overflow;
	out->events_overflow = eng->counters.sweep_events_overflow;
	out->rows = calloc(t->n + 1, sizeof(*out->rows));
	out->bursts = calloc(x->nbursts + 1, sizeof(*out->bursts));
	if (!out->rows || !out->bursts)
	{
		pgwt_concurrency_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	for (unsigned i = 0; i < t->n; i++)
	{
		unsigned	slot = t->order[i];
		const xa_conc *c = agg_value(t, slot);
		pgwt_concurrency_row *r;

		if (c->peak == 0)
			continue;
		r = &out->rows[out->n++];
		r->event = (uint32_t) agg_k1(t, slot);
		r->peak = c->peak;
		r->peak_ns = c->peak_ns;
		r->intervals = c->intervals;
		r->bursts = c->bursts;
		r->max_burst_sessions = c->max_burst_sessions;
		out->bursts_total += c->bursts;
	}
	/* listed in sweep order, which is start order */
	for (unsigned i = 0; i < x->nbursts; i++)
		if (x->bursts[i].first_ns >= sp->from_ns && x->bursts[i].first_ns < sp->to_ns)
		{
			out->bursts[out->nbursts].event = x->bursts[i].event;
			out->bursts[out->nbursts].sessions = x->bursts[i].sessions;
			out->bursts[out->nbursts].first_ns = x->bursts[i].first_ns;
			out->nbursts++;
		}
	if (out->n == 0)
	{
		pgwt_concurrency_free(out);
		return PGWT_VIEW_NO_DATA;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_conc);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	if (opts && opts->limit && out->nbursts > opts->limit)
		out->nbursts = opts->limit;
	return PGWT_VIEW_OK;
}

void
pgwt_concurrency_free(pgwt_concurrency *c)
{
	free(c->rows);
	free(c->bursts);
	memset(c, 0, sizeof(*c));
}

/* ---- interference ------------------------------------------------------------ */

typedef struct xv_pe
{
	uint64_t	pair;
	uint32_t	event;
	uint64_t	ns;
	uint64_t	overlaps;
} xv_pe;

static int
xv_cmp_pe(const void *pa, const void *pb)
{
	const xv_pe *a = pa,
			   *b = pb;

	CMP_ASC(a->pair, b->pair);
	CMP_ASC(a->event, b->event);
	return 0;
}

static int
xv_cmp_intf(const void *pa, const void *pb)
{
	const pgwt_interference_row *a = pa,
			   *b = pb;

	CMP_ASC(a->other, b->other);
	CMP_DESC(a->overlap_ns, b->overlap_ns);
	CMP_ASC(a->pid_a, b->pid_a);
	CMP_ASC(a->pid_b, b->pid_b);
	return 0;
}

pgwt_view_status
pgwt_view_interference(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					   pgwt_interference_rows *out)
{
	pgwt_view_status st = xv_exact_status(eng, w, true);
	const agg_table *t;
	xv_pe	   *pe;
	size_t		i,
				j;

	memset(out, 0, sizeof(*out));
	if (st != PGWT_VIEW_OK)
		return st;
	t = &eng->exact->win[w].pairs;
	if (t->n == 0 && t->other_keys_records == 0)
		return PGWT_VIEW_NO_DATA;
	pe = malloc((t->n + 1) * sizeof(*pe));
	out->rows = calloc(t->n + 1, sizeof(*out->rows));
	if (!pe || !out->rows)
	{
		free(pe);
		pgwt_interference_rows_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	for (i = 0; i < t->n; i++)
	{
		unsigned	slot = t->order[i];
		const xa_pair *p = agg_value(t, slot);

		pe[i].pair = agg_k1(t, slot);
		pe[i].event = agg_k2(t, slot);
		pe[i].ns = p->overlap_ns;
		pe[i].overlaps = p->overlaps;
	}
	qsort(pe, t->n, sizeof(*pe), xv_cmp_pe);
	for (i = 0; i < t->n; i = j)
	{
		pgwt_interference_row *r = &out->rows[out->n++];

		r->pid_a = (uint32_t) (pe[i].pair >> 32);
		r->pid_b = (uint32_t) pe[i].pair;
		for (j = i; j < t->n && pe[j].pair == pe[i].pair; j++)
		{
			r->overlap_ns += pe[j].ns;
			r->overlaps += pe[j].overlaps;
			if (pe[j].ns > r->top_event_ns)
			{
				r->top_event = pe[j].event;
				r->top_event_ns = pe[j].ns;
			}
		}
	}
	free(pe);
	if (t->other_keys_records)
	{
		const xa_pair *p = (const xa_pair *) t->other;
		pgwt_interference_row *r = &out->rows[out->n++];

		r->other = true;
		r->overlap_ns = p->overlap_ns;
		r->overlaps = p->overlaps;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_intf);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	return PGWT_VIEW_OK;
}

void
pgwt_interference_rows_free(pgwt_interference_rows *rows)
{
	free(rows->rows);
	memset(rows, 0, sizeof(*rows));
}

/* ---- lock chains --------------------------------------------------------------- */

static int
xv_cmp_u32(const void *pa, const void *pb)
{
	uint32_t	a = *(const uint32_t *) pa,
				b = *(const uint32_t *) pb;

	CMP_ASC(a, b);
	return 0;
}

static int
xv_cmp_edge(const void *pa, const void *pb)
{
	const pgwt_lock_edge_row *a = pa,
			   *b = pb;

	CMP_DESC(a->wait_ns, b->wait_ns);
	CMP_ASC(a->waiter, b->waiter);
	CMP_ASC(a->blocker, b->blocker);
	return 0;
}

static int
xv_cmp_chain(const void *pa, const void *pb)
{
	const pgwt_lock_chain_row *a = pa,
			   *b = pb;

	CMP_DESC(a->total_wait_ns, b->total_wait_ns);
	CMP_ASC(a->head, b->head);
	return 0;
}

/* The lock graph of a window, indexed: nodes are the pids of any edge. */
typedef struct xv_graph
{
	uint32_t   *pid;			/* sorted, distinct */
	unsigned	n;
	bool	   *waits;			/* node waits on someone */
	bool	   *blocks;			/* node blocks someone */
	unsigned   *rev_off;		/* blocker -> its waiters: rev[rev_off[b]..rev_off[b+1]) */
	unsigned   *rev;
	int		   *level;			/* BFS scratch */
	int		   *parent;
	unsigned   *queue;
	bool	   *done;			/* reached from some head already */
} xv_graph;

static unsigned
xv_node(const xv_graph *g, uint32_t pid)
{
	const uint32_t *hit = bsearch(&pid, g->pid, g->n, sizeof(uint32_t), xv_cmp_u32);

	return (unsigned) (hit - g->pid);
}

static void
xv_graph_free(xv_graph *g)
{
	free(g->pid);
	free(g->waits);
	free(g->blocks);
	free(g->rev_off);
	free(g->rev);
	free(g->level);
	free(g->parent);
	free(g->queue);
	free(g->done);
}

/* One chain: everyone behind head (through the reversed edges). */
static void
xv_chain(const pgwt_engine *eng, int w, xv_graph *g, unsigned head, bool cycle,
		 pgwt_lock_chain_row *row)
{
	const agg_table *lw = &eng->exact->win[w].lock_waiters;
	unsigned	qh = 0,
				qt = 0,
				deepest = head;

	for (unsigned i = 0; i < g->n; i++)
		g->level[i] = -1;
	memset(row, 0, sizeof(*row));
	row->head = g->pid[head];
	row->cycle = cycle;
	g->level[head] = 0;
	g->parent[head] = -1;
	g->queue[qt++] = head;
	g->done[head] = true;
	while (qh < qt)
	{
		unsigned	b = g->queue[qh++];

		for (unsigned k = g->rev_off[b]; k < g->rev_off[b + 1]; k++)
		{
			unsigned	wtr = g->rev[k];
			int			s;

			if (g->level[wtr] >= 0)
				continue;
			g->level[wtr] = g->level[b] + 1;
			g->parent[wtr] = (int) b;
			g->queue[qt++] = wtr;
			g->done[wtr] = true;
			row->waiters++;
			s = pgwt_agg_find(lw, g->pid[wtr], 0);
			if (s >= 0)
				row->total_wait_ns += ((const xa_lockwait *) agg_value(lw, (unsigned) s))->wait_ns;
			if (g->level[wtr] > g->level[deepest] ||
				(g->level[wtr] == g->level[deepest] && g->pid[wtr] < g->pid[deepest]))
				deepest = wtr;
		}
	}
	row->depth = (unsigned) g->level[deepest];
	for (int v = (int) deepest; v >= 0 && row->npath < PGWT_CHAIN_PATH_MAX; v = g->parent[v])
		row->path[row->npath++] = g->pid[v];
}

pgwt_view_status
pgwt_view_lock_chains(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					  pgwt_lock_chains *out)
{
	pgwt_view_status st = xv_exact_status(eng, w, true);
	const agg_table *et;
	xv_graph	g = {0};
	size_t		ne;
	bool		ok;

	memset(out, 0, sizeof(*out));
	if (st != PGWT_VIEW_OK)
		return st;
	et = &eng->exact->win[w].lock_edges;
	ne = et->n;
	out->other_edge_records = et->other_keys_records;
	if (ne == 0)
		return et->other_keys_records ? PGWT_VIEW_TRUNCATED : PGWT_VIEW_NO_DATA;
	out->edges = calloc(ne, sizeof(*out->edges));
	out->chains = calloc(2 * ne, sizeof(*out->chains));
	g.pid = malloc(2 * ne * sizeof(uint32_t));
	g.waits = calloc(2 * ne, sizeof(bool));
	g.blocks = calloc(2 * ne, sizeof(bool));
	g.rev_off = calloc(2 * ne + 1, sizeof(unsigned));
	g.rev = malloc(ne * sizeof(unsigned));
	g.level = malloc(2 * ne * sizeof(int));
	g.parent = malloc(2 * ne * sizeof(int));
	g.queue = malloc(2 * ne * sizeof(unsigned));
	g.done = calloc(2 * ne, sizeof(bool));
	ok = out->edges && out->chains && g.pid && g.waits && g.blocks && g.rev_off &&
		g.rev && g.level && g.parent && g.queue && g.done;
	if (!ok)
	{
		xv_graph_free(&g);
		pgwt_lock_chains_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	for (size_t i = 0; i < ne; i++)
	{
		unsigned	slot = et->order[i];
		const xa_lockedge *e = agg_value(et, slot);
		pgwt_lock_edge_row *r = &out->edges[i];

		r->waiter = (uint32_t) agg_k1(et, slot);
		r->blocker = agg_k2(et, slot);
		r->wait_ns = e->wait_ns;
		r->waits = e->waits;
		r->observations = e->observations;
		g.pid[2 * i] = r->waiter;
		g.pid[2 * i + 1] = r->blocker;
	}
	out->nedges = ne;
	qsort(g.pid, 2 * ne, sizeof(uint32_t), xv_cmp_u32);
	for (size_t i = 0; i < 2 * ne; i++)
		if (g.n == 0 || g.pid[g.n - 1] != g.pid[i])
			g.pid[g.n++] = g.pid[i];
	/* reversed adjacency, counting sort by blocker */
	for (size_t i = 0; i < ne; i++)
	{
		unsigned	wv = xv_node(&g, out->edges[i].waiter),
					bv = xv_node(&g, out->edges[i].blocker);

		g.waits[wv] = true;
		g.blocks[bv] = true;
		g.rev_off[bv + 1]++;
	}
	for (unsigned v = 0; v < g.n; v++)
		g.rev_off[v + 1] += g.rev_off[v];
	{
		unsigned   *fill = g.queue;	/* scratch: next free place per blocker */

		memcpy(fill, g.rev_off, g.n * sizeof(unsigned));
		for (size_t i = 0; i < ne; i++)
		{
			unsigned	bv = xv_node(&g, out->edges[i].blocker);

			g.rev[fill[bv]++] = xv_node(&g, out->edges[i].waiter);
		}
	}
	/* heads: block someone, wait on no one */
	for (unsigned v = 0; v < g.n; v++)
		if (g.blocks[v] && !g.waits[v])
			xv_chain(eng, w, &g, v, false, &out->chains[out->n++]);
	/* whoever is left blocks in a cycle: one chain per cycle, from its lowest pid */
	for (unsigned v = 0; v < g.n; v++)
		if (g.blocks[v] && !g.done[v])
			xv_chain(eng, w, &g, v, true, &out->chains[out->n++]);
	xv_graph_free(&g);
	qsort(out->edges, out->nedges, sizeof(*out->edges), xv_cmp_edge);
	qsort(out->chains, out->n, sizeof(*out->chains), xv_cmp_chain);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	if (opts && opts->limit && out->nedges > opts->limit)
		out->nedges = opts->limit;
	return PGWT_VIEW_OK;
}

void
pgwt_lock_chains_free(pgwt_lock_chains *c)
{
	free(c->chains);
	free(c->edges);
	memset(c, 0, sizeof(*c));
}

/* ---- cross_validate ------------------------------------------------------------ */

static int
xv_cmp_xv(const void *pa, const void *pb)
{
	const pgwt_xv_row *a = pa,
			   *b = pb;

	CMP_DESC(a->exact_ns, b->exact_ns);
	CMP_DESC(a->sampled_ns, b->sampled_ns);
	CMP_ASC(a->event, b->event);
	return 0;
}

static int
xv_cmp_xv_sampled(const void *pa, const void *pb)
{
	const pgwt_xv_row *a = pa,
			   *b = pb;

	CMP_DESC(a->sampled_ns, b->sampled_ns);
	CMP_ASC(a->event, b->event);
	return 0;
}

pgwt_view_status
pgwt_view_cross_validate(const pgwt_engine *eng, int w, pgwt_cross_validation *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *ev;
	pgwt_xv_row *by_sampled;
	unsigned	nexact = 0,
				nsampled = 0;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	ev = &wa->events;
	for (unsigned i = 0; i < ev->n; i++)
	{
		const pgwt_event_stat *es = agg_value(ev, ev->order[i]);

		if (es->superseded_samples)
			out->superseded_basis = true;
	}
	out->rows = calloc(ev->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (unsigned i = 0; i < ev->n; i++)
	{
		unsigned	slot = ev->order[i];
		uint32_t	id = (uint32_t) agg_k1(ev, slot);
		const pgwt_event_stat *es = agg_value(ev, slot);
		uint64_t	sampled = out->superseded_basis ? es->superseded_ns : es->st.sampled_ns;
		pgwt_xv_row *r;

		out->samples += out->superseded_basis ? es->superseded_samples : es->st.samples;
		if (pgwt_event_is_idle(id) || (es->st.exact_ns == 0 && sampled == 0))
			continue;
		r = &out->rows[out->n++];
		r->event = id;
		r->exact_ns = es->st.exact_ns;
		r->sampled_ns = sampled;
		out->exact_db_ns += r->exact_ns;
		out->sampled_db_ns += sampled;
		nexact += r->exact_ns > 0;
		nsampled += sampled > 0;
	}
	if (out->exact_db_ns == 0 || out->sampled_db_ns == 0)
	{
		bool		no_exact = out->exact_db_ns == 0;

		pgwt_cross_validation_free(out);
		if (no_exact)
			return wa->sample_records ? PGWT_VIEW_REQUIRES_EXACT : PGWT_VIEW_NO_DATA;
		return PGWT_VIEW_REQUIRES_SAMPLES;
	}
	for (size_t i = 0; i < out->n; i++)
	{
		pgwt_xv_row *r = &out->rows[i];

		r->exact_pct = xv_pct(r->exact_ns, out->exact_db_ns);
		r->sampled_pct = xv_pct(r->sampled_ns, out->sampled_db_ns);
		r->diff_pp = r->sampled_pct - r->exact_pct;
	}
	/* top lists: the first top_n by each side's time */
	out->top_n = PGWT_XV_TOP;
	if (nexact < out->top_n)
		out->top_n = nexact;
	if (nsampled < out->top_n)
		out->top_n = nsampled;
	by_sampled = malloc(out->n * sizeof(*by_sampled));
	if (!by_sampled)
	{
		pgwt_cross_validation_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	memcpy(by_sampled, out->rows, out->n * sizeof(*by_sampled));
	qsort(by_sampled, out->n, sizeof(*by_sampled), xv_cmp_xv_sampled);
	qsort(out->rows, out->n, sizeof(*out->rows), xv_cmp_xv);
	for (unsigned i = 0; i < out->top_n; i++)
		for (unsigned j = 0; j < out->top_n; j++)
			if (out->rows[i].event == by_sampled[j].event)
				out->top_overlap++;
	free(by_sampled);
	/* the worst event is the first row with the largest |diff| in row order */
	out->worst_diff_pp = -1.0;
	for (size_t i = 0; i < out->n; i++)
	{
		double		d = out->rows[i].diff_pp < 0 ? -out->rows[i].diff_pp : out->rows[i].diff_pp;

		if (d > out->worst_diff_pp)
		{
			out->worst_diff_pp = d;
			out->worst_event = out->rows[i].event;
		}
	}
	return PGWT_VIEW_OK;
}

void
pgwt_cross_validation_free(pgwt_cross_validation *xv)
{
	free(xv->rows);
	memset(xv, 0, sizeof(*xv));
}
