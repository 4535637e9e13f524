/*
 * test_trace_ring.c
 *		Unit tests of the extension's trace ring (extension/trace_ring.h) and
 *		its conversion to the record stream (extension/trace_records.h):
 *		ordering, wraparound, ownership changes, torn and stale entries,
 *		a writer thread racing reader threads, and ring -> trace directory
 *		-> reader round trips, including recovery after a writer dies;
 *		every ring marker's record id through a trace file, and the
 *		escalation markers the trace writer derives from the policy state;
 *		the pool of rings (extension/trace_pool.h): take, give back,
 *		recycle, exhaustion, a ring handed on showing nothing of its
 *		previous holder, and threads racing for a small pool.
 *		Run under ASan+UBSan by test/suites/55-ext-trace-unit.
 */
#include "extension/trace_pool.h"
#include "extension/trace_ring.h"
#include "extension/trace_records.h"
#include "tracefmt/tracefmt.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int	t_failures;
static const char *t_name;

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("FAIL %s: %s (line %d)\n", t_name, #cond, __LINE__); \
		t_failures++; return; } } while (0)

static void
run(const char *name, void (*fn)(void))
{
	int			before = t_failures;

	t_name = name;
	fn();
	if (t_failures == before)
		printf("PASS %s\n", name);
}

static pgwt_trace_ring *
ring_new(uint32_t cap)
{
	pgwt_trace_ring *r = malloc(pgwt_tring_size(cap));

	pgwt_tring_init(r, cap);
	return r;
}

/* Field values derived from the position, so any reader can verify them. */
static void
append_pos(pgwt_trace_ring *r, uint64_t p)
{
	pgwt_tring_append(r, PGWT_TRING_WAIT, (uint32_t) (0x09000000u | (p & 0xffff)),
					  p * 3 + 1, p ^ UINT64_C(0x5555), p * 7 + 11);
}

static bool
rec_matches(const pgwt_tring_rec *x)
{
	uint64_t	p = x->pos;

	return x->kind == PGWT_TRING_WAIT &&
		x->event == (uint32_t) (0x09000000u | (p & 0xffff)) &&
		x->start_ns == p * 3 + 1 && x->duration_ns == (p ^ UINT64_C(0x5555)) &&
		x->query_id == p * 7 + 11;
}

static void
test_capacity(void)
{
	CHECK(pgwt_tring_round_capacity(0) == 16);
	CHECK(pgwt_tring_round_capacity(17) == 32);
	CHECK(pgwt_tring_round_capacity(1024) == 1024);
	CHECK(pgwt_tring_round_capacity(UINT64_C(1) << 40) == (1u << 24));
	CHECK(pgwt_tring_size(100) == offsetof(pgwt_trace_ring, entries) + 128 * 40);
	CHECK(sizeof(pgwt_tring_entry) == 40);
}

static void
test_basic_order(void)
{
	pgwt_trace_ring *r = ring_new(64);
	pgwt_tring_rec out[64];
	pgwt_tring_read_stats st = {0};
	uint64_t	next;
	size_t		n;

	/* no owner: nothing to read */
	append_pos(r, 0);
	n = pgwt_tring_read(r, 0, 0, out, 64, &next, &st);
	CHECK(n == 0);
	pgwt_tring_init(r, 64);
	pgwt_tring_claim(r, 4242, 1000, 10);
	for (uint64_t p = 0; p < 10; p++)
		append_pos(r, p);
	pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_STMT_END, 999, 0, 77);
	n = pgwt_tring_read(r, 4242, 0, out, 64, &next, &st);
	CHECK(n == 11 && next == 11);
	for (size_t i = 0; i < 10; i++)
		CHECK(out[i].pos == i && rec_matches(&out[i]));
	CHECK(out[10].kind == PGWT_TRING_MARKER && out[10].event == PGWT_TMARK_STMT_END &&
		  out[10].start_ns == 999 && out[10].query_id == 77);
	/* read in pieces, continuing from next */
	n = pgwt_tring_read(r, 4242, 3, out, 4, &next, &st);
	CHECK(n == 4 && out[0].pos == 3 && next == 7);
	/* wrong owner sees nothing */
	CHECK(pgwt_tring_read(r, 1, 0, out, 64, &next, &st) == 0);
	CHECK(st.torn == 0 && st.overwritten == 0);
	CHECK(strcmp(pgwt_tring_marker_name(PGWT_TMARK_XACT_ABORT), "abort") == 0);
	CHECK(pgwt_tring_marker_name(0) == NULL && pgwt_tring_marker_name(PGWT_TMARK_COUNT) == NULL);
	free(r);
}

static void
test_wraparound(void)
{
	pgwt_trace_ring *r = ring_new(16);
	pgwt_tring_rec out[64];
	pgwt_tring_read_stats st = {0};
	uint64_t	next;
	size_t		n;

	pgwt_tring_claim(r, 7, 1000, 10);
	for (uint64_t p = 0; p < 3 * 16 + 5; p++)
		append_pos(r, p);
	n = pgwt_tring_read(r, 7, 0, out, 64, &next, &st);
	/* the oldest 37 are gone; the newest 16 remain, in order */
	CHECK(n == 16 && next == 53);
	CHECK(st.overwritten == 37 && st.copied == 16 && st.torn == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(out[i].pos == 37 + i && rec_matches(&out[i]));
	free(r);
}

static void
test_owner_change(void)
{
	pgwt_trace_ring *r = ring_new(32);
	pgwt_tring_rec out[32];
	pgwt_tring_read_stats st = {0};
	pgwt_tring_owner who;
	uint64_t	next,
				base,
				head;
	uint32_t	pid;

	pgwt_tring_claim(r, 100, 5000, 10);
	for (uint64_t p = 0; p < 5; p++)
		append_pos(r, p);
	/* a release keeps the identity and records (a drain can finish them) */
	pgwt_tring_release(r);
	CHECK(pgwt_tring_owner_of(r, &who, &base, &head) && who.pid == 100 && who.exited &&
		  who.generation == 1 && base == 0 && head == 5);
	CHECK(pgwt_tring_snapshot(r, &pid, &base, &head) && pid == 100);
	CHECK(pgwt_tring_read(r, 100, 0, out, 32, &next, &st) == 5);
	pgwt_tring_claim(r, 200, 6000, 11);
	CHECK(pgwt_tring_owner_of(r, &who, &base, &head) && who.pid == 200 && !who.exited &&
		  who.generation == 2 && who.role == 11 && who.start_time == 6000 &&
		  base == 5 && head == 5);
	/* the predecessor's records are not the new owner's */
	CHECK(pgwt_tring_read(r, 200, 0, out, 32, &next, &st) == 0 && next == 5);
	CHECK(pgwt_tring_read(r, 100, 0, out, 32, &next, &st) == 0);
	append_pos(r, 5);
	CHECK(pgwt_tring_read(r, 200, 0, out, 32, &next, &st) == 1 && out[0].pos == 5);
	free(r);
}

/*
 * pid reuse: a process that exited without releasing its ring (an
 * auxiliary process, one that failed before its first commit) and a new
 * process that got the same pid and claimed the ring later. Only the
 * identity that claimed the records reads them: pid, start time and claim.
 */
static void
test_owner_identity(void)
{
	pgwt_trace_ring *r = ring_new(32);
	pgwt_tring_rec out[32];
	pgwt_tring_read_stats st = {0};
	pgwt_tring_owner a,
				b,
				who;
	uint64_t	next,
				base,
				head;

	pgwt_tring_claim(r, 4321, 1000, 0);
	CHECK(pgwt_tring_owner_of(r, &a, &base, &head) && a.role == 0 && a.generation == 1);
	/* the role becomes known after the claim: same owner, same records */
	append_pos(r, 0);
	pgwt_tring_set_role(r, 16384);
	CHECK(pgwt_tring_owner_of(r, &who, &base, &head) && who.role == 16384 &&
		  pgwt_tring_same_owner(&who, &a) && base == 0 && head == 1);
	append_pos(r, 1);
	CHECK(pgwt_tring_read_owner(r, &a, 0, out, 32, &next, &st) == 2 && rec_matches(&out[1]));

	/* the same pid, a later start: not a's records, and a's reads end */
	pgwt_tring_claim(r, 4321, 2000, 16385);
	CHECK(pgwt_tring_owner_of(r, &b, &base, &head) && b.pid == a.pid &&
		  !pgwt_tring_same_owner(&a, &b) && base == 2);
	CHECK(pgwt_tring_read_owner(r, &a, 0, out, 32, &next, &st) == 0);
	CHECK(pgwt_tring_read_owner(r, &b, 0, out, 32, &next, &st) == 0);
	append_pos(r, 2);
	CHECK(pgwt_tring_read_owner(r, &b, 0, out, 32, &next, &st) == 1 && out[0].pos == 2);
	CHECK(pgwt_tring_read_owner(r, &a, 0, out, 32, &next, &st) == 0);

	/* a re-claim with the same pid and start time is still another claim */
	who = b;
	pgwt_tring_claim(r, 4321, 2000, 16385);
	CHECK(pgwt_tring_read_owner(r, &who, 0, out, 32, &next, &st) == 0);

	/* a ring never claimed matches nobody, not even a zeroed identity */
	pgwt_tring_init(r, 32);
	memset(&who, 0, sizeof(who));
	CHECK(pgwt_tring_read_owner(r, &who, 0, out, 32, &next, &st) == 0);
	free(r);
}

static void
test_torn_and_stale(void)
{
	pgwt_trace_ring *r = ring_new(16);
	pgwt_tring_rec out[16];
	pgwt_tring_read_stats st = {0};
	uint64_t	next;
	size_t		n;

	pgwt_tring_claim(r, 9, 1000, 10);
	for (uint64_t p = 0; p < 8; p++)
		append_pos(r, p);
	/* a writer caught mid-entry: position 3's slot carries the WRITING mark */
	r->entries[3].seq = 4 | PGWT_TRING_WRITING;
	/* a stale entry: position 5's slot claims to hold position 21 */
	r->entries[5].seq = 22;
	n = pgwt_tring_read(r, 9, 0, out, 16, &next, &st);
	CHECK(n == 6 && next == 8 && st.torn == 2);
	for (size_t i = 0; i < n; i++)
		CHECK(out[i].pos != 3 && out[i].pos != 5 && rec_matches(&out[i]));
	free(r);
}

/* --- a writer racing readers ------------------------------------------ */

#define RACE_RECORDS	2000000
#define RACE_READERS	2

typedef struct race_arg
{
	pgwt_trace_ring *r;
	volatile int *done;
	uint64_t	copied,
				lost,
				bad,
				out_of_order,
				next;
} race_arg;

static void *
race_writer(void *a)
{
	race_arg   *ra = a;

	for (uint64_t p = 0; p < RACE_RECORDS; p++)
	{
		append_pos(ra->r, p);
		/* let the readers catch up now and then, so they overlap laps */
		if ((p & 1023) == 0)
			sched_yield();
	}
	__atomic_store_n(ra->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *
race_reader(void *a)
{
	race_arg   *ra = a;
	pgwt_tring_rec out[8];
	pgwt_tring_read_stats st = {0};
	uint64_t	from = 0,
				last = 0;
	bool		any = false;

	for (;;)
	{
		int			fin = __atomic_load_n(ra->done, __ATOMIC_ACQUIRE);
		uint64_t	next;
		size_t		n = pgwt_tring_read(ra->r, 55, from, out, 8, &next, &st);

		for (size_t i = 0; i < n; i++)
		{
			if (!rec_matches(&out[i]))
				ra->bad++;
			if (any && out[i].pos <= last)
				ra->out_of_order++;
			last = out[i].pos;
			any = true;
		}
		from = next;
		if (fin && n == 0 && from >= RACE_RECORDS)
			break;
	}
	ra->copied = st.copied;
	ra->lost = st.torn + st.overwritten;
	ra->next = from;
	return NULL;
}

static void
test_race(void)
{
	pgwt_trace_ring *r = ring_new(64);
	volatile int done = 0;
	pthread_t	w,
				rd[RACE_READERS];
	race_arg	wa = {.r = r, .done = &done};
	race_arg	ra[RACE_READERS];
	uint64_t	torn_total = 0;

	pgwt_tring_claim(r, 55, 1000, 10);
	for (int i = 0; i < RACE_READERS; i++)
	{
		memset(&ra[i], 0, sizeof(ra[i]));
		ra[i].r = r;
		ra[i].done = &done;
		pthread_create(&rd[i], NULL, race_reader, &ra[i]);
	}
	pthread_create(&w, NULL, race_writer, &wa);
	pthread_join(w, NULL);
	for (int i = 0; i < RACE_READERS; i++)
		pthread_join(rd[i], NULL);
	for (int i = 0; i < RACE_READERS; i++)
	{
		/* no torn or misplaced record was ever returned */
		CHECK(ra[i].bad == 0);
		CHECK(ra[i].out_of_order == 0);
		/* every position is either delivered or counted as lost */
		CHECK(ra[i].next == RACE_RECORDS);
		CHECK(ra[i].copied + ra[i].lost == RACE_RECORDS);
		CHECK(ra[i].copied >= 64);	/* at least the final ring's worth */
		torn_total += ra[i].lost;
	}
	printf("# race: %d records, readers copied %llu and %llu, lost %llu in total\n",
		   RACE_RECORDS, (unsigned long long) ra[0].copied,
		   (unsigned long long) ra[RACE_READERS - 1].copied,
		   (unsigned long long) torn_total);
	free(r);
}

/* --- conversion -------------------------------------------------------- */

static void
test_convert(void)
{
	pgwt_tring_rec in[6] = {
		{.pos = 0, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_START, .start_ns = 1000, .query_id = 5},
		{.pos = 1, .kind = PGWT_TRING_WAIT, .event = 0x09000002u, .start_ns = 1500, .duration_ns = 2000, .query_id = 5},
		{.pos = 2, .kind = PGWT_TRING_WAIT, .event = 0x03000004u, .start_ns = 4000, .duration_ns = 10, .query_id = 5},
		{.pos = 3, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_END, .start_ns = 5000, .query_id = 5},
		/* position 4 was lost: the next wait's CPU time is unknown */
		{.pos = 5, .kind = PGWT_TRING_WAIT, .event = 0x06000000u, .start_ns = 9000, .duration_ns = 100, .query_id = 0},
		{.pos = 6, .kind = PGWT_TRING_MARKER, .event = 200, .start_ns = 9500},
	};
	pgwt_record out[12];
	pgwt_trace_stream s;
	size_t		n;

	pgwt_trace_stream_init(&s, 321, 0);
	s.marker_grain_ns = 1;		/* exact instants (test_trace_thin tests the grain) */
	n = pgwt_trace_convert(&s, in, 6, out);
	/* marker; wait 1 (end only: no CPU before it is known... */
	CHECK(out[0].new_event == PGWT_MARKER_CMD_START && out[0].ts_ns == 1000 && out[0].pid == 321);
	/* ...the marker makes it known: 500 ns on CPU, then 2000 ns asleep */
	CHECK(out[1].old_event == 0 && out[1].new_event == 0x09000002u && out[1].ts_ns == 1500 &&
		  out[1].duration_ns == 500);
	CHECK(out[2].old_event == 0x09000002u && out[2].new_event == 0 && out[2].ts_ns == 3500 &&
		  out[2].duration_ns == 2000 && out[2].query_id == 5);
	CHECK(out[3].old_event == 0 && out[3].duration_ns == 500 && out[3].ts_ns == 4000);
	CHECK(out[4].old_event == 0x03000004u && out[4].duration_ns == 10 && out[4].ts_ns == 4010);
	CHECK(out[5].new_event == PGWT_MARKER_CMD_END && out[5].ts_ns == 5000);
	/* after the gap: only the end transition */
	CHECK(out[6].old_event == 0x06000000u && out[6].duration_ns == 100 && out[6].ts_ns == 9100);
	CHECK(n == 7 && s.dropped_markers == 1 && s.next_pos == 7);
	for (size_t i = 0; i < n; i++)
		CHECK(out[i].kind == PGWT_REC_TRANSITION && out[i].cpu_ns == PGWT_CPU_UNKNOWN);
}

/*
 * A process's exit ends its last CPU* span: statements after its last wait
 * (markers only) and the exit itself are CPU* up to the exit record; a
 * later process with the same pid starts with no span open.
 */
static void
test_convert_exit(void)
{
	pgwt_tring_rec in[6] = {
		{.pos = 0, .kind = PGWT_TRING_WAIT, .event = 0x0A000015u, .start_ns = 1000, .duration_ns = 100},
		{.pos = 1, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_START, .start_ns = 2000, .query_id = 5},
		{.pos = 2, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_XACT_COMMIT, .start_ns = 30000},
		{.pos = 3, .kind = PGWT_TRING_EXIT, .start_ns = 41100},
		{.pos = 4, .kind = PGWT_TRING_WAIT, .event = 0x0A000015u, .start_ns = 50000, .duration_ns = 10},
		{.pos = 5, .kind = PGWT_TRING_EXIT, .start_ns = 50010},
	};
	pgwt_record out[12];
	pgwt_trace_stream s;
	size_t		n;

	pgwt_trace_stream_init(&s, 9, 0);
	n = pgwt_trace_convert(&s, in, 6, out);
	CHECK(n == 6);
	/* the wait, two markers, then 40,000 ns of CPU* closed by the exit */
	CHECK(out[0].old_event == 0x0A000015u && out[0].ts_ns == 1100);
	CHECK(out[3].old_event == 0 && out[3].new_event == PGWT_EVENT_EXIT &&
		  out[3].ts_ns == 41100 && out[3].duration_ns == 40000 && !PGWT_IS_MARKER(out[3].new_event));
	/* the next process with this pid: no CPU* before its first wait */
	CHECK(out[4].old_event == 0x0A000015u && out[4].ts_ns == 50010);
	CHECK(out[5].new_event == PGWT_EVENT_EXIT && out[5].duration_ns == 0);
}

/*
 * A process traced from its start: the start record opens its first CPU*
 * span there, so the first wait's transition carries the CPU* since the
 * fork (authentication, first catalog loads), as the slot bills it.
 */
static void
test_convert_start(void)
{
	pgwt_tring_rec in[3] = {
		{.pos = 0, .kind = PGWT_TRING_START, .start_ns = 1000},
		{.pos = 1, .kind = PGWT_TRING_WAIT, .event = 0x0A000015u, .start_ns = 26000, .duration_ns = 100},
		{.pos = 2, .kind = PGWT_TRING_EXIT, .start_ns = 30100},
	};
	pgwt_record out[8];
	pgwt_trace_stream s;
	size_t		n;

	pgwt_trace_stream_init(&s, 9, 0);
	n = pgwt_trace_convert(&s, in, 3, out);
	CHECK(n == 3);
	CHECK(out[0].old_event == 0 && out[0].new_event == 0x0A000015u &&
		  out[0].ts_ns == 26000 && out[0].duration_ns == 25000);
	CHECK(out[1].old_event == 0x0A000015u && out[1].duration_ns == 100);
	CHECK(out[2].new_event == PGWT_EVENT_EXIT && out[2].duration_ns == 4000);
}

/* --- ring -> trace directory -> reader --------------------------------- */

static char t_dir[64];

static int
rt_write(pgwt_trace_ring *r, uint32_t pid, bool close_dir, uint64_t *nrec)
{
	pgwt_tf_dir_opts o;
	pgwt_tf_dir_writer *d;
	pgwt_tring_rec in[256];
	pgwt_record recs[512];
	pgwt_tring_read_stats st = {0};
	pgwt_trace_stream s;
	uint64_t	next;
	size_t		n;
	int			rc;

	memset(&o, 0, sizeof(o));
	o.file.write_meta = true;
	if ((rc = pgwt_tf_dir_open(t_dir, &o, &d)) < 0)
		return rc;
	pgwt_trace_stream_init(&s, pid, 0);
	*nrec = 0;
	while ((n = pgwt_tring_read(r, pid, s.next_pos, in, 256, &next, &st)) > 0)
	{
		size_t		m = pgwt_trace_convert(&s, in, n, recs);

		for (size_t i = 0; i < m; i++)
			if ((rc = pgwt_tf_dir_append(d, &recs[i])) < 0)
				return rc;
		*nrec += m;
	}
	if ((rc = pgwt_tf_dir_flush(d)) < 0)
		return rc;
	return close_dir ? pgwt_tf_dir_close(d) : 0;
}

static int
rt_read(uint64_t *n, uint64_t *sum_wait_ns, uint64_t *markers)
{
	pgwt_tf_reader *rd;
	pgwt_record rec;
	int			rc;

	*n = *sum_wait_ns = *markers = 0;
	if ((rc = pgwt_tf_reader_open(t_dir, NULL, &rd)) < 0)
		return rc;
	while ((rc = pgwt_tf_reader_next(rd, &rec)) == 1)
	{
		(*n)++;
		if (PGWT_IS_MARKER(rec.new_event))
			(*markers)++;
		else if (rec.old_event == 0x09000002u)
			*sum_wait_ns += rec.duration_ns;
	}
	pgwt_tf_reader_close(rd);
	return rc;
}

static void
fill_session(pgwt_trace_ring *r, uint64_t t0, int waits)
{
	for (int i = 0; i < waits; i++)
	{
		uint64_t	t = t0 + (uint64_t) i * 1000000;

		pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_STMT_START, t, 0, 42);
		pgwt_tring_append(r, PGWT_TRING_WAIT, 0x09000002u, t + 100, 1000 + i, 42);
		pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_STMT_END, t + 5000, 0, 42);
	}
}

static void
test_roundtrip_files(void)
{
	pgwt_trace_ring *r = ring_new(1024);
	uint64_t	written,
				n,
				sum,
				markers,
				expect_sum = 0;
	struct timespec ts;
	pid_t		child;
	int			status;

	snprintf(t_dir, sizeof(t_dir), "/tmp/pgwt-tring-XXXXXX");
	CHECK(mkdtemp(t_dir) != NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pgwt_tring_claim(r, 777, 1000, 10);
	fill_session(r, (uint64_t) ts.tv_sec * 1000000000ull, 300);
	for (int i = 0; i < 300; i++)
		expect_sum += 1000 + i;
	CHECK(rt_write(r, 777, true, &written) == 0);
	/* 300 x (2 markers, a start and an end transition) */
	CHECK(written == 300 * 4);
	CHECK(rt_read(&n, &sum, &markers) == 0);
	CHECK(n == written && sum == expect_sum && markers == 600);

	/* a drain that dies after a flush: the next open recovers its file */
	child = fork();
	if (child == 0)
	{
		uint64_t	w;

		_exit(rt_write(r, 777, false, &w) == 0 ? 0 : 1);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	{
		pgwt_tf_dir_opts o;
		pgwt_tf_dir_writer *d;

		memset(&o, 0, sizeof(o));
		CHECK(pgwt_tf_dir_open(t_dir, &o, &d) == 0);
		CHECK(pgwt_tf_dir_writer_stats(d)->recovered == 1);
		CHECK(pgwt_tf_dir_close(d) == 0);
	}
	CHECK(rt_read(&n, &sum, &markers) == 0);
	CHECK(n == 2 * written && sum == 2 * expect_sum && markers == 1200);
	{
		char		cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", t_dir);
		CHECK(system(cmd) == 0);
	}
	free(r);
}

/* --- every ring marker has a record id, and it survives a file ------------ */

static void
test_all_markers_to_files(void)
{
	static const uint32_t want[PGWT_TMARK_COUNT] = {
		[PGWT_TMARK_STMT_START] = PGWT_MARKER_CMD_START,
		[PGWT_TMARK_STMT_END] = PGWT_MARKER_CMD_END,
		[PGWT_TMARK_EXEC_START] = PGWT_MARKER_EXEC_START,
		[PGWT_TMARK_EXEC_END] = PGWT_MARKER_EXEC_END,
		[PGWT_TMARK_UTILITY_START] = 0xFFFFFFF8u,
		[PGWT_TMARK_UTILITY_END] = 0xFFFFFFF9u,
		[PGWT_TMARK_XACT_COMMIT] = 0xFFFFFFFAu,
		[PGWT_TMARK_XACT_ABORT] = 0xFFFFFFFBu,
		[PGWT_TMARK_IDLE] = 0xFFFFFFFCu,
	};
	pgwt_tring_rec in[2 * PGWT_TMARK_COUNT];
	pgwt_record out[4 * PGWT_TMARK_COUNT];
	pgwt_trace_stream s;
	pgwt_tf_dir_opts o;
	pgwt_tf_dir_writer *d;
	pgwt_tf_reader *rd;
	pgwt_record rec;
	size_t		n,
				k = 0,
				got = 0;
	uint64_t	wait_ns = 0;
	char		dir[64],
				cmd[96];

	/* one wait after each marker, so the v5 predictor is exercised */
	for (uint32_t m = 1; m < PGWT_TMARK_COUNT; m++)
	{
		CHECK(pgwt_trace_marker_event(m) == want[m] && PGWT_IS_MARKER(want[m]));
		CHECK(pgwt_tring_marker_name(m) != NULL);
		in[k++] = (pgwt_tring_rec) {.pos = k, .kind = PGWT_TRING_MARKER, .event = m,
		.start_ns = 1000000 * m, .query_id = 7};
		in[k++] = (pgwt_tring_rec) {.pos = k, .kind = PGWT_TRING_WAIT, .event = 0x09000002u,
		.start_ns = 1000000 * m + 100, .duration_ns = 1000 + m, .query_id = 7};
	}
	/* every marker as the ring has it (test_trace_thin.c tests thinning) */
	pgwt_trace_stream_init(&s, 77, 0);
	s.full = true;
	n = pgwt_trace_convert(&s, in, k, out);
	CHECK(s.dropped_markers == 0 && n == 3 * (PGWT_TMARK_COUNT - 1));

	snprintf(dir, sizeof(dir), "/tmp/pgwt-tmark-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	memset(&o, 0, sizeof(o));
	CHECK(pgwt_tf_dir_open(dir, &o, &d) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(pgwt_tf_dir_append(d, &out[i]) == 0);
	CHECK(pgwt_tf_dir_close(d) == 0);
	CHECK(pgwt_tf_reader_open(dir, NULL, &rd) == 0);
	while (pgwt_tf_reader_next(rd, &rec) == 1)
	{
		if (PGWT_IS_MARKER(rec.new_event))
		{
			uint32_t	m = (uint32_t) (rec.ts_ns / 1000000);

			if (m < 1 || m >= PGWT_TMARK_COUNT || rec.new_event != want[m] ||
				rec.pid != 77 || rec.old_event != 0 || rec.duration_ns != 0 ||
				rec.query_id != 7)
				break;
			got++;
		}
		else if (rec.old_event == 0x09000002u)
			wait_ns += rec.duration_ns - 1000;
	}
	pgwt_tf_reader_close(rd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	/* every marker back, and the waits after them decoded exactly */
	CHECK(got == PGWT_TMARK_COUNT - 1);
	CHECK(wait_ns == (uint64_t) (PGWT_TMARK_COUNT - 1) * PGWT_TMARK_COUNT / 2);
}

/* --- escalation markers from the policy's state --------------------------- */

#define ESC_S 1000000000ull

static bool
esc_is(const pgwt_record *r, bool start, uint64_t ts, uint32_t code, uint64_t len)
{
	return r->kind == PGWT_REC_TRANSITION && r->pid == 0 &&
		r->new_event == (start ? PGWT_MARKER_ESC_START : PGWT_MARKER_ESC_END) &&
		r->ts_ns == ts && r->old_event == code && r->duration_ns == len;
}

static void
test_esc_markers(void)
{
	pgwt_escalation e;
	pgwt_esc_tracker t;
	pgwt_record out[PGWT_ESC_MARKERS_MAX];
	int64_t		granted;
	size_t		n;

	pgwt_esc_init(&e, PGWT_BUDGET_UNLIMITED);
	/* history before the writer started is not announced */
	pgwt_esc_request(&e, 1 * ESC_S, 2, PGWT_ESC_MANUAL, &granted);
	pgwt_esc_tick(&e, 5 * ESC_S);
	pgwt_esc_tracker_init(&t, &e);
	CHECK(pgwt_trace_esc_markers(&t, &e, 6 * ESC_S, out) == 0);

	/* a manual 3 s window: start with the granted length, end when it expires */
	CHECK(pgwt_esc_request(&e, 10 * ESC_S, 3, PGWT_ESC_MANUAL, &granted) == PGWT_ESC_GRANTED);
	n = pgwt_trace_esc_markers(&t, &e, 10 * ESC_S + 1, out);
	CHECK(n == 1 && esc_is(&out[0], true, 10 * ESC_S, PGWT_ESC_CODE_MANUAL, 3 * ESC_S));
	CHECK(pgwt_trace_esc_markers(&t, &e, 11 * ESC_S, out) == 0);
	/* an extension is not announced again */
	pgwt_esc_request(&e, 12 * ESC_S, 5, PGWT_ESC_MANUAL, &granted);
	CHECK(pgwt_trace_esc_markers(&t, &e, 12 * ESC_S, out) == 0);
	CHECK(pgwt_esc_tick(&e, 18 * ESC_S) == PGWT_ESC_CLOSED_EXPIRED);
	n = pgwt_trace_esc_markers(&t, &e, 18 * ESC_S, out);
	CHECK(n == 1 && esc_is(&out[0], false, 17 * ESC_S, PGWT_ESC_CODE_MANUAL, 7 * ESC_S));
	CHECK(pgwt_trace_esc_markers(&t, &e, 19 * ESC_S, out) == 0);

	/* an automatic window closed early by request */
	pgwt_esc_request(&e, 20 * ESC_S, 30, PGWT_ESC_ANOMALY_LOCK, &granted);
	n = pgwt_trace_esc_markers(&t, &e, 20 * ESC_S, out);
	CHECK(n == 1 && esc_is(&out[0], true, 20 * ESC_S, PGWT_ESC_CODE_ANOMALY_LOCK, 30 * ESC_S));
	pgwt_esc_deescalate(&e, 22 * ESC_S + 5);
	/* ...and, before the writer looks, a whole window and a new open one */
	pgwt_esc_request(&e, 23 * ESC_S, 1, PGWT_ESC_ANOMALY_CPU, &granted);
	pgwt_esc_tick(&e, 24 * ESC_S);
	pgwt_esc_request(&e, 25 * ESC_S, 4, PGWT_ESC_ANOMALY_AAS, &granted);
	n = pgwt_trace_esc_markers(&t, &e, 26 * ESC_S, out);
	CHECK(n == 4);
	CHECK(esc_is(&out[0], false, 22 * ESC_S + 5, PGWT_ESC_CODE_ANOMALY_LOCK, 2 * ESC_S + 5));
	CHECK(esc_is(&out[1], true, 23 * ESC_S, PGWT_ESC_CODE_UNSPECIFIED, 1 * ESC_S));
	CHECK(esc_is(&out[2], false, 24 * ESC_S, PGWT_ESC_CODE_UNSPECIFIED, 1 * ESC_S));
	CHECK(esc_is(&out[3], true, 25 * ESC_S, PGWT_ESC_CODE_ANOMALY, 4 * ESC_S));
	for (size_t i = 1; i < n; i++)
		CHECK(out[i].ts_ns >= out[i - 1].ts_ns);

	/* a writer restarted mid-window announces the open window again */
	pgwt_esc_tracker_init(&t, &e);
	n = pgwt_trace_esc_markers(&t, &e, 26 * ESC_S, out);
	CHECK(n == 1 && esc_is(&out[0], true, 25 * ESC_S, PGWT_ESC_CODE_ANOMALY, 4 * ESC_S));
	CHECK(pgwt_esc_reason_code(PGWT_ESC_MANUAL) == 1 && pgwt_esc_reason_code(PGWT_ESC_ANOMALY_AAS) == 2 &&
		  pgwt_esc_reason_code(PGWT_ESC_ANOMALY_LOCK) == 4 && pgwt_esc_reason_code(PGWT_ESC_ANOMALY_CPU) == 5);
}

/*
 * The writer is woken when half the ring waits, asked whenever appends
 * cross a quarter of it, also when the crossing append was the first of
 * two (an idle marker before its ClientRead wait).
 */
static void
test_half_waiting(void)
{
	pgwt_trace_ring *r = ring_new(64);	/* quarters of 16 */
	uint64_t	p;

	for (p = 0; p < 31; p++)
		append_pos(r, p);
	CHECK(!pgwt_tring_half_waiting(r, 1));	/* 31 written: not a quarter */
	append_pos(r, p++);
	CHECK(pgwt_tring_half_waiting(r, 1));	/* 32 of 64 wait */
	pgwt_tring_set_drained(r, 32);
	for (; p < 48; p++)
		append_pos(r, p);
	CHECK(!pgwt_tring_half_waiting(r, 1));	/* a quarter, 16 waiting */
	for (; p < 63; p++)
		append_pos(r, p);
	append_pos(r, p++);
	append_pos(r, p++);			/* 64 crossed by the first of these two */
	CHECK(!pgwt_tring_half_waiting(r, 1));
	CHECK(pgwt_tring_half_waiting(r, 2));	/* 33 waiting since 32 */
	free(r);
}

/* Take until empty, give back, recycle: the pool's states in order. */
static void
test_pool_states(void)
{
	uint64_t	w[2] = {0, 0};
	int			a,
				b;

	a = pgwt_tpool_take(w, 2, 1, 100, 7);
	b = pgwt_tpool_take(w, 2, 1, 101, 8);
	CHECK(a == 1 && b == 0);	/* from the start hint on, wrapping */
	CHECK(pgwt_tpool_take(w, 2, 0, 102, 9) == -1);	/* empty */
	CHECK(pgwt_tpool_state(w[a]) == PGWT_TPOOL_HELD && pgwt_tpool_pid(w[a]) == 100 &&
		  pgwt_tpool_procno(w[a]) == 7);
	CHECK(pgwt_tpool_in_use(w, 2) == 2);
	CHECK(pgwt_tpool_find(w, 2, 101) == b && pgwt_tpool_find(w, 2, 555) == -1);
	CHECK(!pgwt_tpool_give_back(w, a, 101, 8));	/* not its ring */
	CHECK(pgwt_tpool_give_back(w, a, 100, 7));
	CHECK(pgwt_tpool_state(w[a]) == PGWT_TPOOL_RELEASED);
	/* given back, not yet read: still no room */
	CHECK(pgwt_tpool_take(w, 2, 0, 102, 9) == -1);
	/* the reader frees it only from the word it saw */
	CHECK(!pgwt_tpool_recycle(w, a, pgwt_tpool_word(100, 7, PGWT_TPOOL_HELD)));
	CHECK(pgwt_tpool_recycle(w, a, pgwt_tpool_word(100, 7, PGWT_TPOOL_RELEASED)));
	CHECK(pgwt_tpool_take(w, 2, 0, 102, 9) == a);
	CHECK(pgwt_tpool_in_use(w, 2) == 2);
}

/*
 * When a give-back wakes the writer: only once half the pool or less is
 * free, counted by hand for pools of 1, 2, 8 and 64 rings (a held and a
 * given-back ring both take room until the writer frees it).
 */
static void
test_pool_short(void)
{
	uint64_t	w[64];
	int			sizes[] = {1, 2, 8, 64};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
	{
		int			n = sizes[k];

		memset(w, 0, sizeof(w));
		CHECK(!pgwt_tpool_short(w, n));	/* all free */
		for (int used = 1; used <= n; used++)
		{
			/* odd rings held, even ones given back */
			w[used - 1] = pgwt_tpool_word((uint32_t) (100 + used), (uint32_t) used,
										  used % 2 ? PGWT_TPOOL_HELD : PGWT_TPOOL_RELEASED);
			CHECK(pgwt_tpool_short(w, n) == (n - used <= n / 2));
		}
	}
	/* 8 rings: 3 in use leave 5 free (no wake), 4 leave 4 (wake) */
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 3; i++)
		w[i] = pgwt_tpool_word(10, 1, PGWT_TPOOL_RELEASED);
	CHECK(!pgwt_tpool_short(w, 8));
	w[3] = pgwt_tpool_word(11, 2, PGWT_TPOOL_HELD);
	CHECK(pgwt_tpool_short(w, 8));
}

/*
 * A ring handed on: the new holder's claim starts its stream at the head,
 * so neither a reader of its identity nor one holding the old identity
 * sees the other's records.
 */
static void
test_pool_handover(void)
{
	uint64_t	w[1] = {0};
	pgwt_trace_ring *r = ring_new(64);
	pgwt_tring_rec out[64];
	pgwt_tring_owner old,
				cur;
	pgwt_tring_read_stats st = {0};
	uint64_t	base,
				head,
				next;

	CHECK(pgwt_tpool_take(w, 1, 0, 10, 1) == 0);
	pgwt_tring_claim(r, 10, 1000, 5);
	for (uint64_t p = 0; p < 5; p++)
		append_pos(r, p);
	CHECK(pgwt_tring_owner_of(r, &old, &base, &head));
	pgwt_tring_release(r);
	CHECK(pgwt_tpool_give_back(w, 0, 10, 1));
	CHECK(pgwt_tpool_recycle(w, 0, w[0]));
	CHECK(pgwt_tpool_take(w, 1, 0, 11, 2) == 0);
	pgwt_tring_claim(r, 11, 2000, 6);
	CHECK(pgwt_tring_owner_of(r, &cur, &base, &head));
	CHECK(cur.generation == old.generation + 1 && base == 5 && head == 5);
	CHECK(pgwt_tring_read_owner(r, &cur, 0, out, 64, &next, &st) == 0);
	CHECK(pgwt_tring_read_owner(r, &old, 0, out, 64, &next, &st) == 0);
	pgwt_tring_append(r, PGWT_TRING_WAIT, 0x09000001u, 1, 2, 3);
	CHECK(pgwt_tring_read_owner(r, &cur, 0, out, 64, &next, &st) == 1 && out[0].pos == 5);
	CHECK(pgwt_tring_read(r, 10, 0, out, 64, &next, &st) == 0);
	free(r);
}

#define POOL_THREADS 4
#define POOL_RINGS 2
#define POOL_ROUNDS 20000

static uint64_t pool_words[POOL_RINGS];
static int	pool_holder[POOL_RINGS];
static int	pool_overlaps;

static void *
pool_racer(void *arg)
{
	int			me = (int) (intptr_t) arg;

	for (int k = 0; k < POOL_ROUNDS; k++)
	{
		int			i = pgwt_tpool_take(pool_words, POOL_RINGS, me, (uint32_t) (100 + me),
										(uint32_t) me);

		if (i < 0)
		{
			sched_yield();
			continue;
		}
		if (__atomic_exchange_n(&pool_holder[i], me + 1, __ATOMIC_ACQ_REL) != 0)
			__atomic_fetch_add(&pool_overlaps, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pool_holder[i], 0, __ATOMIC_RELEASE);
		if (!pgwt_tpool_give_back(pool_words, i, (uint32_t) (100 + me), (uint32_t) me))
			__atomic_fetch_add(&pool_overlaps, 1, __ATOMIC_RELAXED);
		/* the "writer": free what was given back */
		(void) pgwt_tpool_recycle(pool_words, i, pgwt_tpool_word((uint32_t) (100 + me),
																 (uint32_t) me,
																 PGWT_TPOOL_RELEASED));
	}
	return NULL;
}

/* Threads racing for a pool smaller than their number: never two holders. */
static void
test_pool_race(void)
{
	pthread_t	t[POOL_THREADS];

	for (int i = 0; i < POOL_THREADS; i++)
		pthread_create(&t[i], NULL, pool_racer, (void *) (intptr_t) i);
	for (int i = 0; i < POOL_THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(pool_overlaps == 0);
	CHECK(pgwt_tpool_in_use(pool_words, POOL_RINGS) == 0);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	run("tring-capacity", test_capacity);
	run("tring-basic-order", test_basic_order);
	run("tring-wraparound", test_wraparound);
	run("tring-half-waiting", test_half_waiting);
	run("tring-owner-change", test_owner_change);
	run("tring-owner-identity-pid-reuse", test_owner_identity);
	run("tring-torn-and-stale", test_torn_and_stale);
	run("tring-race-writer-readers", test_race);
	run("trace-convert", test_convert);
	run("trace-convert-exit-ends-cpu", test_convert_exit);
	run("trace-convert-start-opens-cpu", test_convert_start);
	run("trace-ring-to-files-and-recovery", test_roundtrip_files);
	run("trace-all-markers-to-files", test_all_markers_to_files);
	run("trace-escalation-markers", test_esc_markers);
	run("tpool-states", test_pool_states);
	run("tpool-short-wakes-writer", test_pool_short);
	run("tpool-handover-shows-no-predecessor", test_pool_handover);
	run("tpool-race", test_pool_race);
	return t_failures ? 1 : 0;
}
