/*
 * summary_views.c
 *		Views from per-second summaries vs from records, as JSON lines (one
 *		object per measurement; the bench harness wraps them into records):
 *		  summary_views_<window>  time model + top 10 events + top 10
 *		                  queries over a window ("all" or "cut"), arm "summary" (summaries + records for
 *		                  partial seconds) or "raw" (every record, streamed
 *		                  through the engine); wall and CPU ms, peak RSS
 *		  summary_size    bytes per second of trace: arm "summary" (the
 *		                  .sum files), arm "trace" (the trace files beside)
 *		  summary_write   what the summary costs the writer: ns per record
 *		                  appended with the summary on and off (arms), for
 *		                  N generated transitions (32 pids, 200 queries)
 *		Each arm runs in its own process (fork + exec of this program) so
 *		its peak RSS is its own. Built to bin/pgwt-bench-summary by
 *		bench/programs/summary_views/Makefile.
 *
 *	 pgwt-bench-summary DIR [--reps R] [--window-s S]
 *	     DIR: a trace directory with summaries (run.sh makes the 1-hour,
 *	     50M-transition one from hour.scn); S: also a window of S seconds
 *	     cut mid-second at both ends (default 300)
 *	 pgwt-bench-summary --arm summary|raw DIR FROM_NS TO_NS REP LABEL
 *	 pgwt-bench-summary --write-cost N [--reps R]
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/range_load.h"
#include "analysis/summary_load.h"
#include "analysis/views.h"
#include "tracefmt/summary.h"
#include "tracefmt/tracefmt.h"

#define SEC 1000000000ull
#define SLACK_NS (600ull * SEC)

static double
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int
feed(pgwt_engine *eng, const char *dir, uint64_t lo, uint64_t hi_excl, uint64_t *nrec)
{
	pgwt_tf_read_opts ro = {0};
	pgwt_tf_reader *r;
	pgwt_tf_block b;
	int			rc;

	if (hi_excl <= lo)
		return 0;
	ro.t_start = lo;
	ro.t_end = hi_excl - 1;
	if ((rc = pgwt_tf_reader_open(dir, &ro, &r)) < 0)
		return rc;
	while ((rc = pgwt_tf_reader_next_block(r, &b)) == 1)
	{
		pgwt_engine_add_many(eng, b.recs, b.n);
		*nrec += b.n;
	}
	pgwt_tf_reader_close(r);
	return rc;
}

/* One measurement in this process. */
static int
run_arm(const char *arm, const char *dir, uint64_t from, uint64_t to, int rep,
		const char *label)
{
	pgwt_engine_config cfg = {0};
	pgwt_window_spec spec;
	pgwt_engine *eng;
	pgwt_time_model tm;
	pgwt_event_rows ev = {0},
				q = {0};
	pgwt_view_opts o = {0};
	uint64_t	nrec = 0,
				nsec = 0,
				nmin = 0;
	double		w0 = clock_ms(CLOCK_MONOTONIC),
				c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID),
				w1,
				c1;
	struct rusage ru;
	int			rc = 0;

	memset(&spec, 0, sizeof(spec));
	spec.from_ns = from;
	/* the summary path answers a loaded range (summary_load.h) */
	spec.to_ns = strcmp(arm, "raw") == 0 ? to : pgwt_range_window_end(to);
	snprintf(spec.label, sizeof(spec.label), "%s", label);
	eng = pgwt_engine_create(&cfg, &spec, 1, NULL);
	if (!eng)
		return 1;
	if (strcmp(arm, "raw") == 0)
		rc = feed(eng, dir, from, to + SLACK_NS + 1, &nrec);
	else
	{
		pgwt_summary_load_stats st = {0};
		pgwt_tf_trace_source src;

		if ((rc = pgwt_tf_trace_source_open(dir, &src)) == 0)
		{
			rc = pgwt_summary_load_source(eng, 0, &src, SLACK_NS, 0, &st);
			pgwt_tf_trace_source_close(&src);
		}
		nrec = st.records;
		nsec = st.seconds;
		nmin = st.minutes;
		if (rc == 0 && !st.used_summary)
			fprintf(stderr, "pgwt-bench-summary: summaries not used: %s\n", st.why_raw);
	}
	if (rc < 0)
	{
		fprintf(stderr, "pgwt-bench-summary: %s arm failed (%d)\n", arm, rc);
		pgwt_engine_free(eng);
		return 1;
	}
	pgwt_engine_flush(eng);
	memset(&tm, 0, sizeof(tm));
	pgwt_view_time_model(eng, 0, &tm);
	o.sort = PGWT_SORT_TOTAL;
	o.limit = 10;
	pgwt_view_system_event(eng, 0, &o, &ev);
	pgwt_view_query_event(eng, 0, &o, &q);
	w1 = clock_ms(CLOCK_MONOTONIC);
	c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"bench\":\"summary_views_%s\",\"arm\":\"%s\",\"rep\":%d,\"window\":\"%s\","
		   "\"window_s\":%.3f,\"wall_ms\":%.3f,\"cpu_ms\":%.3f,\"peak_rss_kb\":%ld,"
		   "\"records_read\":%" PRIu64 ",\"summary_seconds\":%" PRIu64 ",\"summary_minutes\":%" PRIu64 ","
		   "\"db_ns\":%" PRIu64 ",\"top_event_ns\":%" PRIu64 "}\n",
		   label, arm, rep, label, (double) (to - from) / 1e9, w1 - w0, c1 - c0, ru.ru_maxrss,
		   nrec, nsec, nmin, tm.sum.db_ns, ev.n ? ev.rows[0].total_ns : 0);
	pgwt_event_rows_free(&ev);
	pgwt_event_rows_free(&q);
	pgwt_engine_free(eng);
	return 0;
}

static void
sizes(const char *dir, double seconds, int rep)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	uint64_t	sum = 0,
				trace = 0;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
	{
		char		p[4096];
		struct stat st;
		size_t		l = strlen(de->d_name);

		if (snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= (int) sizeof(p) ||
			stat(p, &st) < 0)
			continue;
		if (l > 4 && strcmp(de->d_name + l - 4, ".sum") == 0)
			sum += (uint64_t) st.st_size;
		else if (l > 10 && strcmp(de->d_name + l - 10, ".trace.lz4") == 0)
			trace += (uint64_t) st.st_size;
	}
	closedir(d);
	/* the two kinds of file as arms, so a record compares them */
	printf("{\"bench\":\"summary_size\",\"arm\":\"summary\",\"rep\":%d,\"trace_seconds\":%.0f,"
		   "\"bytes\":%" PRIu64 ",\"bytes_per_s\":%.1f}\n", rep, seconds, sum, sum / seconds);
	printf("{\"bench\":\"summary_size\",\"arm\":\"trace\",\"rep\":%d,\"trace_seconds\":%.0f,"
		   "\"bytes\":%" PRIu64 ",\"bytes_per_s\":%.1f}\n", rep, seconds, trace, trace / seconds);
}

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Appends n generated transitions to a new file; ns per record. */
static double
write_cost(uint64_t n, bool summary)
{
	char		path[] = "/tmp/pgwt-bench-summary-XXXXXX";
	char		file[64];
	pgwt_tf_file_opts fo;
	pgwt_tf_file_writer *w;
	uint32_t	state[32] = {0};
	uint64_t	last[32] = {0};
	uint64_t	x = 88172645463325252ull,
				ts = SEC,
				i;
	double		t0,
				t1;

	if (!mkdtemp(path))
		return -1;
	snprintf(file, sizeof(file), "%s/t.trace", path);
	memset(&fo, 0, sizeof(fo));
	fo.group_gid = -1;
	fo.no_summary = !summary;
	if (pgwt_tf_file_writer_create(file, &fo, &w) < 0)
		return -1;
	t0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++)
	{
		pgwt_record r;
		unsigned	p = (unsigned) (xorshift(&x) % 32);
		static const uint32_t ev[5] = {0, 0x0A000001, 0x01000000, 0x03000004, 0x06000000};

		memset(&r, 0, sizeof(r));
		ts += 1 + xorshift(&x) % 140000;	/* ~14k records/s */
		r.kind = PGWT_REC_TRANSITION;
		r.ts_ns = ts;
		r.pid = 1000 + p;
		r.old_event = state[p];
		r.new_event = state[p] = ev[xorshift(&x) % 5];
		r.duration_ns = last[p] ? ts - last[p] : 0;
		last[p] = ts;
		r.query_id = 1 + xorshift(&x) % 200;
		r.cpu_ns = PGWT_CPU_UNKNOWN;
		if (pgwt_tf_file_writer_append(w, &r) < 0)
			return -1;
	}
	if (pgwt_tf_file_writer_finish(w) < 0)
		return -1;
	t1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	{
		char		cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
		if (system(cmd) != 0)
			fprintf(stderr, "pgwt-bench-summary: could not remove %s\n", path);
	}
	return (t1 - t0) * 1e6 / (double) n;
}

static int
spawn(const char *self, const char *arm, const char *dir, uint64_t from, uint64_t to,
	  int rep, const char *label)
{
	char		a[32],
				b[32],
				r[16];
	pid_t		pid;
	int			status;

	snprintf(a, sizeof(a), "%" PRIu64, from);
	snprintf(b, sizeof(b), "%" PRIu64, to);
	snprintf(r, sizeof(r), "%d", rep);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		execl(self, self, "--arm", arm, dir, a, b, r, label, (char *) NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	const char *dir;
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;
	uint64_t	first = UINT64_MAX,
				last = 0;
	int			reps = 3,
				window_s = 300,
				i,
				rep;
	char		self[4096];
	ssize_t		n;

	if (argc == 8 && strcmp(argv[1], "--arm") == 0)
		return run_arm(argv[2], argv[3], strtoull(argv[4], NULL, 10),
					   strtoull(argv[5], NULL, 10), atoi(argv[6]), argv[7]);
	if (argc >= 3 && strcmp(argv[1], "--write-cost") == 0)
	{
		uint64_t	nrec = strtoull(argv[2], NULL, 10);

		if (argc == 5 && strcmp(argv[3], "--reps") == 0)
			reps = atoi(argv[4]);
		for (rep = 0; rep < reps; rep++)
		{
			double		on = write_cost(nrec, true),
						off = write_cost(nrec, false);

			if (on < 0 || off < 0)
				return 1;
			printf("{\"bench\":\"summary_write\",\"arm\":\"summary_on\",\"rep\":%d,"
				   "\"records\":%" PRIu64 ",\"cpu_ns_per_record\":%.2f}\n", rep, nrec, on);
			printf("{\"bench\":\"summary_write\",\"arm\":\"summary_off\",\"rep\":%d,"
				   "\"records\":%" PRIu64 ",\"cpu_ns_per_record\":%.2f}\n", rep, nrec, off);
		}
		return 0;
	}
	if (argc < 2)
	{
		fprintf(stderr, "usage: pgwt-bench-summary DIR [--reps R] [--window-s S]\n");
		return 2;
	}
	dir = argv[1];
	for (i = 2; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--window-s") == 0)
			window_s = atoi(argv[i + 1]);
		else
		{
			fprintf(stderr, "pgwt-bench-summary: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (pgwt_tf_sum_reader_open(dir, 0, UINT64_MAX, &sr) < 0)
	{
		fprintf(stderr, "pgwt-bench-summary: no summaries in %s\n", dir);
		return 1;
	}
	while (pgwt_tf_sum_reader_next(sr, &s) == 1)
	{
		if (s->sec_ts < first)
			first = s->sec_ts;
		if (s->sec_ts > last)
			last = s->sec_ts;
	}
	pgwt_tf_sum_reader_close(sr);
	if (first >= last)
	{
		fprintf(stderr, "pgwt-bench-summary: fewer than two seconds in %s\n", dir);
		return 1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	for (rep = 0; rep < reps; rep++)
	{
		sizes(dir, (double) (last + SEC - first) / 1e9, rep);
		uint64_t	mid = first + (last - first) / 2;
		uint64_t	wf = mid + SEC / 3,
					wt = mid + (uint64_t) window_s * SEC + SEC / 2;

		if (spawn(self, "summary", dir, first, last + SEC, rep, "all") < 0 ||
			spawn(self, "raw", dir, first, last + SEC, rep, "all") < 0 ||
			spawn(self, "summary", dir, wf, wt, rep, "cut") < 0 ||
			spawn(self, "raw", dir, wf, wt, rep, "cut") < 0)
			return 1;
	}
	return 0;
}
