/*
 * test_meta.c
 *		The live files' committed counts (current.trace.meta and
 *		current.trace.sum.meta, docs/TRACE_FORMAT.md 6.1): a fixed-size
 *		checked record overwritten in place, one pwrite() per flush; a torn
 *		or absent count commits nothing new to a reader; a bare count (what
 *		earlier writers renamed into place) still reads; and a writer that
 *		dies mid-flush leaves a directory whose recovery keeps every
 *		complete block.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"
#include "tracefmt/summary.h"

#define SEC 1000000000ull

static pgwt_tf_file_opts
meta_opts(void)
{
	pgwt_tf_file_opts o;

	memset(&o, 0, sizeof(o));
	o.pg_version = 150004;
	o.write_meta = true;
	o.group_gid = -1;
	o.clock.realtime_ns = tft_clk_rt;
	o.clock.monotonic_ns = tft_clk_mono;
	tft_now_rt = 1700000000ull * SEC;
	tft_now_mono = 5000 * SEC;
	return o;
}

/* Appends second `sec` of a small sampled load (20 backends, 10 Hz). */
static int
put_second(pgwt_tf_file_writer *w, unsigned sec)
{
	unsigned	tick,
				pid;
	int			rc;

	for (tick = 0; tick < 10; tick++)
		for (pid = 0; pid < 20; pid++)
		{
			pgwt_record r = tft_sample(5000 * SEC + sec * SEC + tick * (SEC / 10) + pid,
									   100 + pid, 0x06000000u + (pid + sec) % 3,
									   pid % 4, SEC / 10);

			if ((rc = pgwt_tf_file_writer_append(w, &r)) < 0)
				return rc;
		}
	return pgwt_tf_file_writer_flush(w);
}

/* The record docs/TRACE_FORMAT.md 6.1 describes, computed here apart
 * from the writer: "%010u %08x\n", the check FNV-1a 32 of the digits. */
static void
meta_record(uint64_t count, char *out)
{
	char		digits[16];
	uint32_t	h = 2166136261u;
	int			i;

	snprintf(digits, sizeof(digits), "%010llu", (unsigned long long) count);
	for (i = 0; i < 10; i++)
		h = (h ^ (uint8_t) digits[i]) * 16777619u;
	sprintf(out, "%s %08x\n", digits, (unsigned) h);
}

static int
read_text(const char *path, char *buf, size_t len)
{
	int			fd = open(path, O_RDONLY);
	ssize_t		n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int) n;
}

static int
write_text(const char *path, const char *text)
{
	int			fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t		n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t) strlen(text) ? 0 : -1;
}

/* Blocks a new reader of the live file at path decodes. */
static long
live_blocks(const char *path, bool ignore_meta)
{
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *r;
	pgwt_record rec;
	long		n;
	int			rc;

	memset(&ro, 0, sizeof(ro));
	ro.ignore_meta = ignore_meta;
	if (pgwt_tf_reader_open(path, &ro, &r) < 0)
		return -1;
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
		;
	n = rc < 0 ? -1 : (long) pgwt_tf_reader_stats(r)->blocks;
	pgwt_tf_reader_close(r);
	return n;
}

/* Frames a reader of the live summary at path reads. */
static long
live_frames(const char *dir)
{
	pgwt_tf_sum_reader *r;
	const pgwt_tf_second *s;
	long		n = 0;
	int			rc;

	if (pgwt_tf_sum_reader_open(dir, 0, UINT64_MAX, &r) < 0)
		return -1;
	while ((rc = pgwt_tf_sum_reader_next(r, &s)) == 1)
		n++;
	pgwt_tf_sum_reader_close(r);
	return rc < 0 ? -1 : n;
}

static void
test_meta_updated_in_place(void)
{
	char		dir[256],
				path[300],
				meta[320],
				smeta[330],
				text[64],
				want[64];
	pgwt_tf_file_opts o = meta_opts();
	pgwt_tf_file_writer *w;
	struct stat st0,
				st1,
				ss0,
				ss1;
	unsigned	sec;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_CURRENT_NAME);
	snprintf(meta, sizeof(meta), "%s.meta", path);
	snprintf(smeta, sizeof(smeta), "%s.sum.meta", path);
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	CHECK(read_text(meta, text, sizeof(text)) == 20);
	meta_record(0, want);
	CHECKF(strcmp(text, want) == 0, "meta '%s' want '%s'", text, want);
	CHECK(stat(meta, &st0) == 0 && stat(smeta, &ss0) == 0);
	for (sec = 0; sec < 6; sec++)
		CHECK_RC(put_second(w, sec));
	/* the same inode, overwritten: no temporary file, no rename */
	CHECK(stat(meta, &st1) == 0 && stat(smeta, &ss1) == 0);
	CHECKF(st1.st_ino == st0.st_ino && ss1.st_ino == ss0.st_ino,
		   "meta inode %lu -> %lu, sum meta %lu -> %lu", (unsigned long) st0.st_ino,
		   (unsigned long) st1.st_ino, (unsigned long) ss0.st_ino, (unsigned long) ss1.st_ino);
	CHECK(st1.st_size == 20);
	CHECK(read_text(meta, text, sizeof(text)) == 20);
	meta_record(pgwt_tf_file_writer_stats(w)->blocks, want);
	CHECKF(strcmp(text, want) == 0, "meta '%s' want '%s'", text, want);
	CHECK(live_blocks(path, false) == (long) pgwt_tf_file_writer_stats(w)->blocks);
	/* seconds 0..2 end 2 s before the last record: written, committed */
	CHECKF(live_frames(dir) == 3, "frames %ld", live_frames(dir));
	CHECK_RC(pgwt_tf_file_writer_finish(w));
	CHECK(access(meta, F_OK) < 0 && errno == ENOENT);
	CHECK(access(smeta, F_OK) < 0 && errno == ENOENT);
	tft_rmdir(dir);
}

static void
test_meta_torn_absent_bare(void)
{
	char		dir[256],
				path[300],
				meta[320],
				smeta[330],
				good[64],
				torn[64];
	pgwt_tf_file_opts o = meta_opts();
	pgwt_tf_file_writer *w;
	pgwt_tf_reader *r;
	pgwt_record rec;
	unsigned	sec;
	long		blocks;
	int			rc;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_CURRENT_NAME);
	snprintf(meta, sizeof(meta), "%s.meta", path);
	snprintf(smeta, sizeof(smeta), "%s.sum.meta", path);
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	for (sec = 0; sec < 3; sec++)
		CHECK_RC(put_second(w, sec));
	blocks = (long) pgwt_tf_file_writer_stats(w)->blocks;
	CHECK(blocks == 3);
	CHECK(read_text(meta, good, sizeof(good)) == 20);

	/* A reader that follows the file has seen the 3 blocks. */
	CHECK_RC(pgwt_tf_reader_open(path, NULL, &r));
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
		;
	CHECK(rc == 0 && pgwt_tf_reader_stats(r)->blocks == 3);

	/* torn: the digits of a larger count with the old check (as a read
	 * during the overwrite may see them) commit nothing, old or new */
	snprintf(torn, sizeof(torn), "%s", good);
	torn[9] = '7';
	CHECK(write_text(meta, torn) == 0);
	CHECK(live_blocks(path, false) == 0);
	CHECK_RC(put_second(w, 3));		/* a 4th block, count overwritten */
	CHECK(read_text(meta, good, sizeof(good)) == 20);
	snprintf(torn, sizeof(torn), "%s", good);
	torn[12] = torn[12] == 'f' ? 'e' : 'f';	/* the check this time */
	CHECK(write_text(meta, torn) == 0);
	CHECK(pgwt_tf_reader_poll(r) == 0);
	CHECK(pgwt_tf_reader_next(r, &rec) == 0);
	/* a hex digit replaced by a count digit's neighbour: also torn */
	torn[12] = 'x';
	CHECK(write_text(meta, torn) == 0);
	CHECK(live_blocks(path, false) == 0);

	/* absent (no count was ever renamed into place, or it was lost): a
	 * new reader reads every complete block; one that had a .meta keeps
	 * to the count it read */
	CHECK(unlink(meta) == 0);
	CHECK(live_blocks(path, false) == 4);
	CHECK(pgwt_tf_reader_poll(r) == 0);

	/* a bare count, the earlier writers' form, is read */
	{
		int			fd = open(meta, O_WRONLY | O_CREAT | O_TRUNC, 0640);

		CHECK(fd >= 0 && write(fd, "4\n", 2) == 2);
		close(fd);
	}
	CHECK(live_blocks(path, false) == 4);
	CHECK(pgwt_tf_reader_poll(r) == 1);
	CHECK(pgwt_tf_reader_next(r, &rec) == 1);
	pgwt_tf_reader_close(r);

	/* the summary's count follows the same rules */
	CHECKF(live_frames(dir) == 1, "frames %ld", live_frames(dir));	/* second 0 */
	CHECK(read_text(smeta, good, sizeof(good)) == 20);
	snprintf(torn, sizeof(torn), "%s", good);
	torn[9] = torn[9] == '9' ? '8' : '9';
	CHECK(write_text(smeta, torn) == 0);
	CHECK(live_frames(dir) == 0);
	CHECK(unlink(smeta) == 0);
	CHECK(live_frames(dir) == 0);

	/* the blocks are all there for whoever ignores .meta (recovery) */
	CHECK(live_blocks(path, true) == 4);
	pgwt_tf_file_writer_abandon(w);
	tft_rmdir(dir);
}

/*
 * The writer dies mid-flush: a block written whole but not yet counted,
 * then half of the next one. Recovery (opening the directory) keeps every
 * complete block, counted or not, and cuts the half block.
 */
static void
test_crash_mid_flush_recovers_complete_blocks(void)
{
	char		dir[256],
				path[300],
				meta[320],
				text[64];
	pgwt_tf_file_opts o = meta_opts();
	pgwt_tf_dir_opts dopt;
	pgwt_tf_file_writer *w;
	pgwt_tf_dir_writer *d;
	pgwt_tf_read_stats rs;
	pgwt_tf_reader *r;
	pgwt_record rec;
	struct stat st;
	uint8_t    *half;
	off_t		before,
				after;
	long		nrec = 0;
	unsigned	sec;
	int			fd,
				rc;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_CURRENT_NAME);
	snprintf(meta, sizeof(meta), "%s.meta", path);
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	for (sec = 0; sec < 5; sec++)
		CHECK_RC(put_second(w, sec));
	CHECK(read_text(meta, text, sizeof(text)) == 20);
	/* the count as it was before the 5th block: the crash came between
	 * the block's write() and the count's pwrite() */
	meta_record(4, text);
	CHECK(write_text(meta, text) == 0);
	CHECK(live_blocks(path, false) == 4);
	/* half of a 6th block: copy the 5th block's first bytes to the end */
	CHECK(stat(path, &st) == 0);
	before = st.st_size;
	CHECK_RC(put_second(w, 5));
	CHECK(stat(path, &st) == 0);
	after = st.st_size;
	half = malloc((size_t) (after - before));
	CHECK(half != NULL);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	CHECK(pread(fd, half, (size_t) (after - before), before) == after - before);
	CHECK(ftruncate(fd, before) == 0);
	CHECK(pwrite(fd, half, (size_t) (after - before) / 2, before) == (after - before) / 2);
	close(fd);
	free(half);
	pgwt_tf_file_writer_abandon(w);

	/* recovery at open: 5 complete blocks (4 counted + 1 not) */
	memset(&dopt, 0, sizeof(dopt));
	dopt.file = meta_opts();
	CHECK_RC(pgwt_tf_dir_open(dir, &dopt, &d));
	CHECK(pgwt_tf_dir_writer_stats(d)->recovered == 1);
	CHECK(pgwt_tf_dir_writer_stats(d)->recovered_bytes_cut == (uint64_t) (after - before) / 2);
	CHECK_RC(pgwt_tf_dir_close(d));
	memset(&rs, 0, sizeof(rs));
	CHECK_RC(pgwt_tf_reader_open(dir, NULL, &r));
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
		nrec++;
	CHECK(rc == 0);
	rs = *pgwt_tf_reader_stats(r);
	pgwt_tf_reader_close(r);
	CHECKF(rs.blocks == 5 && nrec == 5 * 200 && rs.blocks_bad == 0,
		   "blocks %llu records %ld bad %llu", (unsigned long long) rs.blocks, nrec,
		   (unsigned long long) rs.blocks_bad);
	tft_rmdir(dir);
}

/* A .meta removed by hand under a live writer comes back (within 64
 * updates), as the renames of earlier writers brought it back. */
static void
test_meta_removed_comes_back(void)
{
	char		dir[256],
				path[300],
				meta[320],
				text[64],
				want[64];
	pgwt_tf_file_opts o = meta_opts();
	pgwt_tf_file_writer *w;
	unsigned	sec;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_CURRENT_NAME);
	snprintf(meta, sizeof(meta), "%s.meta", path);
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	CHECK_RC(put_second(w, 0));
	CHECK(unlink(meta) == 0);
	for (sec = 1; sec <= 64 && access(meta, F_OK) != 0; sec++)
		CHECK_RC(put_second(w, sec));
	CHECKF(access(meta, F_OK) == 0, "no .meta after %u updates", sec);
	CHECK(read_text(meta, text, sizeof(text)) == 20);
	meta_record(pgwt_tf_file_writer_stats(w)->blocks, want);
	CHECKF(strcmp(text, want) == 0, "meta '%s' want '%s'", text, want);
	CHECK(live_blocks(path, false) == (long) pgwt_tf_file_writer_stats(w)->blocks);
	CHECK_RC(pgwt_tf_file_writer_finish(w));
	CHECK(access(meta, F_OK) < 0);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_meta_updated_in_place);
	RUN(test_meta_removed_comes_back);
	RUN(test_meta_torn_absent_bare);
	RUN(test_crash_mid_flush_recovers_complete_blocks);
	return TFT_END();
}
