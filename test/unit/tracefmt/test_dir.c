/*
 * test_dir.c
 *		Unit tests of the trace directory with an injected clock: archive
 *		names, hourly rotation, collision-safe names, recovery and
 *		quarantine of a leftover live file, retention by age and by size,
 *		file modes, and reading a directory in time order.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"

#define HOUR_NS 3600000000000ull
#define BASE_RT 1700000000000000000ull	/* 2023-11-14 22:13:20 UTC */


static void
advance(uint64_t ns)
{
	tft_now_rt += ns;
	tft_now_mono += ns;
}

static pgwt_tf_dir_opts
dir_opts(void)
{
	pgwt_tf_dir_opts o;

	memset(&o, 0, sizeof(o));
	o.file.pg_version = 150004;
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = tft_clk_rt;
	o.file.clock.monotonic_ns = tft_clk_mono;
	return o;
}

static bool
exists(const char *dir, const char *name)
{
	char		p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static int
count_suffix(const char *dir, const char *suffix)
{
	DIR		   *d = opendir(dir);
	struct dirent *de;
	int			n = 0;

	while ((de = readdir(d)) != NULL)
	{
		size_t		a = strlen(de->d_name),
					b = strlen(suffix);

		if (a >= b && strcmp(de->d_name + a - b, suffix) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void
test_archive_names(void)
{
	char		buf[64];
	int64_t		h;
	unsigned	seq;

	CHECK(pgwt_tf_archive_name(BASE_RT, false, 0, buf, sizeof(buf)) == 0);
	CHECK(strcmp(buf, "2023-11-14_22.trace.lz4") == 0);
	CHECK(pgwt_tf_archive_name(BASE_RT, false, 3, buf, sizeof(buf)) == 0);
	CHECK(strcmp(buf, "2023-11-14_22.3.trace.lz4") == 0);
	CHECK(pgwt_tf_archive_parse(buf, false, &h, &seq) == 0);
	CHECK(h == 1699999200 && seq == 3);
	CHECK(pgwt_tf_archive_parse("2023-11-14_22.trace.lz4", false, &h, &seq) == 0 && seq == 0);
	CHECK(pgwt_tf_archive_parse("2023-11-14_24.trace.lz4", false, &h, &seq) < 0);
	CHECK(pgwt_tf_archive_parse("2023-11-14_22.trace", false, &h, &seq) < 0);
	CHECK(pgwt_tf_archive_parse("2023-11-14_22.0.trace.lz4", false, &h, &seq) < 0);
	CHECK(pgwt_tf_archive_parse("current.trace", false, &h, &seq) < 0);
	CHECK(pgwt_tf_archive_parse("2023-1-14_22.trace.lz4", false, &h, &seq) < 0);
	CHECK(pgwt_tf_archive_name(BASE_RT, false, 0, buf, 10) < 0);
}

static void
test_retention_policy(void)
{
	pgwt_tf_archive a[4] = {
		{"c", 7200 * 3, 0, 100}, {"a", 0, 0, 100}, {"b", 3600, 0, 100}, {"b1", 3600, 1, 100}
	};
	bool		del[4];
	int64_t		now = 7200 * 3 + 1800;	/* half way through hour 6 */

	/* age: keep 4 hours -> hours ending before now - 4h go: hour 0 ends 3600 */
	CHECK(pgwt_tf_retention_select(a, del, 4, now, 4, 0, 0) == 3);
	CHECK(strcmp(a[0].name, "a") == 0 && strcmp(a[1].name, "b") == 0 &&
		  strcmp(a[2].name, "b1") == 0 && strcmp(a[3].name, "c") == 0);
	CHECK(del[0] && del[1] && del[2] && !del[3]);
	/* size: 250 bytes with 60 live bytes keeps the newest archive only */
	CHECK(pgwt_tf_retention_select(a, del, 4, now, 0, 250, 60) == 3);
	CHECK(del[0] && del[1] && del[2] && !del[3]);
	/* 260 bytes keep two */
	CHECK(pgwt_tf_retention_select(a, del, 4, now, 0, 260, 60) == 2);
	CHECK(del[0] && del[1] && !del[2] && !del[3]);
	/* nothing to do */
	CHECK(pgwt_tf_retention_select(a, del, 4, now, 0, 0, 0) == 0);
	/* the live file alone above the cap: every archive goes, never more */
	CHECK(pgwt_tf_retention_select(a, del, 4, now, 0, 10, 1000) == 4);
}

static void
write_some(pgwt_tf_dir_writer *d, int n, uint32_t pid)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		pgwt_record r = tft_transition(tft_now_mono + (uint64_t) i, pid, 0, 1, 10, 0, 0);

		if (pgwt_tf_dir_append(d, &r) < 0)
			return;
	}
}

static void
test_rotation_and_collisions(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	struct stat st;
	char		p[512];

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;			/* 22:13:20 */
	tft_now_mono = 1000;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK(exists(dir, "current.trace") && exists(dir, "current.trace.meta"));
	snprintf(p, sizeof(p), "%s/current.trace", dir);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
	write_some(d, 100, 1);
	advance(HOUR_NS / 2);		/* 22:43: same hour */
	CHECK_RC(pgwt_tf_dir_flush(d));
	CHECK(pgwt_tf_dir_writer_stats(d)->rotations == 0);
	advance(HOUR_NS / 2);		/* 23:13: next hour */
	write_some(d, 100, 2);
	CHECK_RC(pgwt_tf_dir_tick(d));
	CHECK(pgwt_tf_dir_writer_stats(d)->rotations == 1);
	CHECK(exists(dir, "2023-11-14_22.trace.lz4"));
	snprintf(p, sizeof(p), "%s/2023-11-14_22.trace.lz4", dir);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0640);
	write_some(d, 100, 3);
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK(exists(dir, "2023-11-14_23.trace.lz4") && !exists(dir, "current.trace") &&
		  !exists(dir, "current.trace.meta"));

	/* a restart within the same hour never overwrites: _23.1, _23.2 */
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	write_some(d, 10, 4);
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK(exists(dir, "2023-11-14_23.1.trace.lz4"));
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK(exists(dir, "2023-11-14_23.2.trace.lz4"));

	/* files get the configured group (root may chown to any group) */
	if (geteuid() == 0)
	{
		pgwt_tf_dir_opts og = o;

		og.file.group_gid = 1;
		CHECK_RC(pgwt_tf_dir_open(dir, &og, &d));
		snprintf(p, sizeof(p), "%s/current.trace", dir);
		CHECK(stat(p, &st) == 0 && st.st_gid == 1 && (st.st_mode & 0777) == 0640);
		snprintf(p, sizeof(p), "%s/current.trace.meta", dir);
		CHECK(stat(p, &st) == 0 && st.st_gid == 1);
		CHECK_RC(pgwt_tf_dir_close(d));
		CHECK(exists(dir, "2023-11-14_23.3.trace.lz4"));
		snprintf(p, sizeof(p), "%s/2023-11-14_23.3.trace.lz4", dir);
		unlink(p);
	}
	else
		printf("# group ownership not checked: not root\n");

	/* the whole directory reads back in time order */
	{
		pgwt_tf_reader *r;
		pgwt_record rec;
		uint32_t	last_pid = 0;
		int			n = 0;

		CHECK_RC(pgwt_tf_reader_open(dir, NULL, &r));
		CHECK(pgwt_tf_reader_nfiles(r) == 4);
		while (pgwt_tf_reader_next(r, &rec) == 1)
		{
			CHECK(rec.pid >= last_pid);
			last_pid = rec.pid;
			n++;
		}
		pgwt_tf_reader_close(r);
		CHECKF(n == 310, "n %d", n);
	}
	tft_rmdir(dir);
}

static void
test_sample_period_survives_rotation(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	int			blocks = 0;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK_RC(pgwt_tf_dir_set_sample_period(d, 100000000));
	advance(HOUR_NS);
	CHECK_RC(pgwt_tf_dir_tick(d));
	{
		pgwt_record s = tft_sample(tft_now_mono, 1, 0x06000000, 0, 100000000);

		CHECK_RC(pgwt_tf_dir_append(d, &s));
	}
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK_RC(pgwt_tf_reader_open(dir, NULL, &r));
	while (pgwt_tf_reader_next_block(r, &blk) == 1)
	{
		blocks++;
		CHECK(blk.sample_period_ns == 100000000 && blk.recs[0].weight_ns == 100000000);
	}
	pgwt_tf_reader_close(r);
	CHECK(blocks == 1);
	tft_rmdir(dir);
}

static void
test_recovery_on_open(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	char		p[512];
	int			fd;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	/* a crash: a live file with 3 full blocks and a torn tail */
	{
		pgwt_tf_file_opts fo = dir_opts().file;
		pgwt_tf_file_writer *w;
		int			i;

		fo.write_meta = true;
		snprintf(p, sizeof(p), "%s/current.trace", dir);
		CHECK_RC(pgwt_tf_file_writer_create(p, &fo, &w));
		for (i = 0; i < 3 * PGWT_TF_BLOCK_MAX_RECORDS; i++)
		{
			pgwt_record r = tft_transition(1000 + (uint64_t) i, 7, 0, 1, 1, 0, 0);

			CHECK_RC(pgwt_tf_file_writer_append(w, &r));
		}
		pgwt_tf_file_writer_abandon(w);
		fd = open(p, O_WRONLY | O_APPEND);
		CHECK(fd >= 0 && write(fd, "torn block bytes", 16) == 16);
		close(fd);
	}
	advance(2 * HOUR_NS);
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK(pgwt_tf_dir_writer_stats(d)->recovered == 1 &&
		  pgwt_tf_dir_writer_stats(d)->recovered_bytes_cut == 16);
	/* archived under the hour it was started in */
	CHECK(exists(dir, "2023-11-14_22.trace.lz4"));
	CHECK_RC(pgwt_tf_dir_close(d));
	{
		pgwt_tf_reader *r;
		pgwt_record rec;
		int			n = 0;

		snprintf(p, sizeof(p), "%s/2023-11-14_22.trace.lz4", dir);
		CHECK_RC(pgwt_tf_reader_open(p, NULL, &r));
		while (pgwt_tf_reader_next(r, &rec) == 1)
			n++;
		CHECK(n == 3 * PGWT_TF_BLOCK_MAX_RECORDS && pgwt_tf_reader_stats(r)->footers_bad == 0);
		pgwt_tf_reader_close(r);
	}

	/* an unreadable header is kept aside, never deleted */
	snprintf(p, sizeof(p), "%s/current.trace", dir);
	fd = open(p, O_WRONLY | O_CREAT, 0640);
	CHECK(fd >= 0 && write(fd, "GARBAGE!", 8) == 8);
	close(fd);
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK(pgwt_tf_dir_writer_stats(d)->quarantined == 1);
	CHECK_RC(pgwt_tf_dir_close(d));
	{
		char		bad[128];

		snprintf(bad, sizeof(bad), "current.trace.bad-%llu", (unsigned long long) tft_now_rt);
		CHECK(exists(dir, bad));
	}
	/* readers skip the quarantined file (not a trace name) */
	{
		pgwt_tf_reader *r;

		CHECK_RC(pgwt_tf_reader_open(dir, NULL, &r));
		CHECK(pgwt_tf_reader_stats(r)->files_bad == 0);
		pgwt_tf_reader_close(r);
	}
	tft_rmdir(dir);
}

static void
test_retention_in_directory(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	int			h;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	o.retention_hours = 3;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	for (h = 0; h < 8; h++)
	{
		write_some(d, 50, (uint32_t) h);
		advance(HOUR_NS);
		CHECK_RC(pgwt_tf_dir_tick(d));
	}
	/* now 06:13 next day... hours 22..05 archived; only ends >= now-3h kept */
	CHECKF(count_suffix(dir, ".trace.lz4") == 3, "archives %d", count_suffix(dir, ".trace.lz4"));
	CHECK(exists(dir, "current.trace"));
	CHECK(pgwt_tf_dir_writer_stats(d)->deleted == 5);
	CHECK_RC(pgwt_tf_dir_close(d));

	/* size cap: keep at most ~2 archives' worth; the live file survives */
	{
		char		p[512];
		struct stat st;
		uint64_t	one;

		snprintf(p, sizeof(p), "%s/2023-11-15_05.trace.lz4", dir);
		CHECK(stat(p, &st) == 0);
		one = (uint64_t) st.st_size;
		/* an archive's footprint includes its per-second summary */
		snprintf(p, sizeof(p), "%s/2023-11-15_05.trace.lz4.sum", dir);
		CHECK(stat(p, &st) == 0);
		one += (uint64_t) st.st_size;
		o.retention_hours = 0;
		o.retention_bytes = 2 * one + 100;
		CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
		/* 03, 04, 05 full and 06 empty: dropping 03 (the oldest) fits */
		CHECKF(count_suffix(dir, ".trace.lz4") == 3, "archives %d", count_suffix(dir, ".trace.lz4"));
		CHECK(!exists(dir, "2023-11-15_03.trace.lz4.sum") && exists(dir, "2023-11-15_04.trace.lz4.sum"));
		CHECK(!exists(dir, "2023-11-15_03.trace.lz4") && exists(dir, "2023-11-15_04.trace.lz4") &&
			  exists(dir, "2023-11-15_06.trace.lz4") && exists(dir, "current.trace"));
		CHECK_RC(pgwt_tf_dir_close(d));
	}
	/* files that are not archives are never touched */
	{
		char		p[512];
		int			fd;

		snprintf(p, sizeof(p), "%s/notes.txt", dir);
		fd = open(p, O_WRONLY | O_CREAT, 0640);
		close(fd);
		o.retention_bytes = 1;
		CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
		CHECK_RC(pgwt_tf_dir_apply_retention(d));
		CHECK(exists(dir, "notes.txt") && exists(dir, "current.trace"));
		CHECK(count_suffix(dir, ".trace.lz4") == 0);
		CHECK_RC(pgwt_tf_dir_close(d));
	}
	tft_rmdir(dir);
}

static void
test_realtime_range_over_directory(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *r;
	pgwt_record rec;
	int			n = 0;
	int			h;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 1000;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	for (h = 0; h < 3; h++)
	{
		write_some(d, 10, (uint32_t) h);
		advance(HOUR_NS);
		CHECK_RC(pgwt_tf_dir_tick(d));
	}
	CHECK_RC(pgwt_tf_dir_close(d));
	/* a reboot: the monotonic clock starts again, realtime goes on */
	tft_now_mono = 500;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	write_some(d, 10, 9);
	CHECK_RC(pgwt_tf_dir_close(d));
	memset(&ro, 0, sizeof(ro));
	ro.range_realtime = true;
	ro.t_start = BASE_RT + HOUR_NS - 1;
	ro.t_end = BASE_RT + 3 * HOUR_NS + 100;
	CHECK_RC(pgwt_tf_reader_open(dir, &ro, &r));
	while (pgwt_tf_reader_next(r, &rec) == 1)
	{
		CHECK(rec.pid == 1 || rec.pid == 2 || rec.pid == 9);
		n++;
	}
	pgwt_tf_reader_close(r);
	CHECKF(n == 30, "n %d", n);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_archive_names);
	RUN(test_retention_policy);
	RUN(test_rotation_and_collisions);
	RUN(test_sample_period_survives_rotation);
	RUN(test_recovery_on_open);
	RUN(test_retention_in_directory);
	RUN(test_realtime_range_over_directory);
	return TFT_END();
}
