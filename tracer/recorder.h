/*
 * recorder.h
 *		Trace recording for the tracer: records and side files go through
 *		the tracefmt library's directory writer (rotation, recovery of a
 *		leftover live file, retention are its job).
 */
#ifndef PGWT_TRACER_RECORDER_H
#define PGWT_TRACER_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/wait_event.h"
#include "tracefmt/record.h"
#include "tracefmt/tracefmt.h"
#include "tracer/pgconn.h"
#include "tracer/self_metrics.h"

typedef struct pgwt_recorder pgwt_recorder;

typedef struct pgwt_recorder_opts
{
	unsigned	retention_hours;
	double		retention_gb;	/* 0 = no size cap */
	const char *group;			/* NULL: "dba" when that group exists */
	uint32_t	pg_version;		/* server_version_num */
	uint64_t	sample_period_ns;
	pgwt_self_metrics *metrics;
	bool		no_query_text;	/* --query-text none: ids only, no text */
	bool		seed_format;	/* --seed-format: what the seed tool reads,
								 * its JSON side files rewritten at each
								 * rotation, every minute and at close */
} pgwt_recorder_opts;

/*
 * Creates dir when missing (0750, the group). Refuses a directory that is
 * not safe to write (tracefmt's pgwt_tf_safe_dir_open: owner, mode, links,
 * the directories above it), with the path and the reason in errbuf.
 * -1 + errbuf on failure (nothing written).
 */
extern int	pgwt_recorder_open(const char *dir, const pgwt_recorder_opts *opts,
							   pgwt_recorder **out, char *errbuf, size_t errlen);
extern int	pgwt_recorder_append(pgwt_recorder *r, const pgwt_record *recs, size_t n);
/* Flush about once a second, rotate at the hour, retention now and then. */
extern int	pgwt_recorder_periodic(pgwt_recorder *r, uint64_t now_ns);
/* Side files: a backend seen for the first time, a query text. */
extern int	pgwt_recorder_backend(pgwt_recorder *r, const pgwt_pg_backend *b);
extern int	pgwt_recorder_query(pgwt_recorder *r, uint64_t query_id, const char *text);
/* Note an event id; names of the ids seen are (re)written at flush. */
extern void pgwt_recorder_note_events(pgwt_recorder *r, const pgwt_record *recs, size_t n);
extern void pgwt_recorder_set_names(pgwt_recorder *r, const pgwt_names *names);
/* Finish and archive the live file; frees r. */
extern int	pgwt_recorder_close(pgwt_recorder *r);
/* The checked directory's descriptor and the side files' options (mode,
 * group, bound), for other writers of side files (blockers.tsv). */
extern int	pgwt_recorder_dirfd(const pgwt_recorder *r);
extern const pgwt_tf_file_opts *pgwt_recorder_side_opts(const pgwt_recorder *r);
extern const char *pgwt_recorder_error(int rc);

#endif
