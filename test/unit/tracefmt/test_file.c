/*
 * test_file.c
 *		Unit tests of one trace file through the public API: writer ->
 *		reader round trips, block splitting, time-range queries against a
 *		brute-force filter, the live-file protocol, damaged blocks and
 *		footers, and recovery of a live file cut at every byte offset of
 *		its last block.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"

#define MAXREC 40000
static pgwt_record recs[MAXREC];
static pgwt_record got[MAXREC];

static uint64_t fake_rt = 1700000000000000000ull;
static uint64_t fake_mono = 5000000000ull;
static uint64_t
clk_rt(void *a)
{
	return fake_rt;
}
static uint64_t
clk_mono(void *a)
{
	return fake_mono;
}

static pgwt_tf_file_opts
file_opts(uint16_t version)
{
	pgwt_tf_file_opts o;

	memset(&o, 0, sizeof(o));
	o.version = version;
	o.pg_version = 150004;
	o.group_gid = -1;
	o.clock.realtime_ns = clk_rt;
	o.clock.monotonic_ns = clk_mono;
	return o;
}

/* A mixed stream: transitions from 20 backends and samples every 10 ms. */
static size_t
make_stream(size_t n, uint64_t seed)
{
	uint64_t	ts = fake_mono;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		ts += tft_rand(&seed) % 20000;
		if (i % 7 == 0)
			recs[i] = tft_sample(ts, 100 + (uint32_t) (i % 20), (uint32_t) (tft_rand(&seed) % 3) << 24,
								 i % 5, 10000000 + tft_rand(&seed) % 1000);
		else
			recs[i] = tft_transition(ts, 100 + (uint32_t) (i % 20), (uint32_t) (i % 4),
									 (uint32_t) ((i + 1) % 4), tft_rand(&seed) % 100000,
									 i % 5, tft_rand(&seed) % 3 ? 12345 : PGWT_CPU_UNKNOWN);
	}
	return n;
}

static int
write_file(const char *path, uint16_t version, size_t n, bool finish)
{
	pgwt_tf_file_opts o = file_opts(version);
	pgwt_tf_file_writer *w;
	size_t		i;
	int			rc;

	o.write_meta = !finish;
	if ((rc = pgwt_tf_file_writer_create(path, &o, &w)) < 0)
		return rc;
	if ((rc = pgwt_tf_file_writer_set_sample_period(w, 10000000)) < 0)
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = pgwt_tf_file_writer_append(w, &recs[i])) < 0)
			return rc;
	if (finish)
		return pgwt_tf_file_writer_finish(w);
	rc = pgwt_tf_file_writer_flush(w);
	pgwt_tf_file_writer_abandon(w);
	return rc;
}

/* read_all and same_records: transitions only (skip_samples) */
static bool only_transitions;

/* Reads everything (or a range) into got[]; returns the count or < 0. */
static long
read_all(const char *path, uint64_t t0, uint64_t t1, pgwt_tf_read_stats *st)
{
	pgwt_tf_read_opts ro = {t0, t1, false, false, false, only_transitions, false};
	pgwt_tf_reader *r;
	pgwt_record rec;
	long		n = 0;
	int			rc;

	if ((rc = pgwt_tf_reader_open(path, &ro, &r)) < 0)
		return rc;
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1 && n < MAXREC)
		got[n++] = rec;
	if (st)
		*st = *pgwt_tf_reader_stats(r);
	pgwt_tf_reader_close(r);
	return rc < 0 ? rc : n;
}

static int
cmp_rec(const void *a, const void *b)
{
	const pgwt_record *x = a,
			   *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->new_event < y->new_event ? -1 : x->new_event > y->new_event;
}

/* got[0..n) equals the records of recs[0..m) in [t0, t1], as multisets. */
static bool
same_records(long n, size_t m, uint64_t t0, uint64_t t1, uint16_t version)
{
	static pgwt_record want[MAXREC];
	size_t		k = 0,
				i;

	for (i = 0; i < m; i++)
		if (recs[i].ts_ns >= t0 && recs[i].ts_ns <= t1 &&
			!(only_transitions && recs[i].kind != PGWT_REC_TRANSITION))
		{
			want[k] = recs[i];
			if (version < 3 && want[k].kind == PGWT_REC_TRANSITION)
				want[k].cpu_ns = PGWT_CPU_UNKNOWN;
			if (version < 4 && want[k].kind == PGWT_REC_SAMPLE)
				want[k].weight_ns = 10000000;
			k++;
		}
	if ((long) k != n)
	{
		printf("# expected %zu records, got %ld\n", k, n);
		return false;
	}
	qsort(want, k, sizeof(pgwt_record), cmp_rec);
	qsort(got, k, sizeof(pgwt_record), cmp_rec);
	for (i = 0; i < k; i++)
		if (!tft_rec_eq(&want[i], &got[i]))
		{
			printf("# record %zu differs\n", i);
			return false;
		}
	return true;
}

static void
test_roundtrip_versions(void)
{
	char		dir[256],
				path[300];
	size_t		n = make_stream(20000, 7);
	uint16_t	v;

	tft_mkdtemp(dir, sizeof(dir));
	for (v = 2; v <= PGWT_TF_VERSION_MAX; v++)
	{
		pgwt_tf_read_stats st;
		long		got_n;

		snprintf(path, sizeof(path), "%s/v%u.trace.lz4", dir, v);
		CHECK_RC(write_file(path, v, n, true));
		got_n = read_all(path, 0, UINT64_MAX, &st);
		CHECKF(got_n >= 0, "read: %s", pgwt_tf_strerror((int) got_n));
		CHECK(same_records(got_n, n, 0, UINT64_MAX, v));
		CHECK(st.blocks_bad == 0 && st.footers_bad == 0 && st.files == 1);
	}
	tft_rmdir(dir);
}

static void
test_file_mode_and_header(void)
{
	char		dir[256],
				path[300];
	struct stat st;
	pgwt_tf_reader *r;
	const pgwt_tf_file_header *h;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/x.trace.lz4", dir);
	make_stream(10, 1);
	CHECK_RC(write_file(path, 0, 10, true));
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK_RC(pgwt_tf_reader_open(path, NULL, &r));
	h = pgwt_tf_reader_file_header(r, 0);
	CHECK(h->version == PGWT_TF_VERSION && h->pg_version == 150004 &&
		  h->start_realtime_ns == fake_rt && h->start_monotonic_ns == fake_mono);
	pgwt_tf_reader_close(r);
	/* an existing file is never overwritten */
	CHECK(write_file(path, 0, 10, true) == -PGWT_TF_EXISTS);
	tft_rmdir(dir);
}

static void
test_block_splitting_and_sorting(void)
{
	char		dir[256],
				path[300];
	pgwt_tf_file_opts o = file_opts(0);
	pgwt_tf_file_writer *w;
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	uint64_t	blocks = 0,
				total = 0;
	size_t		i;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.trace.lz4", dir);
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	/* 10000 transitions in reverse order within 1 ms: sorted per block */
	for (i = 0; i < 10000; i++)
	{
		pgwt_record x = tft_transition(fake_mono + 1000000 - i * 100, 1, 0, 1, 5, 0, 0);

		CHECK_RC(pgwt_tf_file_writer_append(w, &x));
	}
	/* two transitions 11 s apart cannot share a block (span bound) */
	{
		pgwt_record a = tft_transition(fake_mono + 20000000000ull, 2, 0, 1, 5, 0, 0);
		pgwt_record b = tft_transition(fake_mono + 31000000000ull, 2, 1, 0, 5, 0, 0);

		CHECK_RC(pgwt_tf_file_writer_flush(w));
		CHECK_RC(pgwt_tf_file_writer_append(w, &a));
		CHECK_RC(pgwt_tf_file_writer_append(w, &b));
	}
	{
		pgwt_record bad = tft_sample(1, 1, PGWT_MARKER_EXEC_START, 0, 1);

		CHECK(pgwt_tf_file_writer_append(w, &bad) == -PGWT_TF_INVAL);
		bad.kind = 7;
		CHECK(pgwt_tf_file_writer_append(w, &bad) == -PGWT_TF_INVAL);
		CHECK(pgwt_tf_file_writer_stats(w)->rejected == 2);
	}
	CHECK_RC(pgwt_tf_file_writer_finish(w));
	CHECK_RC(pgwt_tf_reader_open(path, NULL, &r));
	while (pgwt_tf_reader_next_block(r, &blk) == 1)
	{
		blocks++;
		total += blk.n;
		CHECK(blk.n <= PGWT_TF_BLOCK_MAX_RECORDS);
		for (i = 1; i < blk.n; i++)
			CHECK(blk.recs[i - 1].ts_ns <= blk.recs[i].ts_ns);
		CHECK(blk.recs[blk.n - 1].ts_ns - blk.recs[0].ts_ns <= PGWT_TF_MAX_BLOCK_SPAN_NS);
	}
	pgwt_tf_reader_close(r);
	CHECKF(blocks == 5 && total == 10002, "blocks %llu total %llu",
		   (unsigned long long) blocks, (unsigned long long) total);
	tft_rmdir(dir);
}

static void
test_range_queries(void)
{
	char		dir[256],
				path[300];
	size_t		n = make_stream(30000, 99);
	uint64_t	t_min = recs[0].ts_ns,
				t_max = recs[n - 1].ts_ns;
	uint64_t	seed = 3;
	int			q;
	uint16_t	v;

	tft_mkdtemp(dir, sizeof(dir));
	for (v = 3; v <= PGWT_TF_VERSION_MAX; v++)
	{
		snprintf(path, sizeof(path), "%s/r%u.trace.lz4", dir, v);
		CHECK_RC(write_file(path, v, n, true));
		for (q = 0; q < 40; q++)
		{
			uint64_t	a = t_min + tft_rand(&seed) % (t_max - t_min + 1);
			uint64_t	b = a + tft_rand(&seed) % ((t_max - t_min) / (q % 4 + 1) + 1);
			pgwt_tf_read_stats st;
			long		got_n;

			if (q == 0)
				a = b = recs[n / 2].ts_ns;	/* a single instant */
			got_n = read_all(path, a, b, &st);
			CHECKF(got_n >= 0, "read: %s", pgwt_tf_strerror((int) got_n));
			CHECKF(same_records(got_n, n, a, b, v), "v%u range %llu..%llu", v,
				   (unsigned long long) a, (unsigned long long) b);
			/* narrow ranges do not decode the whole file (v2/v3 blocks
			 * bound nothing when the seed tool wrote them: all read) */
			if (q == 0 && v >= 4)
				CHECK(st.blocks_skipped_range > 0 && st.blocks < 4);
		}
	}
	tft_rmdir(dir);
}

static void
test_live_read_while_writing(void)
{
	char		dir[256],
				path[300];
	pgwt_tf_file_opts o = file_opts(0);
	pgwt_tf_file_writer *w;
	pgwt_tf_reader *r;
	pgwt_record rec;
	size_t		n = make_stream(20000, 5);
	size_t		i;
	long		seen = 0;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_CURRENT_NAME);
	o.write_meta = true;
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	CHECK_RC(pgwt_tf_file_writer_set_sample_period(w, 10000000));
	CHECK_RC(pgwt_tf_reader_open(path, NULL, &r));
	for (i = 0; i < n; i++)
	{
		CHECK_RC(pgwt_tf_file_writer_append(w, &recs[i]));
		if (i % 3000 == 2999)
		{
			int			rc;
			uint64_t	committed = pgwt_tf_file_writer_stats(w)->blocks;

			CHECK(pgwt_tf_reader_poll(r) >= 0);
			while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
				got[seen++] = rec;
			CHECK(rc == 0);
			/* exactly the committed blocks, never a partial one */
			CHECKF(pgwt_tf_reader_stats(r)->blocks == committed, "blocks %llu committed %llu",
				   (unsigned long long) pgwt_tf_reader_stats(r)->blocks,
				   (unsigned long long) committed);
		}
	}
	/* an uncommitted tail (block written, .meta not yet renamed) is not read */
	CHECK_RC(pgwt_tf_file_writer_flush(w));
	{
		char		meta[320];
		int			fd;

		snprintf(meta, sizeof(meta), "%s.meta", path);
		fd = open(meta, O_WRONLY | O_TRUNC);
		CHECK(fd >= 0 && write(fd, "1\n", 2) == 2);
		close(fd);
		CHECK(pgwt_tf_reader_poll(r) == 0);
		CHECK(pgwt_tf_reader_next(r, &rec) == 0);
		CHECK_RC(pgwt_tf_file_writer_flush(w));
	}
	pgwt_tf_file_writer_abandon(w);
	{
		/* rewrite the true count, as the writer would on its next block */
		char		meta[320];
		int			fd;
		char		txt[32];
		struct stat st;
		pgwt_tf_read_stats rs;
		long		all;
		int			len;

		(void) st;
		all = read_all(path, 0, UINT64_MAX, &rs);	/* a new reader: meta says 1 */
		CHECK(all >= 0 && rs.blocks == 1);
		snprintf(meta, sizeof(meta), "%s.meta", path);
		fd = open(meta, O_WRONLY | O_TRUNC);
		len = snprintf(txt, sizeof(txt), "%llu\n", 1000ull);	/* more than exist */
		CHECK(fd >= 0 && write(fd, txt, (size_t) len) == len);
		close(fd);
		CHECK(pgwt_tf_reader_poll(r) > 0);
		while (pgwt_tf_reader_next(r, &rec) == 1)
			got[seen++] = rec;
	}
	pgwt_tf_reader_close(r);
	CHECK(same_records(seen, n, 0, UINT64_MAX, PGWT_TF_VERSION));
	tft_rmdir(dir);
}

/* Flips a byte inside the payload of block k of an archive. */
static void
damage_block(const char *path, uint32_t k, uint64_t *offset_out)
{
	int			fd = open(path, O_RDWR);
	uint8_t		b[40];
	uint64_t	off = 28;
	uint32_t	i;

	for (i = 0; i <= k; i++)
	{
		if (pread(fd, b, 40, (off_t) off) != 40)
			break;
		if (i == k)
		{
			uint8_t		x;
			uint32_t	comp = b[20] | b[21] << 8 | b[22] << 16 | (uint32_t) b[23] << 24;
			off_t		at = (off_t) (off + 40 + comp / 2);

			if (pread(fd, &x, 1, at) == 1)
			{
				x ^= 0x5a;
				if (pwrite(fd, &x, 1, at) != 1)
					break;
			}
			*offset_out = off;
			break;
		}
		off += 40 + (b[20] | b[21] << 8 | b[22] << 16 | (uint64_t) b[23] << 24);
	}
	close(fd);
}

static void
test_damaged_block_skipped_and_counted(void)
{
	char		dir[256],
				path[300];
	size_t		n = make_stream(30000, 11);
	pgwt_tf_read_stats st;
	uint64_t	off = 0;
	long		got_n;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/d.trace.lz4", dir);
	CHECK_RC(write_file(path, 0, n, true));
	damage_block(path, 2, &off);
	got_n = read_all(path, 0, UINT64_MAX, &st);
	CHECK(got_n > 0);
	CHECKF(st.blocks_bad == 1, "blocks_bad %llu", (unsigned long long) st.blocks_bad);
	CHECK(got_n < (long) n && got_n >= (long) n - PGWT_TF_BLOCK_MAX_RECORDS);
	/* every delivered value is one that was written */
	{
		long		i;

		for (i = 0; i < got_n; i++)
			CHECK(got[i].ts_ns >= recs[0].ts_ns && got[i].ts_ns <= recs[n - 1].ts_ns &&
				  got[i].pid >= 100 && got[i].pid < 120);
	}
	/* a damaged footer falls back to a scan and still finds the blocks */
	{
		int			fd = open(path, O_RDWR);
		struct stat sb;
		uint8_t		junk[4] = {0xff, 0xff, 0xff, 0x7f};

		CHECK(fd >= 0 && fstat(fd, &sb) == 0);
		CHECK(pwrite(fd, junk, 4, sb.st_size - 4) == 4);
		close(fd);
		got_n = read_all(path, 0, UINT64_MAX, &st);
		CHECKF(st.footers_bad == 1 && st.blocks_bad == 1 && got_n > 0, "footers_bad %llu blocks_bad %llu",
			   (unsigned long long) st.footers_bad, (unsigned long long) st.blocks_bad);
	}
	tft_rmdir(dir);
}

static void
test_not_a_trace(void)
{
	char		dir[256],
				path[300];
	pgwt_tf_reader *r;
	int			fd;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/junk.trace.lz4", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "hello, not a trace file at all!!", 32) == 32);
	close(fd);
	CHECK(pgwt_tf_reader_open(path, NULL, &r) == -PGWT_TF_BAD_MAGIC);
	CHECK(pgwt_tf_reader_open(dir, NULL, &r) == -PGWT_TF_NOT_FOUND);
	snprintf(path, sizeof(path), "%s/nope", dir);
	CHECK(pgwt_tf_reader_open(path, NULL, &r) == -PGWT_TF_IO);
	tft_rmdir(dir);
}

/*
 * A live file cut at every byte offset of its last block: recovery must
 * never fail or crash, keep every complete block, and archive the rest.
 */
static void
test_recovery_every_offset(void)
{
	char		dir[256],
				src[300],
				cur[300];
	size_t		n = 2 * PGWT_TF_BLOCK_MAX_RECORDS + 40;
	uint8_t    *bytes;
	struct stat sb;
	uint64_t	last_off = 0,
				size,
				cut;
	int			fd;
	pgwt_tf_dir_opts dopts;
	uint64_t	cuts = 0;

	make_stream(n, 21);
	{
		size_t		i;

		for (i = 0; i < n; i++)	/* transitions only: 3 blocks */
			if (recs[i].kind == PGWT_REC_SAMPLE)
				recs[i] = tft_transition(recs[i].ts_ns, 1, 0, 1, 1, 1, 1);
	}
	tft_mkdtemp(dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/src.trace", dir);
	CHECK_RC(write_file(src, 0, n, false));
	CHECK(stat(src, &sb) == 0);
	size = (uint64_t) sb.st_size;
	bytes = malloc(size);
	fd = open(src, O_RDONLY);
	CHECK(fd >= 0 && read(fd, bytes, size) == (ssize_t) size);
	close(fd);
	damage_block(src, 2, &last_off);	/* just to learn the offset */
	CHECK(last_off > 28);
	memset(&dopts, 0, sizeof(dopts));
	dopts.file = file_opts(0);
	snprintf(cur, sizeof(cur), "%s/%s", dir, PGWT_TF_CURRENT_NAME);

	for (cut = last_off; cut <= size; cut++)
	{
		pgwt_tf_dir_stats ds;
		pgwt_tf_read_stats rs;
		char		name[128],
					arch[400];
		long		got_n;
		int			rc;
		size_t		want = cut == size ? n : 2 * PGWT_TF_BLOCK_MAX_RECORDS;

		fd = open(cur, O_WRONLY | O_CREAT | O_TRUNC, 0640);
		CHECK(fd >= 0 && write(fd, bytes, cut) == (ssize_t) cut);
		close(fd);
		memset(&ds, 0, sizeof(ds));
		rc = pgwt_tf_recover_current(dir, &dopts, &ds, name, sizeof(name));
		CHECKF(rc == 1, "cut %llu: rc %d", (unsigned long long) cut, rc);
		CHECK(access(cur, F_OK) != 0);
		snprintf(arch, sizeof(arch), "%s/%s", dir, name);
		got_n = read_all(arch, 0, UINT64_MAX, &rs);
		CHECKF(got_n == (long) want && rs.footers_bad == 0 && rs.blocks_bad == 0,
			   "cut %llu: got %ld want %zu", (unsigned long long) cut, got_n, want);
		CHECK(ds.recovered_bytes_cut == (cut == size ? 0 : cut - last_off));
		unlink(arch);
		cuts++;
	}
	printf("# recovery: %llu cut offsets checked\n", (unsigned long long) cuts);
	free(bytes);
	tft_rmdir(dir);
}

/* skip_samples: exactly the transitions of the range, at every version */
static void
test_skip_samples(void)
{
	char		dir[256],
				path[300];
	size_t		n = make_stream(20000, 11);
	uint64_t	t_min = recs[0].ts_ns,
				t_max = recs[n - 1].ts_ns,
				seed = 5;
	uint16_t	v;

	tft_mkdtemp(dir, sizeof(dir));
	only_transitions = true;
	for (v = 2; v <= PGWT_TF_VERSION_MAX; v++)
	{
		snprintf(path, sizeof(path), "%s/s%u.trace.lz4", dir, v);
		CHECK_RC(write_file(path, v, n, true));
		for (int q = 0; q < 8; q++)
		{
			uint64_t	a = q == 0 ? 0 : t_min + tft_rand(&seed) % (t_max - t_min + 1),
						b = q == 0 ? UINT64_MAX : a + tft_rand(&seed) % (t_max - t_min + 1);
			long		got_n = read_all(path, a, b, NULL);

			CHECKF(got_n >= 0, "read: %s", pgwt_tf_strerror((int) got_n));
			CHECKF(same_records(got_n, n, a, b, v), "v%u range %llu..%llu, transitions only",
				   v, (unsigned long long) a, (unsigned long long) b);
		}
	}
	only_transitions = false;
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_roundtrip_versions);
	RUN(test_file_mode_and_header);
	RUN(test_block_splitting_and_sorting);
	RUN(test_range_queries);
	RUN(test_skip_samples);
	RUN(test_live_read_while_writing);
	RUN(test_damaged_block_skipped_and_counted);
	RUN(test_not_a_trace);
	RUN(test_recovery_every_offset);
	return TFT_END();
}
