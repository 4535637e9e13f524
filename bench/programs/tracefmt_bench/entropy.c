/*
 * entropy.c
 *		Empirical entropy of a TRANSITIONS trace as format v6 sees it: each
 *		block goes through v6's predictor (docs/TRACE_FORMAT.md 3.1.2, the
 *		same rules: pid table most frequent first, chain predictions from the
 *		pid's previous records) and what the predictor leaves -- ts deltas,
 *		code bytes, exception values, table entries -- is counted. The
 *		result says how many bits per event a coder needs that codes each
 *		value by the frequency of its kind over the whole trace (order 0):
 *		the floor for a per-record coder with v6's model.
 *
 *		Numbers with no small alphabet (ts deltas, duration and cpu
 *		residuals) are counted as a log-bucket symbol (the bit length and
 *		the k bits below the leading one) plus the remaining low bits raw:
 *		a code any entropy coder realises. k = 6 is near the order-0 floor
 *		without the bias exact-value counts have (a trace of N events has at
 *		most N distinct deltas, so their exact-value entropy is at most
 *		log2 N whatever their spread; ts_h0 is printed for comparison).
 *
 *		With a quantum q (all instants multiples of q) numbers are counted
 *		in units of q, as a coder told the resolution would store them.
 *
 *		Single-threaded; one accumulator per measured trace.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "entropy.h"

enum
{
	EN_PID, EN_EXTRA, EN_OLD, EN_NEW, EN_QUERY,	/* small alphabets */
	EN_DUR, EN_CPU,				/* numbers */
	EN_NCOLS
};

typedef struct en_vec
{
	uint64_t   *v;
	size_t		n,
				cap;
} en_vec;

struct entropy_acc
{
	uint64_t	quantum;		/* every instant is a multiple of it */
	uint64_t	events;
	double		table_bits;
	en_vec		ts;				/* exact deltas */
	en_vec		code;
	en_vec		col[EN_NCOLS];
};

static int
en_push(en_vec *e, uint64_t v)
{
	if (e->n == e->cap)
	{
		size_t		cap = e->cap ? 2 * e->cap : 4096;
		uint64_t   *nv = realloc(e->v, cap * sizeof(uint64_t));

		if (nv == NULL)
			return -1;
		e->v = nv;
		e->cap = cap;
	}
	e->v[e->n++] = v;
	return 0;
}

static int
en_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Total bits of an order-0 code of the values (sorts v in place). */
static double
en_h0_bits(uint64_t *v, size_t n)
{
	double		bits = 0;
	size_t		i,
				j;

	qsort(v, n, sizeof(uint64_t), en_cmp);
	for (i = 0; i < n; i = j)
	{
		for (j = i + 1; j < n && v[j] == v[i]; j++)
			;
		bits -= (double) (j - i) * log2((double) (j - i) / (double) n);
	}
	return bits;
}

/*
 * Log-bucket code of numbers: symbol = value itself below 2^(k+1), else
 * (bit length, k bits under the leading one); the bits below are raw.
 */
static double
en_log_bits(const uint64_t *v, size_t n, int k, uint64_t quantum)
{
	uint64_t   *sym = malloc((n ? n : 1) * sizeof(uint64_t));
	double		raw = 0,
				bits;
	size_t		i;

	if (sym == NULL)
		return -1;
	for (i = 0; i < n; i++)
	{
		uint64_t	x = v[i] / quantum;

		if (x < (2ull << k))
			sym[i] = x;
		else
		{
			int			b = 64 - __builtin_clzll(x);

			sym[i] = (2ull << k) + ((uint64_t) (b - k - 2) << k) +
				((x >> (b - 1 - k)) & ((1ull << k) - 1));
			raw += b - 1 - k;
		}
	}
	bits = en_h0_bits(sym, n) + raw;
	free(sym);
	return bits;
}

entropy_acc *
entropy_new(uint64_t quantum)
{
	entropy_acc *a = calloc(1, sizeof(entropy_acc));

	if (a)
		a->quantum = quantum ? quantum : 1;
	return a;
}

void
entropy_free(entropy_acc *a)
{
	int			c;

	if (a == NULL)
		return;
	free(a->ts.v);
	free(a->code.v);
	for (c = 0; c < EN_NCOLS; c++)
		free(a->col[c].v);
	free(a);
}

static inline uint64_t
en_zigzag(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static bool
en_is_marker(uint32_t ev)
{
	return ev >= 0xFFFFFFF0u && ev != 0xFFFFFFFFu;
}

/* Index of v in tab[0..*n), appended when absent (linear: blocks are small
 * in distinct values, and this is a measurement, not a codec). */
static uint32_t
en_index(uint64_t *tab, uint32_t *n, uint64_t v)
{
	uint32_t	i;

	for (i = 0; i < *n; i++)
		if (tab[i] == v)
			return i;
	tab[*n] = v;
	return (*n)++;
}

int
entropy_add_block(entropy_acc *a, const pgwt_record *recs, uint32_t n)
{
	uint64_t   *pids = malloc(n * sizeof(uint64_t));
	uint64_t   *cnt = calloc(n, sizeof(uint64_t));
	uint64_t   *evs = malloc(2 * n * sizeof(uint64_t));
	uint64_t   *qs = malloc(n * sizeof(uint64_t));
	uint32_t   *rank = malloc(n * sizeof(uint32_t));
	uint32_t   *rec_pid = malloc(n * sizeof(uint32_t));
	int32_t    *last_nm = malloc(n * sizeof(int32_t));
	int32_t    *last_any = malloc(n * sizeof(int32_t));
	uint32_t	np = 0,
				ne = 0,
				nq = 0,
				i,
				j;
	int			rc = -1;

	if (!pids || !cnt || !evs || !qs || !rank || !rec_pid || !last_nm || !last_any)
		goto out;
	for (i = 0; i < n; i++)
	{
		rec_pid[i] = en_index(pids, &np, recs[i].pid);
		cnt[rec_pid[i]]++;
	}
	/* rank: most frequent first, ties in first-appearance order */
	for (i = 0; i < np; i++)
	{
		uint32_t	r = 0;

		for (j = 0; j < np; j++)
			if (cnt[j] > cnt[i] || (cnt[j] == cnt[i] && j < i))
				r++;
		rank[i] = r;
		last_nm[i] = last_any[i] = -1;
	}
	for (i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];
		uint32_t	p = rec_pid[i],
					k = rank[p];
		int32_t		L = last_nm[p],
					A = last_any[p];
		uint32_t	old_pred = L >= 0 ? recs[L].new_event : 0;
		uint32_t	new_pred = L >= 0 ? recs[L].old_event : 0;
		uint64_t	dur_pred = L >= 0 ? r->ts_ns - recs[L].ts_ns : 0;
		uint64_t	q_pred = A >= 0 ? recs[A].query_id : 0;
		unsigned	code = k < 15 ? k : 15,
					extra = 0;

		if (en_push(&a->ts, i ? r->ts_ns - recs[i - 1].ts_ns : 0) < 0)
			goto out;
		if (k >= 15 && en_push(&a->col[EN_PID], k) < 0)
			goto out;
		if (r->old_event != old_pred)
		{
			extra |= 1;
			if (en_push(&a->col[EN_OLD], en_index(evs, &ne, r->old_event)) < 0)
				goto out;
		}
		if (r->duration_ns != dur_pred)
		{
			extra |= 2;
			if (en_push(&a->col[EN_DUR], en_zigzag((int64_t) (r->duration_ns - dur_pred) / (int64_t) a->quantum) * a->quantum) < 0)
				goto out;
		}
		if (r->new_event != new_pred)
		{
			code |= 0x10;
			if (en_push(&a->col[EN_NEW], en_index(evs, &ne, r->new_event)) < 0)
				goto out;
		}
		if (r->query_id != q_pred)
		{
			code |= 0x20;
			if (en_push(&a->col[EN_QUERY], en_index(qs, &nq, r->query_id)) < 0)
				goto out;
		}
		if (r->cpu_ns != PGWT_CPU_UNKNOWN)
		{
			uint64_t	cpu_pred = r->old_event == 0 ? r->duration_ns : 0;

			code |= 0x40;
			if (en_push(&a->col[EN_CPU], en_zigzag((int64_t) (r->cpu_ns - cpu_pred) / (int64_t) a->quantum) * a->quantum) < 0)
				goto out;
		}
		if (extra)
		{
			code |= 0x80;
			if (en_push(&a->col[EN_EXTRA], extra) < 0)
				goto out;
		}
		if (en_push(&a->code, code) < 0)
			goto out;
		last_any[p] = (int32_t) i;
		if (!en_is_marker(r->new_event))
			last_nm[p] = (int32_t) i;
	}
	/* the block's tables list each pid/event/query once, raw */
	a->table_bits += 32.0 * np + 32.0 * ne + 64.0 * nq;
	a->events += n;
	rc = 0;
out:
	free(pids);
	free(cnt);
	free(evs);
	free(qs);
	free(rank);
	free(rec_pid);
	free(last_nm);
	free(last_any);
	return rc;
}

void
entropy_finish(entropy_acc *a, entropy_result *out)
{
	double		n = a->events ? (double) a->events : 1;
	double		exc = 0;
	int			c;

	memset(out, 0, sizeof(*out));
	out->events = a->events;
	out->ts_log = en_log_bits(a->ts.v, a->ts.n, 6, a->quantum) / n;
	out->ts_h0 = en_h0_bits(a->ts.v, a->ts.n) / n;
	out->code_h0 = en_h0_bits(a->code.v, a->code.n) / n;
	for (c = 0; c < EN_NCOLS; c++)
		exc += c >= EN_DUR ? en_log_bits(a->col[c].v, a->col[c].n, 6, a->quantum)
			: en_h0_bits(a->col[c].v, a->col[c].n);
	out->exc_h0 = exc / n;
	out->tables = a->table_bits / n;
}
