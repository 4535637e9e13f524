/*
 * test_footer_bound.c
 *		An archive's footer is hostile input (file_reader.c): a footer that
 *		claims more entries than the file's bytes can hold is refused at
 *		once, before anything is allocated, and the file is read by
 *		scanning; a footer the size allows, however its entries are
 *		ordered, is sorted in O(n log n) (200,000 entries in reverse order:
 *		an insertion sort takes minutes there) with ties in file order.
 *		A test that runs too long fails through an alarm instead of
 *		hanging the suite.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

#define BIG_FOOTER		200000
#define ALARM_S			20

static pgwt_record recs[20000];

static void
on_alarm(int sig)
{
	static const char msg[] = "FAIL footer-bound: a read took more than the alarm's seconds (quadratic footer handling?)\n";

	(void) sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A finished archive of n transitions (a real header, blocks, footer). */
static int
write_archive(const char *path, size_t n)
{
	pgwt_tf_file_opts o;
	pgwt_tf_file_writer *w;
	int			rc;

	memset(&o, 0, sizeof(o));
	o.pg_version = 180000;
	o.group_gid = -1;
	if ((rc = pgwt_tf_file_writer_create(path, &o, &w)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
	{
		recs[i] = tft_transition(1000000 + i * 1000, 100 + (uint32_t) (i % 8), 0,
								 0x0A000001u, 0, i % 5, 500);
		if ((rc = pgwt_tf_file_writer_append(w, &recs[i])) < 0)
		{
			pgwt_tf_file_writer_abandon(w);
			return rc;
		}
	}
	return pgwt_tf_file_writer_finish(w);
}

static int
set_footer_count(const char *path, uint32_t count)
{
	int			fd = open(path, O_RDWR);
	struct stat sb;
	uint8_t		b[4];
	int			ok;

	if (fd < 0)
		return -1;
	tf_put_u32(b, count);
	ok = fstat(fd, &sb) == 0 && pwrite(fd, b, 4, sb.st_size - 4) == 4;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * A crafted archive: a real file header, n "blocks" of 41 zero bytes (the
 * least the footer check lets through), and a footer of n entries with
 * first_ts = ts_of(i): as many entries as the size allows, no more.
 */
static int
write_crafted(const char *path, const char *header_from, uint32_t n,
			  uint64_t (*ts_of) (uint32_t))
{
	uint8_t		hdr[PGWT_TF_FILE_HEADER_SIZE];
	uint8_t    *buf;
	size_t		size = PGWT_TF_FILE_HEADER_SIZE + (size_t) n * 41 + (size_t) n * 16 + 4;
	int			fd = open(header_from, O_RDONLY);
	int			ok;

	if (fd < 0 || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t) sizeof(hdr))
		return -1;
	close(fd);
	buf = calloc(1, size);
	if (!buf)
		return -1;
	memcpy(buf, hdr, sizeof(hdr));
	for (uint32_t i = 0; i < n; i++)
	{
		uint8_t    *e = buf + PGWT_TF_FILE_HEADER_SIZE + (size_t) n * 41 + (size_t) i * 16;

		tf_put_u64(e, ts_of(i));
		tf_put_u64(e + 8, PGWT_TF_FILE_HEADER_SIZE + (uint64_t) i * 41);
	}
	tf_put_u32(buf + size - 4, n);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ok = fd >= 0 && write(fd, buf, size) == (ssize_t) size;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok ? 0 : -1;
}

static uint64_t
ts_reverse(uint32_t i)
{
	return (uint64_t) (BIG_FOOTER - i) * 1000;
}

static uint64_t
ts_ties(uint32_t i)
{
	return (uint64_t) (7 - i % 8) * 1000;
}

static long
read_all(const char *path, uint64_t t_start, uint64_t t_end, pgwt_tf_read_stats *st)
{
	pgwt_tf_read_opts o;
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	long		n = 0;
	int			rc;

	memset(&o, 0, sizeof(o));
	o.t_start = t_start;
	o.t_end = t_end;
	if (pgwt_tf_reader_open(path, &o, &r) < 0)
		return -1;
	while ((rc = pgwt_tf_reader_next_block(r, &blk)) == 1)
		n += blk.n;
	*st = *pgwt_tf_reader_stats(r);
	pgwt_tf_reader_close(r);
	return rc < 0 ? rc : n;
}

/* A count past what the size allows (by one, and 2^32 - 1): refused at once, read by scanning. */
static void
test_footer_count_over_size_refused(void)
{
	char		dir[256],
				path[300];
	struct stat sb;
	pgwt_tf_read_stats st;
	const size_t n = 10000;
	uint32_t	bound;
	double		t0;
	long		got;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.trace.lz4", dir);
	CHECK_RC(write_archive(path, n));
	got = read_all(path, 0, UINT64_MAX, &st);
	CHECKF(got == (long) n && st.footers_bad == 0, "intact: %ld records, footers_bad %llu",
		   got, (unsigned long long) st.footers_bad);
	CHECK(stat(path, &sb) == 0);
	bound = (uint32_t) ((sb.st_size - PGWT_TF_FILE_HEADER_SIZE - 4) /
						(PGWT_TF_BLOCK_HEADER_SIZE + PGWT_TF_FOOTER_ENTRY_SIZE + 1));
	{
		uint32_t	counts[2] = {bound + 1, UINT32_MAX};

		for (int k = 0; k < 2; k++)
		{
			CHECK(set_footer_count(path, counts[k]) == 0);
			t0 = now_s();
			got = read_all(path, 0, UINT64_MAX, &st);
			CHECKF(now_s() - t0 < 1.0, "count %u: read took %.3f s", counts[k], now_s() - t0);
			CHECKF(st.footers_bad == 1 && got == (long) n,
				   "count %u: footers_bad %llu, %ld of %zu records by the scan",
				   counts[k], (unsigned long long) st.footers_bad, got, n);
		}
	}
	tft_rmdir(dir);
}

/*
 * The most entries the size allows, in reverse time order: loading and
 * sorting them is quick, the index ends up ascending, and a range read
 * finds its blocks by binary search.
 */
static void
test_big_reverse_footer_sorted_quickly(void)
{
	char		dir[256],
				real[300],
				path[300];
	pgwt_tf_read_stats st;
	tf_file_reader *f = NULL;
	const uint64_t *ts,
			   *off;
	uint32_t	n = 0;
	double		t0,
				took;
	long		got;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(real, sizeof(real), "%s/real.trace.lz4", dir);
	snprintf(path, sizeof(path), "%s/big.trace.lz4", dir);
	CHECK_RC(write_archive(real, 10));
	CHECK(write_crafted(path, real, BIG_FOOTER, ts_reverse) == 0);

	memset(&st, 0, sizeof(st));
	t0 = now_s();
	CHECK_RC(tf_file_reader_open(path, false, false, &st, &f));
	took = now_s() - t0;
	CHECKF(st.footers_bad == 0, "a footer the size allows was refused");
	tf_file_reader_index(f, &ts, &off, &n);
	CHECKF(n == BIG_FOOTER, "index of %u entries", n);
	for (uint32_t i = 1; i < n; i++)
		CHECKF(ts[i - 1] <= ts[i], "index not sorted at %u", i);
	CHECK(ts[0] == 1000 && off[0] == PGWT_TF_FILE_HEADER_SIZE + (uint64_t) (BIG_FOOTER - 1) * 41);
	tf_file_reader_close(f);
	printf("# %d reverse-ordered footer entries loaded and sorted in %.3f s\n", BIG_FOOTER, took);
	CHECKF(took < 2.0, "loading the footer took %.3f s", took);

	/*
	 * A range read goes to its blocks by binary search: those up to
	 * t_end (the start widened by the format's block span covers the
	 * first ones), zeroed, so bad; none past t_end is looked at.
	 */
	t0 = now_s();
	got = read_all(path, 5000000, 5010000, &st);
	CHECKF(got == 0 && st.blocks_bad == 5010 && now_s() - t0 < 2.0,
		   "range read: %ld records, %llu bad blocks, %.3f s", got,
		   (unsigned long long) st.blocks_bad, now_s() - t0);
	tft_rmdir(dir);
}

/* Equal first_ts keep the footer's (file) order. */
static void
test_footer_ties_in_file_order(void)
{
	char		dir[256],
				real[300],
				path[300];
	pgwt_tf_read_stats st;
	tf_file_reader *f = NULL;
	const uint64_t *ts,
			   *off;
	uint32_t	n = 0;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(real, sizeof(real), "%s/real.trace.lz4", dir);
	snprintf(path, sizeof(path), "%s/ties.trace.lz4", dir);
	CHECK_RC(write_archive(real, 10));
	CHECK(write_crafted(path, real, 1000, ts_ties) == 0);
	memset(&st, 0, sizeof(st));
	CHECK_RC(tf_file_reader_open(path, false, false, &st, &f));
	tf_file_reader_index(f, &ts, &off, &n);
	CHECK(n == 1000);
	for (uint32_t i = 1; i < n; i++)
		CHECKF(ts[i - 1] < ts[i] || (ts[i - 1] == ts[i] && off[i - 1] < off[i]),
			   "entry %u: ts %llu off %llu after ts %llu off %llu", i,
			   (unsigned long long) ts[i], (unsigned long long) off[i],
			   (unsigned long long) ts[i - 1], (unsigned long long) off[i - 1]);
	tf_file_reader_close(f);
	tft_rmdir(dir);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(ALARM_S);
	RUN(test_footer_count_over_size_refused);
	RUN(test_big_reverse_footer_sorted_quickly);
	RUN(test_footer_ties_in_file_order);
	return TFT_END();
}
