/*
 * dump_args.h
 *		pgwt-dump's command line: the views it knows, the parsed arguments,
 *		and the parser (dump_args.c). Pure: no I/O beyond its messages.
 */
#ifndef PGWT_DUMP_ARGS_H
#define PGWT_DUMP_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/render.h"
#include "analysis/views.h"

typedef enum dump_view
{
	DV_SUMMARY,					/* time model, top events, sessions, queries */
	DV_TIME_MODEL,
	DV_SYSTEM_EVENT,
	DV_SESSION_EVENT,
	DV_HISTOGRAM,
	DV_QUERY_EVENT,
	DV_TRANSITIONS,				/* and query fingerprints */
	DV_CONCURRENCY,
	DV_INTERFERENCE,
	DV_LOCK_CHAINS,
	DV_CROSS_VALIDATE
} dump_view;

/* Views that need the engine's exact analysis. */
static inline bool
dump_view_exact(dump_view v)
{
	return v == DV_TRANSITIONS || v == DV_CONCURRENCY || v == DV_INTERFERENCE || v == DV_LOCK_CHAINS;
}

typedef struct dump_args
{
	const char *path;
	const char *from;
	const char *to;
	const char *event;
	const char *windows;
	dump_view	view;
	pgwt_out_format format;
	pgwt_sort	sort;
	bool		has_pid;
	uint32_t	pid;
	bool		has_query;
	uint64_t	query_id;
	size_t		limit;
	bool		fine;			/* --fine: accepted, no effect (one layout) */
	int			pg_major;			/* 0 = from the file header */
	bool		accept_damaged;		/* damaged input is no failure */
	int			only_kind;			/* -1 = all, else a pgwt_rec_kind */
	bool		summaries;			/* answer from per-second summaries */
} dump_args;

/*
 * Parses argv into *a. 0, or the exit status (2) with one clear error
 * printed; --help prints the usage and exits.
 */
extern int	dump_parse_args(int argc, char **argv, dump_args *a);

#endif							/* PGWT_DUMP_ARGS_H */
