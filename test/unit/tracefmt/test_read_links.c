/*
 * test_read_links.c
 *		A trace directory may be writable by a user other than its reader
 *		(the extension's, read by root's pgwt-dump): what a reader opens
 *		there is never a link, a FIFO or a device. A trace file or side file
 *		planted as a symbolic link to a valid file elsewhere is not read
 *		through; a FIFO is refused at once instead of blocking the reader;
 *		a link to /dev/zero is refused instead of growing a line without
 *		end; a line past a side file's bound is consumed and counted bad,
 *		and the next line still reads; pgwt_tf_getline_max's lengths.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tf_test.h"

static int
count_window(const pgwt_tf_window *w, void *arg)
{
	(*(int *) arg)++;
	(void) w;
	return 0;
}

/* A valid windows.tsv of two lines in dir. */
static int
write_windows(const char *dir)
{
	pgwt_tf_file_opts o;
	pgwt_tf_window w = {1000, 5000000000ull, PGWT_TF_XSRC_WATCH};
	int			dirfd = open(dir, O_RDONLY | O_DIRECTORY),
				rc;

	memset(&o, 0, sizeof(o));
	o.group_gid = -1;
	if (dirfd < 0)
		return -PGWT_TF_IO;
	rc = pgwt_tf_window_append_at(dirfd, &o, &w);
	w.start_rt_ns++;
	if (rc == 0)
		rc = pgwt_tf_window_append_at(dirfd, &o, &w);
	close(dirfd);
	return rc;
}

static void
test_side_file_links_not_followed(void)
{
	char		victim[256],
				dir[256],
				path[600],
				target[600];
	int			n = 0;
	uint64_t	bad = 0;

	tft_mkdtemp(victim, sizeof(victim));
	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(write_windows(victim));
	CHECK_RC(pgwt_tf_windows_read(victim, count_window, &n, &bad));
	CHECK(n == 2);

	/* a link to the valid file elsewhere: refused, nothing read through it */
	n = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_WINDOWS_NAME);
	snprintf(target, sizeof(target), "%s/%s", victim, PGWT_TF_WINDOWS_NAME);
	CHECK(symlink(target, path) == 0);
	CHECK(pgwt_tf_windows_read(dir, count_window, &n, &bad) == -PGWT_TF_NOT_REGULAR && n == 0);

	/* a link to a device with no end and no LF */
	unlink(path);
	CHECK(symlink("/dev/zero", path) == 0);
	CHECK(pgwt_tf_windows_read(dir, count_window, &n, &bad) == -PGWT_TF_NOT_REGULAR && n == 0);

	/* a FIFO no one writes: refused at once (the alarm fails a hang) */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	alarm(10);
	CHECK(pgwt_tf_windows_read(dir, count_window, &n, &bad) == -PGWT_TF_NOT_REGULAR && n == 0);
	alarm(0);

	/* a directory in its place */
	unlink(path);
	CHECK(mkdir(path, 0700) == 0);
	CHECK(pgwt_tf_windows_read(dir, count_window, &n, &bad) == -PGWT_TF_NOT_REGULAR && n == 0);
	rmdir(path);

	/* still absent reads as absent */
	CHECK(pgwt_tf_windows_read(dir, count_window, &n, &bad) == -PGWT_TF_NOT_FOUND);
	tft_rmdir(dir);
	tft_rmdir(victim);
}

static void
test_overlong_line_bounded(void)
{
	char		dir[256],
				path[600];
	FILE	   *f;
	int			n = 0;
	uint64_t	bad = 0;

	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(write_windows(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, PGWT_TF_WINDOWS_NAME);
	f = fopen(path, "a");
	CHECK(f != NULL);
	/* 4 MB without a LF, then its LF, then a valid line */
	for (int i = 0; i < 4 << 20; i++)
		fputc('7', f);
	fputs("\n2000\t6000000000\tsched\n", f);
	fclose(f);
	CHECK_RC(pgwt_tf_windows_read(dir, count_window, &n, &bad));
	CHECKF(n == 3 && bad == 1, "n %d bad %llu", n, (unsigned long long) bad);
	tft_rmdir(dir);
}

static void
test_getline_max_lengths(void)
{
	char		buf[8];
	FILE	   *f = tmpfile();

	CHECK(f != NULL);
	fputs("abc\n123456\n1234567\n12345678\nend", f);
	rewind(f);
	CHECK(pgwt_tf_getline_max(buf, 6, f) == 4 && strcmp(buf, "abc\n") == 0);
	/* "123456\n" is 7 bytes with its LF: past a bound of 6 */
	CHECK(pgwt_tf_getline_max(buf, 6, f) == 7 && strcmp(buf, "123456") == 0);
	CHECK(pgwt_tf_getline_max(buf, 6, f) == 7 && buf[6] == '\0');
	CHECK(pgwt_tf_getline_max(buf, 6, f) == 7);
	/* the last line, torn: no LF */
	CHECK(pgwt_tf_getline_max(buf, 6, f) == 3 && strcmp(buf, "end") == 0);
	CHECK(pgwt_tf_getline_max(buf, 6, f) == -1);
	fclose(f);
}

static void
test_trace_file_link_not_read(void)
{
	char		victim[256],
				dir[256],
				path[600],
				target[600];
	pgwt_tf_file_opts o;
	pgwt_tf_file_writer *w;
	pgwt_tf_reader *r;
	pgwt_record rec;
	int			n = 0;

	memset(&o, 0, sizeof(o));
	o.pg_version = 150004;
	o.group_gid = -1;
	tft_mkdtemp(victim, sizeof(victim));
	tft_mkdtemp(dir, sizeof(dir));
	snprintf(target, sizeof(target), "%s/2023-11-14_23.1%s", victim, PGWT_TF_ARCHIVE_SUFFIX);
	CHECK_RC(pgwt_tf_file_writer_create(target, &o, &w));
	for (int i = 0; i < 10; i++)
	{
		pgwt_record t = tft_transition(1000000 + (uint64_t) i * 1000, 42, 0, 1, 500, 0,
									   PGWT_CPU_UNKNOWN);

		CHECK_RC(pgwt_tf_file_writer_append(w, &t));
	}
	CHECK_RC(pgwt_tf_file_writer_finish(w));
	/* read directly: ten records */
	CHECK_RC(pgwt_tf_reader_open(victim, NULL, &r));
	while (pgwt_tf_reader_next(r, &rec) == 1)
		n++;
	pgwt_tf_reader_close(r);
	CHECK(n == 10);

	/* the same file planted as a link in another directory: not read */
	snprintf(path, sizeof(path), "%s/2023-11-14_23.1%s", dir, PGWT_TF_ARCHIVE_SUFFIX);
	CHECK(symlink(target, path) == 0);
	n = 0;
	if (pgwt_tf_reader_open(dir, NULL, &r) == 0)
	{
		while (pgwt_tf_reader_next(r, &rec) == 1)
			n++;
		pgwt_tf_reader_close(r);
	}
	CHECKF(n == 0, "%d records read through a link", n);
	/* and a FIFO by a trace file's name neither blocks nor reads */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	alarm(10);
	if (pgwt_tf_reader_open(dir, NULL, &r) == 0)
	{
		while (pgwt_tf_reader_next(r, &rec) == 1)
			n++;
		pgwt_tf_reader_close(r);
	}
	alarm(0);
	CHECK(n == 0);
	tft_rmdir(dir);
	tft_rmdir(victim);
}

int
main(void)
{
	RUN(test_side_file_links_not_followed);
	RUN(test_overlong_line_bounded);
	RUN(test_getline_max_lengths);
	RUN(test_trace_file_link_not_read);
	return TFT_END();
}
