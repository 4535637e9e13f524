/*
 * query_texts.h
 *		The query texts a trace directory carries (queries.tsv, or the seed
 *		tool's query_texts.jsonl), as a bounded sorted table for the
 *		renderers' query_text callback. One loader for every offline reader
 *		of a directory (pgwt-dump, pgwt-server).
 *
 * Bounded: at most PGWT_QT_MAX texts of PGWT_QT_TEXT bytes (a longer text
 * is cut and ends in "..."); texts past the bound are counted, not kept.
 * A later line for the same id replaces the text.
 */
#ifndef PGWT_ANALYSIS_QUERY_TEXTS_H
#define PGWT_ANALYSIS_QUERY_TEXTS_H

#include <stddef.h>
#include <stdint.h>

#define PGWT_QT_MAX		8192
#define PGWT_QT_TEXT	256

typedef struct pgwt_qt_entry
{
	uint64_t	id;
	char		text[PGWT_QT_TEXT];
} pgwt_qt_entry;

typedef struct pgwt_query_texts
{
	pgwt_qt_entry *q;
	size_t		n;
	uint64_t	dropped;		/* past PGWT_QT_MAX */
	uint64_t	bad;			/* damaged lines, skipped and counted */
} pgwt_query_texts;

/* Load dir's texts into qt (zeroed by the caller). 0, or -1 out of memory
 * (a missing file leaves the table empty: 0; damaged lines are skipped and
 * counted in qt->bad, for the caller to report). */
int			pgwt_query_texts_load(pgwt_query_texts *qt, const char *dir);
/* The text of an id, or NULL; arg is a const pgwt_query_texts * (the
 * signature of pgwt_render_opts.query_text). */
const char *pgwt_query_texts_lookup(uint64_t query_id, void *arg);
void		pgwt_query_texts_free(pgwt_query_texts *qt);

#endif							/* PGWT_ANALYSIS_QUERY_TEXTS_H */
