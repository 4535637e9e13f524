/*
 * pgwt_dump.c
 *		pgwt-dump: the views of the analysis engine over trace files,
 *		offline (no root, no server).
 *
 *	pgwt-dump DIR|FILE [--from T] [--to T] [--view V] [--format text|json|csv]
 *	          [--sort S] [--event E] [--pid-filter PID] [--query-id Q]
 *	          [--window 5s,1m,5m] [--limit N] [--fine] [--pg-version N]
 *	          [--only exact|sampled]
 *
 * The exact-only views (transitions with query fingerprints, concurrency
 * and bursts, interference, lock_chains) run the engine's exact analysis;
 * lock_chains reads the tracer's blocker observations from the side file
 * blockers.tsv (see pgwt_blkobs_read). cross_validate compares the
 * sampled and exact tiers of the window.
 *
 * Records come through the range loader (analysis/range_load.h): in
 * CLOCK_REALTIME, so windows and --from/--to are wall-clock times and files
 * from different boots line up; the open escalation window first; waits cut
 * to the range, as pgwt_history_*() and --replay see them. Side files in
 * the trace directory (backends, wait-event names) add metadata.
 * Exit status: 0 done, 1 the trace could not be read, 2 bad arguments,
 * 3 read, but blocks, files or side-file lines were damaged and skipped
 * (said on stderr with their counts; --accept-damaged makes it 0, the
 * counts being in the output's trace line or object anyway).
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/backends_load.h"
#include "analysis/engine.h"
#include "analysis/names_load.h"
#include "analysis/query_texts.h"
#include "analysis/range_load.h"
#include "analysis/render.h"
#include "analysis/summary_load.h"
#include "analysis/timeparse.h"
#include "analysis/views.h"
#include "analysis/wait_event.h"
#include "tracefmt/tracefmt.h"
#include "dump_args.h"
#include "analysis/blockers_load.h"

#define DUMP_MAX_WINDOWS 4

/* ---- side files ------------------------------------------------------------ */

/* The trace's own names (events.tsv, or the seed's wait_event_names.json);
 * one warning for lines not used, one for a file that does not parse. */
static void
dump_names_load(pgwt_names *names, const char *dir, pgwt_tf_side_damage *sd)
{
	uint64_t	ignored = 0;
	int			rc = pgwt_names_load_dir(names, dir, NULL, &ignored);

	if (rc >= 0 && ignored > 0)
		fprintf(stderr, "pgwt-dump: warning: %s/%s: %llu line(s) ignored (malformed, over the bounds, or a class that is not the id's)\n",
				dir, PGWT_TF_EVENTS_NAME, (unsigned long long) ignored);
	else if (rc < 0 && rc != -PGWT_TF_NOT_FOUND)
	{
		fprintf(stderr, "pgwt-dump: warning: %s: the wait-event names file cannot be used: %s\n",
				dir, pgwt_tf_strerror(rc));
		sd->names_unreadable = true;
	}
	sd->names_bad = rc >= 0 ? ignored : 0;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct dump_trace
{
	uint64_t	first_rt;
	uint64_t	last_rt;
	uint64_t	records;
} dump_trace;

static int
dump_open(const char *path, uint64_t from, uint64_t to, pgwt_range_loader **l)
{
	int			rc = pgwt_range_open(path, from, to, l);

	if (rc < 0)
		fprintf(stderr, "pgwt-dump: cannot read '%s': %s\n", path, pgwt_tf_strerror(rc));
	return rc;
}

/* Feed every record of the range to eng, or only measure the trace's
 * extent when eng is NULL. */
static int
dump_read(pgwt_range_loader *l, pgwt_engine *eng, dump_trace *tr, const char *path, int only_kind,
		  pgwt_blkobs *bl)
{
	static pgwt_record batch[PGWT_TF_BLOCK_MAX_RECORDS];
	pgwt_range_batch blk;
	int			rc;

	tr->first_rt = UINT64_MAX;
	tr->last_rt = 0;
	while ((rc = pgwt_range_next(l, &blk)) > 0)
	{
		const pgwt_record *recs = blk.recs;
		uint32_t	n = blk.n;

		if (only_kind >= 0)
		{
			/* markers stay: they bound the exact spans */
			n = 0;
			for (uint32_t i = 0; i < blk.n; i++)
				if (blk.recs[i].kind == only_kind || PGWT_IS_MARKER(blk.recs[i].new_event))
					batch[n++] = blk.recs[i];
			recs = batch;
		}
		if (only_kind < 0)
		{
			/* the loader knows the batch's bounds */
			if (n > 0 && blk.first_ts < tr->first_rt)
				tr->first_rt = blk.first_ts;
			if (n > 0 && blk.last_ts > tr->last_rt)
				tr->last_rt = blk.last_ts;
		}
		else
			for (uint32_t i = 0; i < n; i++)
			{
				if (recs[i].ts_ns < tr->first_rt)
					tr->first_rt = recs[i].ts_ns;
				if (recs[i].ts_ns > tr->last_rt)
					tr->last_rt = recs[i].ts_ns;
			}
		tr->records += n;
		if (eng)
			pgwt_blkobs_add_records(eng, bl, recs, n, blk.transitions);
	}
	if (rc < 0)
		fprintf(stderr, "pgwt-dump: reading '%s' failed: %s\n", path, pgwt_tf_strerror(rc));
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static void
dump_fmt_rt(uint64_t ns, char *buf, size_t len)
{
	time_t		s = (time_t) (ns / 1000000000ull);
	struct tm	tm;

	if (ns == 0 || ns == UINT64_MAX || !localtime_r(&s, &tm))
	{
		snprintf(buf, len, "%s", ns == 0 ? "start" : "end");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void
dump_trace_info(pgwt_buf *b, const dump_args *a, const pgwt_tf_reader *r, const pgwt_engine *eng,
				int pg_major, const pgwt_blkobs *bl, const pgwt_tf_window_sources *xs,
				const pgwt_tf_side_damage *sd)
{
	char		xline[160];

	/* which exact source the range's windows used: windows.tsv, when there */
	pgwt_tf_window_sources_text(xs, xline, sizeof(xline));
	const pgwt_tf_read_stats *rs = pgwt_tf_reader_stats(r);
	const pgwt_engine_counters *ec = pgwt_engine_counters_get(eng);

	if (a->format == PGWT_OUT_JSON)
	{
		pgwt_buf_printf(b, "{\"view\":\"trace\",\"files\":%llu,\"files_bad\":%llu,\"blocks\":%llu,"
						"\"bad_blocks_skipped\":%llu,\"footers_bad\":%llu,\"bytes_truncated\":%llu,"
						"\"records\":%llu,\"transitions\":%llu,\"samples\":%llu,\"markers\":%llu,"
						"\"superseded_samples\":%llu,\"samples_forced\":%llu,\"bad_records\":%llu,\"pg_major\":%d,"
						"\"blocker_obs\":%llu,\"blocker_lines_bad\":%llu,\"late_intervals\":%llu,"
						"\"forced_intervals\":%llu",
						(unsigned long long) rs->files, (unsigned long long) rs->files_bad,
						(unsigned long long) rs->blocks, (unsigned long long) rs->blocks_bad,
						(unsigned long long) rs->footers_bad, (unsigned long long) rs->bytes_truncated,
						(unsigned long long) ec->records, (unsigned long long) ec->transitions,
						(unsigned long long) ec->samples, (unsigned long long) ec->markers,
						(unsigned long long) ec->superseded_samples, (unsigned long long) ec->samples_forced,
						(unsigned long long) ec->bad_records, pg_major,
						(unsigned long long) ec->blocker_obs, (unsigned long long) (bl->bad + bl->dropped),
						(unsigned long long) ec->late_intervals,
						(unsigned long long) ec->forced_intervals);
		if (xs->present)
			pgwt_buf_printf(b, ",\"exact_windows\":%llu,\"exact_sources\":{\"watch\":%llu,\"sched\":%llu,\"unknown\":%llu}",
							(unsigned long long) xs->windows,
							(unsigned long long) xs->by_source[PGWT_TF_XSRC_WATCH],
							(unsigned long long) xs->by_source[PGWT_TF_XSRC_SCHED],
							(unsigned long long) xs->by_source[PGWT_TF_XSRC_UNKNOWN]);
		if (pgwt_tf_side_damaged(sd))
			pgwt_buf_printf(b, ",\"side_lines_bad\":%llu", (unsigned long long) pgwt_tf_side_bad_total(sd));
		pgwt_buf_printf(b, "}\n");
		return;
	}
	{
		char		line[640];

		snprintf(line, sizeof(line),
				 "trace: %llu files (%llu unreadable), %llu blocks, %llu bad blocks skipped, %llu bytes truncated; "
				 "%llu records (%llu transitions, %llu samples, %llu superseded by exact data, %llu bad)%s\n",
				 (unsigned long long) rs->files, (unsigned long long) rs->files_bad,
				 (unsigned long long) rs->blocks, (unsigned long long) rs->blocks_bad,
				 (unsigned long long) rs->bytes_truncated, (unsigned long long) ec->records,
				 (unsigned long long) ec->transitions, (unsigned long long) ec->samples,
				 (unsigned long long) ec->superseded_samples, (unsigned long long) ec->bad_records,
				 pg_major ? "" : "; no name table for this server: events shown by id");
		if (a->view == DV_LOCK_CHAINS && (!bl->present || bl->bad || bl->dropped))
		{
			size_t		len = strlen(line);

			if (!bl->present)
				snprintf(line + len - 1, sizeof(line) - len + 1,
						 "; no blockers.tsv: lock chains need the tracer's blocker observations\n");
			else
				snprintf(line + len - 1, sizeof(line) - len + 1, "; blockers.tsv: %llu lines skipped\n",
						 (unsigned long long) (bl->bad + bl->dropped));
		}
		if (xline[0])
		{
			size_t		len = strlen(line);

			snprintf(line + len - 1, sizeof(line) - len + 1, "; %s\n", xline);
		}
		if (pgwt_tf_side_damaged(sd))
		{
			size_t		len = strlen(line);

			snprintf(line + len - 1, sizeof(line) - len + 1, "; side files: %llu bad lines skipped\n",
					 (unsigned long long) pgwt_tf_side_bad_total(sd));
		}
		if (a->format == PGWT_OUT_CSV)
			fputs(line, stderr);	/* keep the CSV itself one table */
		else
			pgwt_buf_printf(b, "%s\n", line);
	}
}

/* Text: the time model of several windows side by side. */
static void
dump_time_model_columns(pgwt_buf *b, const pgwt_engine *eng, int nwin, const pgwt_names *names)
{
	pgwt_render_opts ro = {PGWT_OUT_TEXT, names, false, NULL, NULL, false};
	pgwt_time_model tm[DUMP_MAX_WINDOWS];
	pgwt_event_rows ev[DUMP_MAX_WINDOWS];

	memset(tm, 0, sizeof(tm));
	memset(ev, 0, sizeof(ev));
	for (int w = 0; w < nwin; w++)
	{
		pgwt_view_time_model(eng, w, &tm[w]);
		pgwt_view_system_event(eng, w, NULL, &ev[w]);
	}
	pgwt_render_time_model_columns(b, &ro, tm, ev, nwin);
	for (int w = 0; w < nwin; w++)
		pgwt_event_rows_free(&ev[w]);
}

/* The exact-only views and cross_validate. */
static void
dump_render_exact(pgwt_buf *b, const dump_args *a, const pgwt_engine *eng, int w,
				  const pgwt_render_opts *ro, pgwt_view_opts *vo, const pgwt_window_summary *sum)
{
	pgwt_view_status st;

	switch (a->view)
	{
		case DV_TRANSITIONS:
			{
				pgwt_transition_rows t;
				pgwt_fingerprint_rows f;

				st = pgwt_view_transitions(eng, w, vo, &t);
				pgwt_render_transitions(b, ro, sum, &t, st);
				pgwt_transition_rows_free(&t);
				vo->has_query = a->has_query;
				vo->query_id = a->query_id;
				st = pgwt_view_fingerprints(eng, w, vo, &f);
				pgwt_render_fingerprints(b, ro, sum, &f, st);
				pgwt_fingerprint_rows_free(&f);
			}
			break;
		case DV_CONCURRENCY:
			{
				pgwt_concurrency c;

				st = pgwt_view_concurrency(eng, w, vo, &c);
				pgwt_render_concurrency(b, ro, sum, &c, st);
				pgwt_concurrency_free(&c);
			}
			break;
		case DV_INTERFERENCE:
			{
				pgwt_interference_rows i;

				st = pgwt_view_interference(eng, w, vo, &i);
				pgwt_render_interference(b, ro, sum, &i, st);
				pgwt_interference_rows_free(&i);
			}
			break;
		case DV_LOCK_CHAINS:
			{
				pgwt_lock_chains l;

				st = pgwt_view_lock_chains(eng, w, vo, &l);
				pgwt_render_lock_chains(b, ro, sum, &l, st);
				pgwt_lock_chains_free(&l);
			}
			break;
		case DV_CROSS_VALIDATE:
			{
				pgwt_cross_validation x;

				st = pgwt_view_cross_validate(eng, w, &x);
				pgwt_render_cross_validate(b, ro, sum, &x, st);
				pgwt_cross_validation_free(&x);
			}
			break;
		default:
			break;
	}
}

static void
dump_render(pgwt_buf *b, const dump_args *a, const pgwt_engine *eng, int w,
			const pgwt_names *names, uint32_t event, bool first, pgwt_query_texts *qs,
			bool skip_time_model)
{
	pgwt_render_opts ro = {a->format, names, first, pgwt_query_texts_lookup, qs, false};
	pgwt_view_opts vo = {0};
	pgwt_window_summary sum;
	bool		sum_view = a->view == DV_SUMMARY;

	vo.sort = a->sort;
	vo.names = names;
	vo.limit = a->limit;
	pgwt_view_summary(eng, w, &sum);

	if ((sum_view || a->view == DV_TIME_MODEL) && !skip_time_model)
	{
		pgwt_time_model tm;
		pgwt_view_status st = pgwt_view_time_model(eng, w, &tm);

		pgwt_render_time_model(b, &ro, &tm, st);
	}
	if (sum_view || a->view == DV_SYSTEM_EVENT)
	{
		pgwt_event_rows rows;
		pgwt_view_status st = pgwt_view_system_event(eng, w, &vo, &rows);

		pgwt_render_system_event(b, &ro, &sum, &rows, st);
		pgwt_event_rows_free(&rows);
	}
	if (sum_view || a->view == DV_SESSION_EVENT)
	{
		pgwt_session_rows rows;
		pgwt_view_status st = pgwt_view_session_event(eng, w, &vo, &rows);

		pgwt_render_session_event(b, &ro, &sum, &rows, st);
		pgwt_session_rows_free(&rows);
		if (a->has_pid)
		{
			pgwt_event_rows d;

			st = pgwt_view_session_detail(eng, w, a->pid, &vo, &d);
			pgwt_render_session_detail(b, &ro, &sum, a->pid, &d, st);
			pgwt_event_rows_free(&d);
		}
	}
	if (sum_view || a->view == DV_QUERY_EVENT)
	{
		pgwt_event_rows rows;
		pgwt_view_status st;

		vo.has_event = a->event != NULL;
		vo.event = event;
		vo.has_query = a->has_query;
		vo.query_id = a->query_id;
		st = pgwt_view_query_event(eng, w, &vo, &rows);
		pgwt_render_query_event(b, &ro, &sum, &rows, st);
		pgwt_event_rows_free(&rows);
	}
	if (a->view == DV_HISTOGRAM)
	{
		pgwt_histogram h;
		pgwt_view_status st = pgwt_view_histogram(eng, w, event, &h);

		pgwt_render_histogram(b, &ro, &sum, &h, st);
	}
	dump_render_exact(b, a, eng, w, &ro, &vo, &sum);
}

/* The loader handed the engine the ESC_START of a window open at the
 * start first (so its superseded samples are not billed twice): say so. */
static void
dump_esc_note(const dump_args *a, const pgwt_range_loader *l, pgwt_buf *out)
{
	const pgwt_range_stats *st = pgwt_range_stats_get(l);
	char		t[28];

	if (!st->esc_open || a->format != PGWT_OUT_TEXT)
		return;
	dump_fmt_rt(st->esc_start_rt, t, sizeof(t));
	pgwt_buf_printf(out, "escalation: a window open since %s covers the start; "
					"its samples are superseded by its exact records\n", t);
}

/*
 * The windows to compute: with --window, each list entry as a window
 * ending at --to or else at the trace's last record (found by an extra
 * pass); without, one window [--from, --to). Returns their number or -1.
 */
static int
dump_windows(const dump_args *a, int64_t from_rt, int64_t to_rt, int64_t now_ns,
			 const uint64_t *win_len, int nwin, pgwt_window_spec *specs)
{
	memset(specs, 0, sizeof(*specs) * DUMP_MAX_WINDOWS);
	if (nwin > 0)
	{
		uint64_t	end;
		const char *p = a->windows;

		if (a->to)
			end = (uint64_t) to_rt;
		else
		{
			pgwt_range_loader *l;
			dump_trace	tr = {0};
			int			rc;

			if (dump_open(a->path, (uint64_t) from_rt, UINT64_MAX, &l) < 0)
				return -1;
			rc = dump_read(l, NULL, &tr, a->path, a->only_kind, NULL);
			pgwt_range_close(l);
			if (rc < 0)
				return -1;
			end = tr.records ? tr.last_rt + 1 : (uint64_t) now_ns;
		}
		for (int i = 0; i < nwin; i++)
		{
			size_t		len = strcspn(p, ",");

			specs[i].to_ns = end;
			specs[i].from_ns = end > win_len[i] ? end - win_len[i] : 0;
			if (a->from && specs[i].from_ns < (uint64_t) from_rt)
				specs[i].from_ns = (uint64_t) from_rt;
			/* labelled as typed */
			snprintf(specs[i].label, sizeof(specs[i].label), "last %.*s", (int) len, p);
			p += len + (p[len] == ',');
		}
		return nwin;
	}
	specs[0].from_ns = a->from ? (uint64_t) from_rt : 0;
	specs[0].to_ns = a->to ? (uint64_t) to_rt : UINT64_MAX;
	if (a->from || a->to)
	{
		char		f[28],
					t[28];

		dump_fmt_rt(specs[0].from_ns, f, sizeof(f));
		dump_fmt_rt(specs[0].to_ns, t, sizeof(t));
		snprintf(specs[0].label, sizeof(specs[0].label), "%s..%s", f, t);
	}
	else
		snprintf(specs[0].label, sizeof(specs[0].label), "all");
	return 1;
}

/*
 * --from, --to (against the wall clock now) and --window's lengths. 0, or
 * 2 with one clear error printed.
 */
static int
dump_parse_times(const dump_args *a, int64_t *now_ns, int64_t *from_rt, int64_t *to_rt,
				 uint64_t *win_len, int *nwin)
{
	struct timespec now;
	char		err[256];

	clock_gettime(CLOCK_REALTIME, &now);
	*now_ns = (int64_t) now.tv_sec * 1000000000ll + now.tv_nsec;
	if (a->from && !pgwt_parse_time(a->from, *now_ns, from_rt, err, sizeof(err)))
	{
		fprintf(stderr, "pgwt-dump: --from: %s\n", err);
		return 2;
	}
	if (a->to && !pgwt_parse_time(a->to, *now_ns, to_rt, err, sizeof(err)))
	{
		fprintf(stderr, "pgwt-dump: --to: %s\n", err);
		return 2;
	}
	if (a->from && a->to && *from_rt >= *to_rt)
	{
		fprintf(stderr, "pgwt-dump: --from must be before --to\n");
		return 2;
	}
	if (a->windows && (*nwin = pgwt_parse_duration_list(a->windows, win_len, DUMP_MAX_WINDOWS, err, sizeof(err))) < 0)
	{
		fprintf(stderr, "pgwt-dump: --window: %s\n", err);
		return 2;
	}
	return 0;
}

/*
 * The side files beside the trace (a directory's own, or a file's
 * directory's): event names, backends, query texts and, for lock_chains,
 * blockers. 0, or -1 when memory or blockers.tsv failed.
 */
static int
dump_load_side(const dump_args *a, const struct stat *sb, const pgwt_tf_reader *r,
			   pgwt_engine *eng, pgwt_names *names, pgwt_query_texts *queries,
			   pgwt_blkobs *blockers, pgwt_tf_side_damage *sd)
{
	char	   *side_dir = strdup(a->path);
	int			rc = -1;

	if (!side_dir)
		return -1;
	if (!S_ISDIR(sb->st_mode))
	{
		char	   *d = strdup(dirname(side_dir));

		free(side_dir);
		side_dir = d;
		if (!side_dir)
			return -1;
	}
	dump_names_load(names, side_dir, sd);
	pgwt_backends_load(eng, side_dir, &sd->backends_bad);	/* before records: who is background */
	if (sd->backends_bad)
		fprintf(stderr, "pgwt-dump: warning: %s: %llu backend line(s) bad, skipped\n",
				side_dir, (unsigned long long) sd->backends_bad);
	if (pgwt_query_texts_load(queries, side_dir) != 0)
		goto done;
	sd->queries_bad = queries->bad;
	if (sd->queries_bad)
		fprintf(stderr, "pgwt-dump: warning: %s: %llu query-text line(s) bad, skipped\n",
				side_dir, (unsigned long long) sd->queries_bad);
	if (a->view == DV_LOCK_CHAINS &&
		!pgwt_blkobs_read(side_dir, pgwt_tf_reader_nfiles(r) > 0 ? pgwt_tf_reader_file_header(r, 0) : NULL,
							blockers))
		goto done;
	rc = 0;
done:
	free(side_dir);
	return rc;
}

/*
 * The windows' exact sources (windows.tsv beside the trace) over the
 * range the windows cover; a file that cannot be used (damaged, or a
 * link, FIFO or device, never followed) counts as absent, with a warning.
 */
static void
dump_exact_sources(const char *path, const struct stat *sb, const pgwt_window_spec *specs,
				   int nwin, pgwt_tf_window_sources *xs)
{
	char	   *dir = strdup(path);
	uint64_t	from = specs[0].from_ns,
				to = specs[0].to_ns;
	int			rc;

	memset(xs, 0, sizeof(*xs));
	if (!dir)
		return;
	for (int i = 1; i < nwin; i++)
	{
		from = specs[i].from_ns < from ? specs[i].from_ns : from;
		to = specs[i].to_ns > to ? specs[i].to_ns : to;
	}
	if ((rc = pgwt_tf_window_sources_load(S_ISDIR(sb->st_mode) ? dir : dirname(dir), from,
										  to == UINT64_MAX ? 0 : to, xs)) < 0)
	{
		fprintf(stderr, "pgwt-dump: warning: %s/%s cannot be used: %s\n",
				dir, PGWT_TF_WINDOWS_NAME, pgwt_tf_strerror(rc));
		memset(xs, 0, sizeof(*xs));
	}
	free(dir);
}

/* Every window's view into out (columns side by side where asked). */
static void
dump_render_all(pgwt_buf *out, const dump_args *a, const pgwt_tf_reader *r,
				const pgwt_engine *eng, int pg_major, const pgwt_blkobs *blockers,
				int nwin, const pgwt_names *names, uint32_t event, pgwt_query_texts *queries,
				const pgwt_tf_window_sources *xs, const pgwt_tf_side_damage *sd)
{
	bool		columns = a->format == PGWT_OUT_TEXT && nwin > 1 &&
		(a->view == DV_SUMMARY || a->view == DV_TIME_MODEL);

	dump_trace_info(out, a, r, eng, pg_major, blockers, xs, sd);
	if (columns)
		dump_time_model_columns(out, eng, nwin, names);
	for (int w = 0; w < nwin; w++)
		dump_render(out, a, eng, w, names, event, w == 0, queries, columns);
}

/* out to stdout; 0, or -1 with one clear error printed. */
static int
dump_write_out(const pgwt_buf *out)
{
	if (out->oom)
	{
		fprintf(stderr, "pgwt-dump: out of memory while formatting\n");
		return -1;
	}
	if ((out->len && fwrite(out->data, 1, out->len, stdout) != out->len) || fflush(stdout) != 0)
	{
		fprintf(stderr, "pgwt-dump: writing the output failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * --summaries: one window from the per-second summaries beside the trace,
 * with a note of what they covered. 0, or -1 with the error printed.
 */
static int
dump_read_summaries(const dump_args *a, pgwt_range_loader *l, const pgwt_tf_reader *r,
					pgwt_engine *eng, pgwt_buf *out, bool *used)
{
	/* The engine runs in wall-clock time: the files' offset maps the
	 * summaries' monotonic seconds onto it. */
	const pgwt_tf_file_header *h0 = pgwt_tf_reader_nfiles(r) > 0 ? pgwt_tf_reader_file_header(r, 0) : NULL;
	int64_t		shift = h0 ? (int64_t) (h0->start_realtime_ns - h0->start_monotonic_ns) : 0;
	pgwt_summary_load_stats ss;
	pgwt_tf_trace_source src;
	int			lrc = pgwt_tf_trace_source_open(a->path, &src);
	pgwt_record esc;

	/* the window open at --from, as the loader would hand it first */
	if (pgwt_range_open_window(l, &esc))
		pgwt_engine_add(eng, &esc);
	if (lrc == 0)
	{
		lrc = pgwt_summary_load_source(eng, 0, &src, PGWT_RANGE_SLACK_NS, shift, &ss);
		pgwt_tf_trace_source_close(&src);
	}

	if (lrc < 0)
	{
		fprintf(stderr, "pgwt-dump: reading '%s' failed: %s\n", a->path, pgwt_tf_strerror(lrc));
		return -1;
	}
	if (a->format == PGWT_OUT_JSON)
		pgwt_buf_printf(out, "{\"view\":\"summaries\",\"used\":%s,\"minutes\":%llu,"
						"\"seconds\":%llu,\"records\":%llu}\n", ss.used_summary ? "true" : "false",
						(unsigned long long) ss.minutes, (unsigned long long) ss.seconds,
						(unsigned long long) ss.records);
	else if (a->format == PGWT_OUT_TEXT)
	{
		if (ss.used_summary)
			pgwt_buf_printf(out, "summaries: %llu minute rollups, %llu seconds, %llu records at the edges\n",
							(unsigned long long) ss.minutes, (unsigned long long) ss.seconds,
							(unsigned long long) ss.records);
		else
			pgwt_buf_printf(out, "summaries: not used (%s); records read\n", ss.why_raw);
	}
	*used = ss.used_summary;
	return 0;
}

/* The engine over the windows (exact analysis for the exact views). */
static pgwt_engine *
dump_engine(const dump_args *a, const pgwt_window_spec *specs, int nwin)
{
	pgwt_engine_config ecfg = {0};
	const char *eerr = NULL;
	pgwt_engine *eng;

	ecfg.exact_analysis = dump_view_exact(a->view);
	/* p50/p95/p99 per (session, event) and (query, event) need their
	 * buckets: only the views that show those rows pay for them */
	ecfg.key_histograms = a->view == DV_SESSION_EVENT || a->view == DV_QUERY_EVENT;
	eng = pgwt_engine_create(&ecfg, specs, nwin, &eerr);
	if (!eng)
		fprintf(stderr, "pgwt-dump: %s\n", eerr);
	return eng;
}

/*
 * Names: the server version of the trace, then the trace's own table.
 * Returns the server major the names are of (0: none known).
 */
static int
dump_names_init(const dump_args *a, const pgwt_tf_reader *r, pgwt_names *names)
{
	int			pg_major = a->pg_major;

	if (!pg_major && pgwt_tf_reader_nfiles(r) > 0)
		pg_major = (int) pgwt_tf_pg_major(pgwt_tf_reader_file_header(r, 0)->pg_version);
	if (!pgwt_names_init(names, pg_major))
		pg_major = 0;
	return pg_major;
}

int
main(int argc, char **argv)
{
	dump_args	a;
	int64_t		now_ns,
				from_rt = 0,
				to_rt = 0;
	uint64_t	win_len[DUMP_MAX_WINDOWS];
	int			nwin = 0;
	pgwt_window_spec specs[DUMP_MAX_WINDOWS];
	pgwt_range_loader *l = NULL;
	const pgwt_tf_reader *r = NULL;
	pgwt_engine *eng = NULL;
	pgwt_names	names = {0};
	dump_trace	tr = {0};
	struct stat sb;
	int			rc,
				pg_major = 0;
	uint32_t	event = 0;
	pgwt_buf	out = {0};
	int			status = 1;
	pgwt_query_texts queries = {0};
	pgwt_blkobs blockers = {0};
	pgwt_tf_window_sources xs = {0};
	pgwt_tf_side_damage sd = {0};
	bool		use_sum;

	if ((rc = dump_parse_args(argc, argv, &a)) != 0)
		return rc;
	if ((rc = dump_parse_times(&a, &now_ns, &from_rt, &to_rt, win_len, &nwin)) != 0)
		return rc;
	if (stat(a.path, &sb) != 0)
	{
		fprintf(stderr, "pgwt-dump: cannot read '%s': %s\n", a.path, strerror(errno));
		return 1;
	}

	if ((nwin = dump_windows(&a, from_rt, to_rt, now_ns, win_len, nwin, specs)) < 0)
		return 1;

	use_sum = a.summaries && nwin == 1 && !dump_view_exact(a.view) && a.view != DV_CROSS_VALIDATE &&
		a.only_kind < 0;
	{
		uint64_t	rfrom = specs[0].from_ns,
					rto = specs[0].to_ns;

		for (int i = 1; i < nwin; i++)
		{
			rfrom = specs[i].from_ns < rfrom ? specs[i].from_ns : rfrom;
			rto = specs[i].to_ns > rto ? specs[i].to_ns : rto;
		}
		/* the windows ending where the range ends show it whole */
		for (int i = 0; i < nwin; i++)
			if (specs[i].to_ns == rto)
				specs[i].to_ns = pgwt_range_window_end(rto);
		if (dump_open(a.path, rfrom, rto, &l) < 0)
			return 1;
		r = pgwt_range_reader(l);
	}
	eng = dump_engine(&a, specs, nwin);
	if (!eng)
		goto done;

	pg_major = dump_names_init(&a, r, &names);
	if (dump_load_side(&a, &sb, r, eng, &names, &queries, &blockers, &sd) != 0)
		goto done;
	dump_exact_sources(a.path, &sb, specs, nwin, &xs);

	if (a.event && !pgwt_event_parse(&names, a.event, &event))
	{
		fprintf(stderr, "pgwt-dump: unknown event '%s' (Class:Name as in IO:DataFileRead, Class:0xNN, or CPU*)\n",
				a.event);
		status = 2;
		goto done;
	}

	if (use_sum)
	{
		if (dump_read_summaries(&a, l, r, eng, &out, &use_sum) < 0)
			goto done;
	}
	if (!use_sum)
	{
		dump_esc_note(&a, l, &out);
		if (dump_read(l, eng, &tr, a.path, a.only_kind, &blockers) < 0)
			goto done;
	}
	pgwt_blkobs_feed(eng, &blockers, UINT64_MAX);
	pgwt_engine_flush(eng);

	dump_render_all(&out, &a, r, eng, pg_major, &blockers, nwin, &names, event, &queries, &xs, &sd);
	if (dump_write_out(&out) == 0)
		status = 0;
	/* accepted, the counts are in the output's trace line or object */
	if (status == 0 && !a.accept_damaged && pgwt_tf_read_damaged(pgwt_tf_reader_stats(r)))
	{
		char		msg[256];

		pgwt_tf_read_damage_text(pgwt_tf_reader_stats(r), msg, sizeof(msg));
		fprintf(stderr, "pgwt-dump: %s; --accept-damaged to accept\n", msg);
		status = 3;
	}
	if ((status == 0 || status == 3) && !a.accept_damaged && pgwt_tf_side_damaged(&sd))
	{
		char		msg[256];

		pgwt_tf_side_damage_text(&sd, msg, sizeof(msg));
		fprintf(stderr, "pgwt-dump: %s; --accept-damaged to accept\n", msg);
		status = 3;
	}
done:
	pgwt_buf_free(&out);
	pgwt_query_texts_free(&queries);
	free(blockers.obs);
	pgwt_names_free(&names);
	pgwt_range_close(l);
	pgwt_engine_free(eng);
	return status;
}
