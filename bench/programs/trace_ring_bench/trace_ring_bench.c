/*
 * trace_ring_bench.c
 *		Micro-benchmark of the extension's trace path without a server:
 *		the cost of one ring append (what a traced wait adds to the hook
 *		path), alone and with a reader thread draining the ring, and the
 *		trace writer's side: ring -> transitions -> trace directory, in
 *		ns per wait and bytes per wait on disk, for the record pattern of
 *		a pgbench select-only transaction (statement, executor and commit
 *		markers, one DataFileRead, an idle ClientRead).
 *
 * Prints JSON lines ("bench", "arm", "rep", metrics with units).
 *   trace_ring_bench [--reps N] [--waits N]
 */
#include "extension/trace_records.h"
#include "extension/trace_ring.h"
#include "tracefmt/tracefmt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

typedef struct reader_arg
{
	pgwt_trace_ring *r;
	volatile int stop;
	uint64_t	copied;
} reader_arg;

static void *
reader(void *a)
{
	reader_arg *ra = a;
	pgwt_tring_rec buf[256];
	pgwt_tring_read_stats st = {0};
	uint64_t	from = 0,
				next;

	while (!__atomic_load_n(&ra->stop, __ATOMIC_ACQUIRE))
	{
		if (pgwt_tring_read(ra->r, 1, from, buf, 256, &next, &st) == 0)
			usleep(100);
		from = next;
	}
	ra->copied = st.copied;
	return NULL;
}

static double
bench_append(uint64_t n, bool with_reader)
{
	pgwt_trace_ring *r = malloc(pgwt_tring_size(4096));
	reader_arg	ra = {0};
	pthread_t	th;
	uint64_t	t0,
				t1;

	pgwt_tring_init(r, 4096);
	pgwt_tring_claim(r, 1);
	ra.r = r;
	if (with_reader)
		pthread_create(&th, NULL, reader, &ra);
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		pgwt_tring_append(r, PGWT_TRING_WAIT, 0x0A000001u, i * 1000, 5000 + (i & 1023), 42);
	t1 = now_ns();
	if (with_reader)
	{
		__atomic_store_n(&ra.stop, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
	}
	free(r);
	return (double) (t1 - t0) / (double) n;
}

/* One select-only transaction's ring records; returns how many. */
static int
fill_txn(pgwt_trace_ring *r, uint64_t t, uint64_t qid, uint64_t i)
{
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_STMT_START, t, 0, qid);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_EXEC_START, t + 900, 0, qid);
	pgwt_tring_append(r, PGWT_TRING_WAIT, 0x0A000001u, t + 2000, 3000 + (i * 7919) % 5000, qid);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_EXEC_END, t + 9000, 0, qid);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_STMT_END, t + 9500, 0, qid);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_XACT_COMMIT, t + 9600, 0, 0);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_IDLE, t + 9800, 0, qid);
	pgwt_tring_append(r, PGWT_TRING_WAIT, 0x06000000u, t + 9800, 40000 + (i * 104729) % 20000, qid);
	return 8;
}

static int
bench_writer(uint64_t txns, int rep, const char *dir)
{
	pgwt_trace_ring *r = malloc(pgwt_tring_size(1 << 16));
	pgwt_tring_rec in[512];
	pgwt_record out[1024];
	pgwt_tring_read_stats st = {0};
	pgwt_trace_stream s;
	pgwt_tf_dir_opts o;
	pgwt_tf_dir_writer *d;
	uint64_t	t = now_ns(),
				t0,
				spent = 0,
				waits = 0,
				records = 0,
				bytes = 0,
				next;
	int			rc;
	char		cmd[512];
	FILE	   *du;

	memset(&o, 0, sizeof(o));
	o.file.write_meta = true;
	o.file.no_summary = true;
	if ((rc = pgwt_tf_dir_open(dir, &o, &d)) < 0)
	{
		fprintf(stderr, "trace_ring_bench: %s: %s\n", dir, pgwt_tf_strerror(rc));
		return 1;
	}
	pgwt_tring_init(r, 1 << 16);
	pgwt_tring_claim(r, 4242);
	pgwt_trace_stream_init(&s, 4242, 0);
	for (uint64_t done = 0; done < txns;)
	{
		size_t		n;

		/* a batch of transactions, then one drain (as the worker does) */
		for (int k = 0; k < 2000 && done < txns; k++, done++)
		{
			fill_txn(r, t, 0x1234 + (done & 63), done);
			t += 60000;
			waits += 2;
		}
		t0 = now_ns();
		while ((n = pgwt_tring_read(r, 4242, s.next_pos, in, 512, &next, &st)) > 0)
		{
			size_t		m = pgwt_trace_convert(&s, in, n, out);

			for (size_t i = 0; i < m; i++)
				pgwt_tf_dir_append(d, &out[i]);
			records += m;
			s.next_pos = next;
		}
		spent += now_ns() - t0;
	}
	t0 = now_ns();
	pgwt_tf_dir_close(d);
	spent += now_ns() - t0;
	snprintf(cmd, sizeof(cmd), "du -sb --apparent-size %s", dir);
	if ((du = popen(cmd, "r")) != NULL)
	{
		unsigned long long b = 0;

		if (fscanf(du, "%llu", &b) == 1)
			bytes = b;
		pclose(du);
	}
	printf("{\"bench\": \"trace_ring_bench\", \"arm\": \"drain_to_files\", \"rep\": %d, "
		   "\"waits\": %llu, \"records\": %llu, \"ns_per_wait\": %.1f, \"bytes_per_wait\": %.3f, "
		   "\"lost_records\": %llu}\n",
		   rep, (unsigned long long) waits, (unsigned long long) records,
		   (double) spent / (double) waits, (double) bytes / (double) waits,
		   (unsigned long long) (st.overwritten + st.torn));
	free(r);
	return 0;
}

int
main(int argc, char **argv)
{
	int			reps = 5;
	uint64_t	waits = 20000000;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--waits") == 0 && i + 1 < argc)
			waits = strtoull(argv[++i], NULL, 10);
		else
		{
			fprintf(stderr, "usage: trace_ring_bench [--reps N] [--waits N]\n");
			return 2;
		}
	}
	if (reps < 1 || waits < 1000)
	{
		fprintf(stderr, "trace_ring_bench: --reps >= 1 and --waits >= 1000\n");
		return 2;
	}
	for (int rep = 0; rep < reps; rep++)
	{
		char		dir[64];
		char		cmd[128];

		printf("{\"bench\": \"trace_ring_bench\", \"arm\": \"append\", \"rep\": %d, \"ns_per_wait\": %.2f}\n",
			   rep, bench_append(waits, false));
		printf("{\"bench\": \"trace_ring_bench\", \"arm\": \"append_with_reader\", \"rep\": %d, \"ns_per_wait\": %.2f}\n",
			   rep, bench_append(waits, true));
		snprintf(dir, sizeof(dir), "/tmp/pgwt-trb-XXXXXX");
		if (mkdtemp(dir) == NULL)
			return 1;
		if (bench_writer(waits / 40, rep, dir) != 0)
			return 1;
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
		fflush(stdout);
	}
	return 0;
}
