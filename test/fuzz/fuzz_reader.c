/*
 * fuzz_reader.c
 *		libFuzzer target for every decoder of untrusted bytes in tracefmt.
 *		The first input byte picks the entry point; the rest is the data:
 *		  0  one block: 40-byte header + payload, through the pure codec
 *		  1  a whole archive, read through the public reader (with a time
 *		     range taken from the input, to reach the footer binary search)
 *		  2  a leftover live file: recovery, then reading the archive
 *		  3  side files: backends / queries / events parsers
 *		Beyond "no crash, no sanitizer report", it traps when a decoded
 *		record breaks an invariant the reader promises.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static uint8_t fz_raw[PGWT_TF_PAYLOAD_MAX];
static pgwt_record fz_recs[PGWT_TF_BLOCK_MAX_RECORDS];
static char fz_dir[4096];

static void
fz_check_record(const pgwt_record *r, uint64_t lo, uint64_t hi)
{
	if (r->ts_ns < lo || r->ts_ns > hi)
		__builtin_trap();
	if (r->kind == PGWT_REC_SAMPLE)
	{
		if (r->new_event >= PGWT_MARKER_FIRST || r->weight_ns > INT64_MAX)
			__builtin_trap();
	}
	else if (r->kind != PGWT_REC_TRANSITION)
		__builtin_trap();
}

static void
fz_block(const uint8_t *d, size_t n)
{
	pgwt_tf_block_header h;
	uint16_t	version,
				flags;
	uint32_t	i;

	if (n < 2 + PGWT_TF_BLOCK_HEADER_SIZE)
		return;
	/* seeds of versions 2..4 were made when the selector was d[0] % 3 */
	version = PGWT_TF_VERSION_MIN +
		d[0] % (PGWT_TF_VERSION_MAX - PGWT_TF_VERSION_MIN + 1);
	flags = d[1] & 1;
	d += 2;
	n -= 2;
	if (tf_block_header_decode(d, version, flags, &h) < 0)
		return;
	if (n - PGWT_TF_BLOCK_HEADER_SIZE < h.compressed)
		return;
	{
		/* exact-size copy so reading past the payload is caught */
		uint8_t    *p = malloc(h.compressed ? h.compressed : 1);

		memcpy(p, d + PGWT_TF_BLOCK_HEADER_SIZE, h.compressed);
		/* a v2/v3 block in the seed tool's layout bounds nothing by its
		 * header; it comes out sorted by ts (seed_layout.c) */
		if (tf_block_decode(version, flags, &h, p, fz_raw, fz_recs) == 0)
			for (i = 0; i < h.n; i++)
			{
				if (version <= 3 && i > 0 && fz_recs[i].ts_ns < fz_recs[i - 1].ts_ns)
					__builtin_trap();
				fz_check_record(&fz_recs[i], version <= 3 ? 0 : h.first_ts,
								version <= 3 ? UINT64_MAX : h.last_ts);
			}
		free(p);
	}
}

static int
fz_write_file(const char *path, const uint8_t *d, size_t n)
{
	int			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	if (n > 0 && write(fd, d, n) != (ssize_t) n)
	{
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void
fz_read_all(const char *path, uint64_t t0, uint64_t t1)
{
	pgwt_tf_read_opts ro = {t0, t1, false, false, false, false, false};
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	uint64_t	total = 0;

	if (pgwt_tf_reader_open(path, &ro, &r) < 0)
		return;
	while (pgwt_tf_reader_next_block(r, &blk) == 1)
	{
		uint32_t	i;

		if (blk.n < 1 || blk.n > PGWT_TF_BLOCK_MAX_RECORDS)
			__builtin_trap();
		for (i = 0; i < blk.n; i++)
			fz_check_record(&blk.recs[i], t0, t1);
		total += blk.n;
	}
	if (pgwt_tf_reader_stats(r)->records != total)
		__builtin_trap();
	pgwt_tf_reader_close(r);
}

static void
fz_archive(const uint8_t *d, size_t n)
{
	char		path[4200];
	uint64_t	t0 = 0,
				t1 = UINT64_MAX;

	if (n >= 17 && d[0] & 1)
	{
		t0 = tf_get_u64(d + 1);
		t1 = tf_get_u64(d + 9);
		if (t0 > t1)
		{
			uint64_t	x = t0;

			t0 = t1;
			t1 = x;
		}
		d += 16;
		n -= 16;
	}
	if (n < 1)
		return;
	snprintf(path, sizeof(path), "%s/a.trace.lz4", fz_dir);
	if (fz_write_file(path, d + 1, n - 1) == 0)
		fz_read_all(path, t0, t1);
	unlink(path);
}

static void
fz_recover(const uint8_t *d, size_t n)
{
	char		path[4200],
				name[128],
				arch[4400];
	pgwt_tf_dir_opts o;
	pgwt_tf_dir_stats st;
	int			rc;

	snprintf(path, sizeof(path), "%s/current.trace", fz_dir);
	if (fz_write_file(path, d, n) < 0)
		return;
	memset(&o, 0, sizeof(o));
	o.file.group_gid = -1;
	memset(&st, 0, sizeof(st));
	rc = pgwt_tf_recover_current(fz_dir, &o, &st, name, sizeof(name));
	if (rc <= 0)
	{
		unlink(path);
		return;
	}
	snprintf(arch, sizeof(arch), "%s/%s", fz_dir, name);
	if (rc == 1)
	{
		/* a recovered archive is always well formed */
		pgwt_tf_reader *r;
		pgwt_tf_block blk;

		if (pgwt_tf_reader_open(arch, NULL, &r) < 0)
			__builtin_trap();
		while (pgwt_tf_reader_next_block(r, &blk) == 1)
			;
		if (pgwt_tf_reader_stats(r)->footers_bad || pgwt_tf_reader_stats(r)->blocks_bad)
			__builtin_trap();
		pgwt_tf_reader_close(r);
	}
	unlink(arch);
}

static int
fz_backend(const pgwt_tf_backend *b, void *a)
{
	return b->type == NULL;
}
static int
fz_query(uint64_t id, pgwt_tf_query_mode m, bool t, const char *text, void *a)
{
	return strlen(text) > PGWT_TF_QUERY_TEXT_MAX;
}
static int
fz_event(const pgwt_tf_event_name *e, void *a)
{
	return e->name == NULL;
}

static void
fz_side(const uint8_t *d, size_t n)
{
	const char *names[] = {PGWT_TF_BACKENDS_NAME, PGWT_TF_QUERIES_NAME, PGWT_TF_EVENTS_NAME};
	char		path[4200];
	uint64_t	bad;
	uint32_t	pgv;
	int			which;

	if (n < 1)
		return;
	which = d[0] % 3;
	snprintf(path, sizeof(path), "%s/%s", fz_dir, names[which]);
	if (fz_write_file(path, d + 1, n - 1) < 0)
		return;
	if (which == 0 && pgwt_tf_backends_read(fz_dir, fz_backend, NULL, &bad) > 0)
		__builtin_trap();
	if (which == 1 && pgwt_tf_queries_read(fz_dir, fz_query, NULL, &bad) > 0)
		__builtin_trap();
	if (which == 2 && pgwt_tf_events_read(fz_dir, fz_event, NULL, &pgv, &bad) > 0)
		__builtin_trap();
	unlink(path);
	/* the normalizer takes arbitrary text too */
	{
		char	   *in = malloc(n);
		char		out[64];

		memcpy(in, d + 1, n - 1);
		in[n - 1] = '\0';
		if (pgwt_tf_normalize_query(in, out, sizeof(out)) >= sizeof(out))
			__builtin_trap();
		free(in);
	}
}

static void
fz_cleanup(void)
{
	rmdir(fz_dir);				/* every run unlinks its files */
}

/*
 * Scratch files go to a fresh directory under $PGWT_FUZZ_DIR (the smoke
 * suite points it at its own temporary directory, removed afterwards),
 * else under /dev/shm. libFuzzer may leave without running atexit
 * handlers, so callers that care give a directory they clean up.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("PGWT_FUZZ_DIR");

	snprintf(fz_dir, sizeof(fz_dir), "%s/pgwt-fuzz.XXXXXX", base ? base : "/dev/shm");
	if (!mkdtemp(fz_dir))
	{
		snprintf(fz_dir, sizeof(fz_dir), "/tmp/pgwt-fuzz.XXXXXX");
		if (!mkdtemp(fz_dir))
			abort();
	}
	atexit(fz_cleanup);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1 << 20))
		return 0;
	switch (data[0] % 4)
	{
		case 0:
			fz_block(data + 1, size - 1);
			break;
		case 1:
			fz_archive(data + 1, size - 1);
			break;
		case 2:
			fz_recover(data + 1, size - 1);
			break;
		default:
			fz_side(data + 1, size - 1);
			break;
	}
	return 0;
}
