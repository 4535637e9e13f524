/*
 * analysis_throughput.c
 *		Micro-benchmark of the analysis engine: records aggregated per
 *		second, and peak RSS, over in-memory record streams.
 *
 *	pgwt-bench-analysis [--reps N] [--records N] [--arm NAME]
 *
 * A pool of 65536 synthetic records (64 backends, 48 events of 6 classes,
 * 1024 query ids, durations spread over 1 us..50 ms; in the -local arms a
 * backend alternates CPU and waits, keeps its query a while, and each
 * duration is the time since its previous move) is fed again and again
 * with advancing timestamps until --records (default 10M) have gone in.
 * Arms: exact (transitions, 1 window), sampled (samples, 1 window), mixed
 * (90/10, 1 window), exact-3win (transitions, 3 windows of one pass), and
 * exact-1win at a tenth of the records, to show that peak RSS does not grow
 * with the trace. exact-local-analysis adds the exact-only analyses
 * (exact.h) to the backend-like stream, and harness runs the same loop
 * with no engine at all: its cost (copying records to advance their
 * timestamps) is included in every other arm's figures. Each run is a fresh child process, so its peak RSS is its
 * own. One JSON line per run on stdout:
 *	{"bench":"analysis_engine","arm":A,"rep":R,"records":N,
 *	 "events_per_s":X,"ns_per_event":Y,"cpu_ns_per_event":C,"peak_rss_kb":Z}
 * (events_per_s and ns_per_event from the wall clock, cpu_ns_per_event from
 * the process CPU clock: on a shared machine the second is the steadier.)
 * Records go in through pgwt_engine_add_many in blocks of 4096, the way a
 * trace reader hands them over.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/engine.h"

#define POOL 65536

typedef struct bench_arm
{
	const char *name;
	int			sample_pct;			/* % of records that are samples */
	int			nwindows;
	int			records_div;		/* run records / this */
	bool		local;				/* backend-like key locality */
	bool		exact_analysis;		/* engine config: the exact-only views */
	bool		no_engine;			/* the harness alone */
} bench_arm;

static const bench_arm bench_arms[] = {
	/* name, sample %, windows, records / N, local, exact analysis, no engine */
	{"exact", 0, 1, 1, false, false, false},
	{"exact-local", 0, 1, 1, true, false, false},
	{"sampled", 100, 1, 1, false, false, false},
	{"mixed", 10, 1, 1, false, false, false},
	{"exact-3win", 0, 3, 1, false, false, false},
	{"exact-tenth", 0, 1, 10, false, false, false},
	{"exact-local-analysis", 0, 1, 1, true, true, false},
	{"harness", 0, 1, 1, true, false, true},
};

static uint64_t
bench_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
bench_pool(pgwt_record *pool, int sample_pct, bool local)
{
	uint64_t	query_of[64] = {0};
	uint32_t	in_wait[64] = {0};
	uint64_t	last_ts[64] = {0};
	static const uint32_t classes[6] = {0x01000000, 0x03000000, 0x06000000, 0x08000000, 0x09000000, 0x0A000000};
	uint64_t	seed = 0x9E3779B97F4A7C15ull;
	uint64_t	ts = 0;

	for (int i = 0; i < POOL; i++)
	{
		pgwt_record *r = &pool[i];
		uint64_t	x = bench_rand(&seed);

		memset(r, 0, sizeof(*r));
		ts += 1000 + x % 20000;
		r->ts_ns = ts;
		r->pid = 1000 + (uint32_t) (x % 64);
		r->query_id = 1 + (x >> 8) % 1024;
		r->cpu_ns = PGWT_CPU_UNKNOWN;
		{
			uint32_t	ev = (x >> 20) % 9 == 0 ? 0 : classes[(x >> 24) % 6] | (uint32_t) ((x >> 30) % 8);

			if (local)
			{
				/* a backend alternates CPU and a wait, keeps its query a while */
				unsigned	b = (unsigned) (i % 64);

				r->pid = 1000 + b;
				if (query_of[b] == 0 || (x >> 50) % 300 == 0)
					query_of[b] = 1 + (x >> 8) % 1024;
				r->query_id = query_of[b];
				ev = in_wait[b] ? classes[(r->query_id + (x >> 24) % 2) % 6] | (uint32_t) (r->query_id % 3) : 0;
				in_wait[b] = !in_wait[b];
			}

			if ((int) ((x >> 40) % 100) < sample_pct)
			{
				r->kind = PGWT_REC_SAMPLE;
				r->new_event = ev;
				r->weight_ns = 10000000;
			}
			else
			{
				r->kind = PGWT_REC_TRANSITION;
				r->old_event = ev;
				r->new_event = 0;
				r->duration_ns = 1000ull << ((x >> 44) % 16);
				if (local)
				{
					/* a backend is in one state at a time: since its last move */
					unsigned	b = (unsigned) (i % 64);

					r->duration_ns = last_ts[b] ? ts - last_ts[b] : 1000;
					last_ts[b] = ts;
				}
			}
		}
	}
}

static double
bench_now(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static int
bench_run(const bench_arm *arm, int rep, uint64_t records)
{
	static pgwt_record pool[POOL];
	static pgwt_record block[4096];
	pgwt_window_spec w[3];
	pgwt_engine *eng;
	uint64_t	span,
				done = 0,
				pass = 0;
	double		t0,
				t1,
				c0,
				c1;
	struct rusage ru;

	bench_pool(pool, arm->sample_pct, arm->local);
	span = pool[POOL - 1].ts_ns + 1;
	/* windows cover the whole run: the last of them gets every record */
	for (int i = 0; i < 3; i++)
	{
		w[i].from_ns = i == 2 ? 0 : span * (records / POOL) / (uint64_t) (4 - 2 * i);
		w[i].to_ns = UINT64_MAX;
		snprintf(w[i].label, sizeof(w[i].label), "w%d", i);
	}
	{
		pgwt_engine_config cfg = {.exact_analysis = arm->exact_analysis};

		eng = pgwt_engine_create(&cfg, arm->nwindows == 1 ? &w[2] : w, arm->nwindows, NULL);
	}
	if (!eng)
		return 1;
	t0 = bench_now(CLOCK_MONOTONIC);
	c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
	while (done < records)
	{
		size_t		n = records - done < POOL ? (size_t) (records - done) : POOL;

		for (size_t off = 0; off < n; off += 4096)
		{
			size_t		m = n - off < 4096 ? n - off : 4096;

			for (size_t i = 0; i < m; i++)
			{
				block[i] = pool[off + i];
				block[i].ts_ns += pass * span;
			}
			if (!arm->no_engine)
				pgwt_engine_add_many(eng, block, m);
			else
				__asm__ volatile ("" : : "r"(block) : "memory");	/* keep the copy */
		}
		done += n;
		pass++;
	}
	t1 = bench_now(CLOCK_MONOTONIC);
	c1 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"bench\":\"analysis_engine\",\"arm\":\"%s\",\"rep\":%d,\"records\":%llu,"
		   "\"events_per_s\":%.0f,\"ns_per_event\":%.2f,\"cpu_ns_per_event\":%.2f,\"peak_rss_kb\":%ld}\n",
		   arm->name, rep, (unsigned long long) records, (double) records / (t1 - t0),
		   (t1 - t0) * 1e9 / (double) records, (c1 - c0) * 1e9 / (double) records, ru.ru_maxrss);
	fflush(stdout);
	pgwt_engine_free(eng);
	return 0;
}

int
main(int argc, char **argv)
{
	int			reps = 3;
	uint64_t	records = 10000000;
	const char *only = NULL;		/* --arm: run just this one (profiling) */

	for (int i = 1; i < argc; i++)
	{
		char	   *end;

		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
		{
			reps = (int) strtol(argv[++i], &end, 10);
			if (*end || reps < 1)
				goto usage;
		}
		else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc)
		{
			records = strtoull(argv[++i], &end, 10);
			if (*end || records < POOL)
				goto usage;
		}
		else if (strcmp(argv[i], "--arm") == 0 && i + 1 < argc)
		{
			bool		known = false;

			only = argv[++i];
			for (size_t a = 0; a < sizeof(bench_arms) / sizeof(bench_arms[0]); a++)
				known = known || strcmp(only, bench_arms[a].name) == 0;
			if (!known)
				goto usage;
		}
		else
			goto usage;
	}
	for (int rep = 1; rep <= reps; rep++)
		for (size_t a = 0; a < sizeof(bench_arms) / sizeof(bench_arms[0]); a++)
		{
			pid_t		pid;
			int			st;

			if (only && strcmp(only, bench_arms[a].name) != 0)
				continue;
			pid = fork();
			if (pid == 0)
				_exit(bench_run(&bench_arms[a], rep, records / (uint64_t) bench_arms[a].records_div));
			if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			{
				fprintf(stderr, "pgwt-bench-analysis: arm %s failed\n", bench_arms[a].name);
				return 1;
			}
		}
	return 0;
usage:
	fprintf(stderr, "usage: pgwt-bench-analysis [--reps N] [--records N>=65536] [--arm NAME]\n");
	return 2;
}
