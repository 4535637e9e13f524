/*
 * views.c
 *		The views of views.h, computed from an engine's window tables.
 *
 * Views only read the engine; they allocate their result rows (released
 * by the *_free functions) and a scratch index while they run.
 */
#include "analysis/views.h"
#include "analysis/engine_internal.h"

#include <stdlib.h>
#include <string.h>

const char *
pgwt_view_status_text(pgwt_view_status st)
{
	switch (st)
	{
		case PGWT_VIEW_OK:
			return "ok";
		case PGWT_VIEW_NO_DATA:
			return "no data in the window";
		case PGWT_VIEW_REQUIRES_EXACT:
			return "requires exact data: the window holds only samples (escalate to capture)";
		case PGWT_VIEW_TRUNCATED:
			return "the key was folded into 'other' by a table cap";
		case PGWT_VIEW_BAD_ARG:
			return "bad argument";
		case PGWT_VIEW_NO_MEMORY:
			return "out of memory";
		case PGWT_VIEW_NOT_ENABLED:
			return "exact analysis is not enabled in this engine (pgwt_engine_config.exact_analysis)";
		case PGWT_VIEW_REQUIRES_SAMPLES:
			return "requires sampled data too: the window holds no samples to compare";
	}
	return "unknown status";
}

static const struct
{
	const char *name;
	pgwt_sort	sort;
}			view_sort_names[] = {
	{"wait_time", PGWT_SORT_TOTAL},
	{"total", PGWT_SORT_TOTAL},
	{"waits", PGWT_SORT_WAITS},
	{"avg", PGWT_SORT_AVG},
	{"max", PGWT_SORT_MAX},
	{"db_time", PGWT_SORT_DB_TIME},
	{"pid", PGWT_SORT_PID},
	{"event", PGWT_SORT_EVENT},
	{"query", PGWT_SORT_QUERY},
};

bool
pgwt_sort_parse(const char *text, pgwt_sort *out)
{
	for (size_t i = 0; i < sizeof(view_sort_names) / sizeof(view_sort_names[0]); i++)
		if (text && strcmp(text, view_sort_names[i].name) == 0)
		{
			*out = view_sort_names[i].sort;
			return true;
		}
	return false;
}

const char *
pgwt_sort_name(pgwt_sort s)
{
	for (size_t i = 0; i < sizeof(view_sort_names) / sizeof(view_sort_names[0]); i++)
		if (view_sort_names[i].sort == s)
			return view_sort_names[i].name;
	return "default";
}

static bool
stat_has_exact(const pgwt_stat *st)
{
	return st->exact_ns > 0 || st->waits > 0;
}

static pgwt_fidelity
stat_fidelity(const pgwt_stat *st)
{
	return pgwt_fidelity_of(stat_has_exact(st), st->samples > 0);
}

static bool
stat_empty(const pgwt_stat *st)
{
	return !stat_has_exact(st) && st->samples == 0;
}

static double
view_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

void
pgwt_view_summary(const pgwt_engine *eng, int w, pgwt_window_summary *out)
{
	const window_agg *wa = engine_window(eng, w);

	memset(out, 0, sizeof(*out));
	if (!wa)
		return;
	out->spec = wa->spec;
	out->exact_records = wa->exact_records;
	out->sample_records = wa->sample_records;
	out->fidelity = pgwt_fidelity_of(wa->exact_records > 0, wa->sample_records > 0);
	if (wa->data_first_ns != UINT64_MAX)
	{
		out->data_first_ns = wa->data_first_ns < wa->spec.from_ns ? wa->spec.from_ns : wa->data_first_ns;
		out->data_last_ns = wa->data_last_ns > wa->spec.to_ns ? wa->spec.to_ns : wa->data_last_ns;
	}
	out->db_exact_ns = wa->db.exact_ns;
	out->db_sampled_ns = wa->db.sampled_ns;
	out->db_ns = wa->db.exact_ns + wa->db.sampled_ns;
	out->cpu_ns = wa->classes[PGWT_CLASS_CPU].exact_ns + wa->classes[PGWT_CLASS_CPU].sampled_ns;
	out->wait_ns = out->db_ns - out->cpu_ns;
	out->idle_ns = wa->idle.exact_ns + wa->idle.sampled_ns;
	out->background_ns = wa->background.exact_ns + wa->background.sampled_ns;
	out->background_idle_ns = wa->background_idle.exact_ns + wa->background_idle.sampled_ns;
	out->backends = wa->sessions.n + (wa->sessions.other_keys_records ? 1 : 0);
	if (out->data_last_ns > out->data_first_ns)
		out->aas = (double) out->db_ns / (double) (out->data_last_ns - out->data_first_ns);
	out->other_event_records = wa->events.other_keys_records;
	out->other_session_records = wa->sessions.other_keys_records;
	out->other_session_event_records = wa->session_events.other_keys_records;
	out->other_query_event_records = wa->query_events.other_keys_records;
}

static void
row_from_stat(pgwt_event_row *r, const pgwt_stat *st, uint32_t ev, uint64_t db_ns)
{
	bool		has_exact = stat_has_exact(st);
	bool		has_sampled = st->samples > 0;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->idle = pgwt_event_is_idle(ev);
	r->fidelity = pgwt_fidelity_of(has_exact, has_sampled);
	r->exact_ns = st->exact_ns;
	r->sampled_ns = st->sampled_ns;
	r->total_ns = st->exact_ns + st->sampled_ns;
	r->waits = st->waits;
	r->waits_known = has_exact && !has_sampled;
	r->avg_known = r->waits_known && st->waits > 0;
	r->avg_ns = r->avg_known ? st->completed_ns / st->waits : 0;
	r->max_known = st->waits > 0;
	r->min_ns = st->min_ns;
	r->max_ns = st->max_ns;
	r->pct_db = r->idle ? -1.0 : view_pct(r->total_ns, db_ns);
}

/*
 * The histogram of a (pid, event) or (query, event) value: there when the
 * engine keeps key histograms and an exact wait ended in the window.
 */
static void
row_key_hist(pgwt_event_row *r, const window_agg *wa, const void *value)
{
	if (wa->key_histograms && r->max_known)
		r->hist_ns = ((const pgwt_key_stat *) value)->hist_ns;
}

/*
 * An event row's share of DB time is its sessions' time only: background
 * processes' time in it is never DB time (NULL when it is all theirs).
 */
static void
row_sessions_pct(pgwt_event_row *r, const pgwt_event_stat *es, uint64_t db_ns)
{
	uint64_t	bg = es->background_ns < r->total_ns ? es->background_ns : r->total_ns;

	if (r->idle || bg == 0)
		return;
	r->pct_db = bg == r->total_ns ? -1.0 : view_pct(r->total_ns - bg, db_ns);
}

/* ---- sorting ----------------------------------------------------------------- */

typedef struct view_sort_ctx
{
	pgwt_sort	sort;
	const pgwt_names *names;
} view_sort_ctx;

#define CMP_DESC(a, b) do { if ((a) != (b)) return (a) > (b) ? -1 : 1; } while (0)
#define CMP_ASC(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int
view_cmp_event_names(const pgwt_names *names, uint32_t a, uint32_t b)
{
	char		na[PGWT_EVENT_NAME_MAX],
				nb[PGWT_EVENT_NAME_MAX];

	pgwt_event_format(names, a, na, sizeof(na));
	pgwt_event_format(names, b, nb, sizeof(nb));
	return strcmp(na, nb);
}

static int
view_cmp_event_row(const void *pa, const void *pb, void *arg)
{
	const pgwt_event_row *a = pa,
			   *b = pb;
	const view_sort_ctx *ctx = arg;
	int			c;

	CMP_ASC(a->other, b->other);	/* the overflow row goes last */
	switch (ctx->sort)
	{
		case PGWT_SORT_WAITS:
			CMP_DESC(a->waits_known, b->waits_known);
			CMP_DESC(a->waits, b->waits);
			break;
		case PGWT_SORT_AVG:
			CMP_DESC(a->avg_known, b->avg_known);
			CMP_DESC(a->avg_ns, b->avg_ns);
			break;
		case PGWT_SORT_MAX:
			CMP_DESC(a->max_known, b->max_known);
			CMP_DESC(a->max_ns, b->max_ns);
			break;
		case PGWT_SORT_PID:
			CMP_ASC(a->pid, b->pid);
			break;
		case PGWT_SORT_EVENT:
			if ((c = view_cmp_event_names(ctx->names, a->event, b->event)) != 0)
				return c;
			break;
		case PGWT_SORT_QUERY:
			CMP_ASC(a->query_id, b->query_id);
			break;
		default:
			break;
	}
	CMP_DESC(a->total_ns, b->total_ns);
	CMP_ASC(a->event, b->event);
	CMP_ASC(a->pid, b->pid);
	CMP_ASC(a->query_id, b->query_id);
	return 0;
}

static int
view_cmp_session_row(const void *pa, const void *pb, void *arg)
{
	const pgwt_session_row *a = pa,
			   *b = pb;
	const view_sort_ctx *ctx = arg;
	int			c;

	CMP_ASC(a->other, b->other);
	switch (ctx->sort)
	{
		case PGWT_SORT_TOTAL:
			CMP_DESC(a->wait_ns, b->wait_ns);
			break;
		case PGWT_SORT_PID:
			CMP_ASC(a->pid, b->pid);
			break;
		case PGWT_SORT_EVENT:
			CMP_DESC(a->has_top_wait, b->has_top_wait);
			if (a->has_top_wait && b->has_top_wait &&
				(c = view_cmp_event_names(ctx->names, a->top_wait, b->top_wait)) != 0)
				return c;
			break;
		default:
			break;
	}
	CMP_DESC(a->db_ns, b->db_ns);
	CMP_ASC(a->pid, b->pid);
	return 0;
}

static void
view_finish_event_rows(pgwt_event_rows *out, const pgwt_view_opts *opts, pgwt_sort def)
{
	view_sort_ctx ctx = {opts && opts->sort != PGWT_SORT_DEFAULT ? opts->sort : def,
	opts ? opts->names : NULL};

	if (out->n > 1)
		qsort_r(out->rows, out->n, sizeof(*out->rows), view_cmp_event_row, &ctx);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
}

void
pgwt_event_rows_free(pgwt_event_rows *rows)
{
	free(rows->rows);
	rows->rows = NULL;
	rows->n = 0;
}

void
pgwt_session_rows_free(pgwt_session_rows *rows)
{
	free(rows->rows);
	rows->rows = NULL;
	rows->n = 0;
}

/* ---- time model -------------------------------------------------------------- */

pgwt_view_status
pgwt_view_time_model(const pgwt_engine *eng, int w, pgwt_time_model *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *ev = wa ? &wa->events : NULL;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	pgwt_view_summary(eng, w, &out->sum);
	if (out->sum.db_ns == 0 && out->sum.idle_ns == 0 && out->sum.background_ns == 0 &&
		out->sum.background_idle_ns == 0)
		return PGWT_VIEW_NO_DATA;

	for (unsigned i = 0; i < ev->n; i++)
	{
		uint32_t	id = (uint32_t) agg_k1(ev, ev->order[i]);
		const pgwt_event_stat *es = agg_value(ev, ev->order[i]);

		if (!pgwt_event_is_idle(id))
			out->background_class_ns[pgwt_event_class(id)] += es->background_ns;
	}
	for (unsigned c = 0; c <= PGWT_CLASS_UNKNOWN; c++)
	{
		const pgwt_stat *st = &wa->classes[c];
		pgwt_tm_class *tc;

		if (stat_empty(st) || st->exact_ns + st->sampled_ns == 0)
			continue;
		tc = &out->classes[out->nclasses++];
		tc->class_index = c;
		tc->total_ns = st->exact_ns + st->sampled_ns;
		tc->pct_db = view_pct(tc->total_ns, out->sum.db_ns);
		tc->fidelity = stat_fidelity(st);
		for (unsigned i = 0; i < ev->n; i++)
		{
			unsigned	slot = ev->order[i];
			uint32_t	id = (uint32_t) agg_k1(ev, slot);
			const pgwt_event_stat *es = agg_value(ev, slot);
			pgwt_event_row row;
			unsigned	pos;

			/* under CPU*: its two parts (run queue, on CPU) where split */
			if (pgwt_event_class(id) != c || pgwt_event_is_idle(id) || id == 0)
				continue;
			row_from_stat(&row, &es->st, id, out->sum.db_ns);
			row_sessions_pct(&row, es, out->sum.db_ns);
			if (row.pct_db < PGWT_TM_MIN_PCT)
				continue;
			/* insertion into the top list, largest first, ties by id */
			pos = tc->ntop;
			while (pos > 0 && (tc->top[pos - 1].total_ns < row.total_ns ||
							   (tc->top[pos - 1].total_ns == row.total_ns && tc->top[pos - 1].event > id)))
				pos--;
			if (pos >= PGWT_TM_TOP_EVENTS)
				continue;
			if (tc->ntop < PGWT_TM_TOP_EVENTS)
				tc->ntop++;
			memmove(&tc->top[pos + 1], &tc->top[pos], (tc->ntop - 1 - pos) * sizeof(row));
			tc->top[pos] = row;
		}
	}
	/* CPU* first, then classes by time */
	for (unsigned i = 1; i < out->nclasses; i++)
		for (unsigned j = i; j > 0; j--)
		{
			pgwt_tm_class *a = &out->classes[j - 1],
					   *b = &out->classes[j];
			bool		swap;

			if (a->class_index == PGWT_CLASS_CPU)
				break;
			swap = b->class_index == PGWT_CLASS_CPU || b->total_ns > a->total_ns ||
				(b->total_ns == a->total_ns && b->class_index < a->class_index);
			if (!swap)
				break;
			{
				pgwt_tm_class t = *a;

				*a = *b;
				*b = t;
			}
		}
	return PGWT_VIEW_OK;
}

/* ---- system_event -------------------------------------------------------------- */

pgwt_view_status
pgwt_view_system_event(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					   pgwt_event_rows *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *ev;
	uint64_t	db_ns;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	ev = &wa->events;
	db_ns = wa->db.exact_ns + wa->db.sampled_ns;
	out->rows = calloc(ev->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (unsigned i = 0; i < ev->n; i++)
	{
		unsigned	slot = ev->order[i];
		uint32_t	id = (uint32_t) agg_k1(ev, slot);

		const pgwt_event_stat *es = agg_value(ev, slot);
		const pgwt_stat *st = &es->st;

		if (stat_empty(st))
			continue;			/* only superseded samples (cross_validate) */
		row_from_stat(&out->rows[out->n], st, id, db_ns);
		if (out->rows[out->n].max_known)
			out->rows[out->n].hist_ns = es->hist_ns;
		row_sessions_pct(&out->rows[out->n++], es, db_ns);
	}
	if (ev->other_keys_records)
	{
		row_from_stat(&out->rows[out->n], &((const pgwt_event_stat *) ev->other)->st, 0, db_ns);
		out->rows[out->n].other = true;
		out->rows[out->n].idle = false;
		out->rows[out->n].pct_db = -1.0;	/* may hold idle time: no share claimed */
		out->n++;
	}
	if (out->n == 0)
	{
		pgwt_event_rows_free(out);
		return PGWT_VIEW_NO_DATA;
	}
	view_finish_event_rows(out, opts, PGWT_SORT_TOTAL);
	return PGWT_VIEW_OK;
}

/* ---- sessions ------------------------------------------------------------------ */

static void
session_row_fill(pgwt_session_row *r, const pgwt_session_stat *ss)
{
	r->exited = ss->exited;
	r->fidelity = pgwt_fidelity_of(stat_has_exact(&ss->db) || stat_has_exact(&ss->idle),
								   ss->db.samples + ss->idle.samples > 0);
	r->db_ns = ss->db.exact_ns + ss->db.sampled_ns;
	r->cpu_ns = ss->cpu.exact_ns + ss->cpu.sampled_ns;
	r->wait_ns = r->db_ns - r->cpu_ns;
	r->idle_ns = ss->idle.exact_ns + ss->idle.sampled_ns;
	r->cpu_pct = view_pct(r->cpu_ns, r->db_ns);
	r->wait_pct = r->db_ns ? 100.0 - r->cpu_pct : 0.0;
}

pgwt_view_status
pgwt_view_session_event(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
						pgwt_session_rows *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *st,
			   *se;
	int		   *row_of_slot;
	view_sort_ctx ctx;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	st = &wa->sessions;
	se = &wa->session_events;
	if (st->n == 0 && st->other_keys_records == 0)
		return PGWT_VIEW_NO_DATA;
	out->rows = calloc(st->n + 1, sizeof(*out->rows));
	row_of_slot = malloc(((size_t) st->mask + 1) * sizeof(int));
	if (!out->rows || !row_of_slot)
	{
		free(row_of_slot);
		pgwt_session_rows_free(out);
		return PGWT_VIEW_NO_MEMORY;
	}
	for (unsigned i = 0; i < st->n; i++)
	{
		unsigned	slot = st->order[i];
		pgwt_session_row *r = &out->rows[out->n];

		r->pid = (uint32_t) agg_k1(st, slot);
		r->info = pgwt_engine_backend(eng, r->pid);
		session_row_fill(r, agg_value(st, slot));
		row_of_slot[slot] = (int) out->n++;
	}
	if (st->other_keys_records)
	{
		pgwt_session_row *r = &out->rows[out->n++];

		r->other = true;
		session_row_fill(r, (const pgwt_session_stat *) st->other);
	}
	/* top wait of each backend, from the (pid, event) table */
	for (unsigned i = 0; i < se->n; i++)
	{
		unsigned	slot = se->order[i];
		uint32_t	pid = (uint32_t) agg_k1(se, slot);
		uint32_t	ev = agg_k2(se, slot);
		const pgwt_stat *s = agg_value(se, slot);
		uint64_t	ns = s->exact_ns + s->sampled_ns;
		int			ss = pgwt_agg_find(st, pid, 0);
		pgwt_session_row *r;

		if (pgwt_event_is_cpu(ev) || pgwt_event_is_idle(ev) || ss < 0 || ns == 0)
			continue;
		r = &out->rows[row_of_slot[ss]];
		if (!r->has_top_wait || ns > r->top_wait_ns || (ns == r->top_wait_ns && ev < r->top_wait))
		{
			r->has_top_wait = true;
			r->top_wait = ev;
			r->top_wait_ns = ns;
		}
	}
	free(row_of_slot);
	ctx.sort = opts && opts->sort != PGWT_SORT_DEFAULT ? opts->sort : PGWT_SORT_DB_TIME;
	ctx.names = opts ? opts->names : NULL;
	if (out->n > 1)
		qsort_r(out->rows, out->n, sizeof(*out->rows), view_cmp_session_row, &ctx);
	if (opts && opts->limit && out->n > opts->limit)
		out->n = opts->limit;
	return PGWT_VIEW_OK;
}

/* The DB time of the session in slot ss of the sessions table; 0 for a
 * background process (its time is never DB time). */
static uint64_t
session_db_ns(const pgwt_engine *eng, const window_agg *wa, uint32_t pid, int ss)
{
	const pgwt_backend_info *bi = pgwt_engine_backend(eng, pid);
	const pgwt_session_stat *sst;

	if (ss < 0 || (bi != NULL && bi->background))
		return 0;
	sst = agg_value(&wa->sessions, (unsigned) ss);
	return sst->db.exact_ns + sst->db.sampled_ns;
}

pgwt_view_status
pgwt_view_session_events(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
						 pgwt_event_rows *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *se;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	se = &wa->session_events;
	out->rows = calloc(se->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (unsigned i = 0; i < se->n; i++)
	{
		unsigned	slot = se->order[i];
		uint32_t	pid = (uint32_t) agg_k1(se, slot);
		uint32_t	ev = agg_k2(se, slot);
		const pgwt_stat *st = agg_value(se, slot);
		uint64_t	db_ns;
		int			ss;
		pgwt_event_row *r = &out->rows[out->n];

		if (stat_empty(st))
			continue;
		ss = pgwt_agg_find(&wa->sessions, pid, 0);
		db_ns = session_db_ns(eng, wa, pid, ss);
		row_from_stat(r, st, ev, db_ns);
		row_key_hist(r, wa, st);
		r->pid = pid;
		r->exited = ss >= 0 &&
			((const pgwt_session_stat *) agg_value(&wa->sessions, (unsigned) ss))->exited;
		if (db_ns == 0)
			r->pct_db = -1.0;	/* background, or no DB time to share */
		out->n++;
	}
	if (se->other_keys_records)
	{
		pgwt_event_row *r = &out->rows[out->n++];

		row_from_stat(r, (const pgwt_stat *) se->other, 0, 0);
		r->other = true;
		r->idle = false;
		r->pct_db = -1.0;
	}
	if (out->n == 0)
	{
		pgwt_event_rows_free(out);
		return PGWT_VIEW_NO_DATA;
	}
	view_finish_event_rows(out, opts, PGWT_SORT_TOTAL);
	return PGWT_VIEW_OK;
}

pgwt_view_status
pgwt_view_session_detail(const pgwt_engine *eng, int w, uint32_t pid,
						 const pgwt_view_opts *opts, pgwt_event_rows *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *se;
	int			ss;
	uint64_t	db_ns;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	se = &wa->session_events;
	ss = pgwt_agg_find(&wa->sessions, pid, 0);
	if (ss < 0)
		return wa->sessions.other_keys_records ? PGWT_VIEW_TRUNCATED : PGWT_VIEW_NO_DATA;
	{
		const pgwt_session_stat *sst = agg_value(&wa->sessions, (unsigned) ss);

		db_ns = sst->db.exact_ns + sst->db.sampled_ns;	/* % of this backend's DB time */
	}
	out->rows = calloc(se->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (unsigned i = 0; i < se->n; i++)
	{
		unsigned	slot = se->order[i];
		uint32_t	ev = agg_k2(se, slot);

		if ((uint32_t) agg_k1(se, slot) != pid)
			continue;
		row_from_stat(&out->rows[out->n], agg_value(se, slot), ev, db_ns);
		row_key_hist(&out->rows[out->n], wa, agg_value(se, slot));
		out->rows[out->n++].pid = pid;
	}
	if (out->n == 0)
	{
		pgwt_event_rows_free(out);
		return se->other_keys_records ? PGWT_VIEW_TRUNCATED : PGWT_VIEW_NO_DATA;
	}
	view_finish_event_rows(out, opts, PGWT_SORT_TOTAL);
	return PGWT_VIEW_OK;
}

/* ---- histogram --------------------------------------------------------------- */

pgwt_view_status
pgwt_view_histogram(const pgwt_engine *eng, int w, uint32_t event, pgwt_histogram *out)
{
	const window_agg *wa = engine_window(eng, w);
	const pgwt_event_stat *es;
	int			slot;

	memset(out, 0, sizeof(*out));
	out->event = event;
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	if (wa->exact_records == 0)
		return wa->sample_records ? PGWT_VIEW_REQUIRES_EXACT : PGWT_VIEW_NO_DATA;
	slot = pgwt_agg_find(&wa->events, event, 0);
	if (slot < 0)
		return wa->events.other_keys_records ? PGWT_VIEW_TRUNCATED : PGWT_VIEW_NO_DATA;
	es = agg_value(&wa->events, (unsigned) slot);
	out->fidelity = stat_fidelity(&es->st);
	out->sampled_ns = es->st.sampled_ns;
	if (es->st.waits == 0)
		return es->st.samples ? PGWT_VIEW_REQUIRES_EXACT : PGWT_VIEW_NO_DATA;
	out->waits = es->st.waits;
	out->completed_ns = es->st.completed_ns;
	out->min_ns = es->st.min_ns;
	out->max_ns = es->st.max_ns;
	memcpy(out->ns, es->hist_ns, sizeof(out->ns));
	return PGWT_VIEW_OK;
}

/* ---- query_event ------------------------------------------------------------- */

pgwt_view_status
pgwt_view_query_event(const pgwt_engine *eng, int w, const pgwt_view_opts *opts,
					  pgwt_event_rows *out)
{
	const window_agg *wa = engine_window(eng, w);
	const agg_table *qe;
	uint64_t	db_ns;

	memset(out, 0, sizeof(*out));
	if (!wa)
		return PGWT_VIEW_BAD_ARG;
	qe = &wa->query_events;
	db_ns = wa->db.exact_ns + wa->db.sampled_ns;
	out->rows = calloc(qe->n + 1, sizeof(*out->rows));
	if (!out->rows)
		return PGWT_VIEW_NO_MEMORY;
	for (unsigned i = 0; i < qe->n; i++)
	{
		unsigned	slot = qe->order[i];
		uint64_t	q = agg_k1(qe, slot);
		uint32_t	ev = agg_k2(qe, slot);

		if (opts && opts->has_event ? ev != opts->event : pgwt_event_is_idle(ev))
			continue;			/* idle time only when asked for by name */
		if (opts && opts->has_query && q != opts->query_id)
			continue;
		row_from_stat(&out->rows[out->n], agg_value(qe, slot), ev, db_ns);
		row_key_hist(&out->rows[out->n], wa, agg_value(qe, slot));
		out->rows[out->n++].query_id = q;
	}
	/* the overflow row only belongs to the unfiltered list */
	if (qe->other_keys_records && !(opts && (opts->has_event || opts->has_query)))
	{
		row_from_stat(&out->rows[out->n], (const pgwt_stat *) qe->other, 0, db_ns);
		out->rows[out->n].other = true;
		out->rows[out->n].idle = false;
		out->rows[out->n].pct_db = -1.0;
		out->n++;
	}
	if (out->n == 0)
	{
		pgwt_event_rows_free(out);
		return qe->other_keys_records ? PGWT_VIEW_TRUNCATED : PGWT_VIEW_NO_DATA;
	}
	view_finish_event_rows(out, opts, PGWT_SORT_TOTAL);
	return PGWT_VIEW_OK;
}
