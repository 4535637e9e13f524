/*
 * tf_v8.h
 *		Rules both ends of the v8 TRANSITIONS codec (docs/TRACE_FORMAT.md
 *		3.1.4) must run identically: the code byte's bits, the successor
 *		table, which ts code a record's ts is under, and the ts symbols.
 *		Encoder in block_v8.c, decoder in block_v8_dec.c. Pure inline
 *		functions; a successor table belongs to its caller.
 */
#ifndef PGWT_TRACEFMT_TF_V8_H
#define PGWT_TRACEFMT_TF_V8_H

#include <stdbool.h>
#include <stdint.h>

#include "tracefmt/tf_internal.h"

/* Code byte. */
#define V8_PID_MASK		0x0Fu
#define V8_PID_ESCAPE	15u
#define V8_NEW_SHIFT	4			/* bits 4-5: how new is found */
#define V8_NEW_SUCC0	0u			/* the context's last successor */
#define V8_NEW_BACK		1u			/* v6: L.old */
#define V8_NEW_SUCC1	2u			/* the context's successor before it */
#define V8_NEW_EXPL		3u			/* event table index in its column */
#define V8_QUERY		0x40u
#define V8_EXTRA		0x80u
/* Extra byte. */
#define V8_X_OLD		0x01u
#define V8_X_DUR		0x02u
#define V8_X_CPU		0x04u

enum
{
	V8_COL_PID, V8_COL_EXTRA, V8_COL_OLD, V8_COL_NEW, V8_COL_DUR,
	V8_COL_QUERY, V8_COL_CPU, V8_NCOLS
};

#define V8_NONE			0xFFFFu
#define V8_MAX			PGWT_TF_BLOCK_MAX_RECORDS
#define V8_TS_SYMBOLS	252
#define V8_CODE_SYMBOLS	256
#define V8_SUCC_BITS	10			/* successor table: 1024 entries */
#define V8_MARKER_IDS	15			/* 0xFFFFFFF0..0xFFFFFFFE */
#define V8_TS_TABLES	(2 + V8_MARKER_IDS)	/* two of deltas, one per marker id */

static inline bool
tf_v8_is_marker(uint32_t ev)
{
	return ev >= 0xFFFFFFF0u && ev != 0xFFFFFFFFu;
}

/* ---- the successor table (both ends run it identically) ---------------- */

/*
 * A context is the backend's previous record's (old, new) pair: leaving
 * a client read is followed by a statement start, leaving a data file
 * read by another read or the statement's end.
 */
typedef struct tf_v8_succ
{
	uint32_t	tag;			/* the owner's tag (tf_v8_succ_get); 0 = empty */
	uint32_t	c_old,
				c_new;
	uint32_t	s0,
				s1;
} tf_v8_succ;

/* pid index k's part of the slot hash (a decoder keeps it per backend) */
static inline uint32_t
tf_v8_succ_khash(uint32_t k)
{
	return k * 2654435761u;
}

static inline tf_v8_succ *
tf_v8_succ_at_kh(tf_v8_succ *t, uint32_t kh, uint32_t old_event, uint32_t new_event)
{
	uint32_t	h = kh ^ (new_event * 2246822519u) ^ (old_event * 3266489917u);

	return &t[h >> (32 - V8_SUCC_BITS)];
}

static inline tf_v8_succ *
tf_v8_succ_at(tf_v8_succ *t, uint32_t k, uint32_t old_event, uint32_t new_event)
{
	return tf_v8_succ_at_kh(t, tf_v8_succ_khash(k), old_event, new_event);
}

static inline tf_v8_succ *
tf_v8_succ_slot(tf_v8_succ *t, uint32_t k, const pgwt_record *a)
{
	return tf_v8_succ_at(t, k, a->old_event, a->new_event);
}

/*
 * Predictions of the successor list of pid index k after a (0 when none).
 * tag identifies k to the table's owner: the encoder uses k + 1 and clears
 * the table per block, the decoder adds a block generation above k's bits
 * so that its reused table needs no clearing.
 */
static inline void
tf_v8_succ_get(tf_v8_succ *t, uint32_t k, uint32_t tag, const pgwt_record *a,
			   uint32_t *s0, uint32_t *s1)
{
	tf_v8_succ *e = tf_v8_succ_slot(t, k, a);

	if (e->tag == tag && e->c_old == a->old_event && e->c_new == a->new_event)
	{
		*s0 = e->s0;
		*s1 = e->s1;
	}
	else
		*s0 = *s1 = 0;
}

static inline void
tf_v8_succ_put(tf_v8_succ *t, uint32_t k, uint32_t tag, const pgwt_record *a, uint32_t ev)
{
	tf_v8_succ *e = tf_v8_succ_slot(t, k, a);

	if (e->tag != tag || e->c_old != a->old_event || e->c_new != a->new_event)
	{
		e->tag = tag;
		e->c_old = a->old_event;
		e->c_new = a->new_event;
		e->s0 = ev;
		e->s1 = 0;
	}
	else if (e->s0 != ev)
	{
		e->s1 = e->s0;
		e->s0 = ev;
	}
}

/*
 * Which ts code a record's ts is under: a marker after a record of its
 * backend is an offset from that record, under the code of its marker id
 * (2..16); anything else a delta from the previous record, under code 1
 * when it leaves a wait (new 0), else 0.
 */
static inline unsigned
tf_v8_ts_table(uint32_t new_event, bool have_prev)
{
	if (have_prev && tf_v8_is_marker(new_event))
		return 2 + new_event - 0xFFFFFFF0u;
	return new_event == 0;
}

/* ts value v -> (symbol, raw bit count): the v7 rule (3.1.3). */
static inline unsigned
tf_v8_ts_symbol(uint64_t v, unsigned *nraw)
{
	unsigned	b;

	if (v < 8)
	{
		*nraw = 0;
		return (unsigned) v;
	}
	b = 64 - (unsigned) __builtin_clzll(v);
	*nraw = b - 3;
	return 8 + 4 * (b - 4) + (unsigned) ((v >> (b - 3)) & 3);
}

#endif							/* PGWT_TRACEFMT_TF_V8_H */
