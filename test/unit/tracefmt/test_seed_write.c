/*
 * test_seed_write.c
 *		Unit tests of writing what the seed tool reads (seed_writer.c,
 *		seed_sidefiles_write.c) and of reading its long query texts
 *		(seed_json_text.c): the raw bytes of a seed-layout block (first
 *		delta from 0, markers with the id in old, escalation length and
 *		reason in query_id, no checksum), the header's major version, the
 *		bare live count, the markers it does not know left out and
 *		counted; texts past json_min's bound kept, past ours cut at a
 *		character boundary and said so, malformed lines counted.
 */
#include <fcntl.h>
#include <lz4.h>

#include "tf_test.h"
#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

static pgwt_record
tr(uint64_t ts, uint32_t pid, uint32_t old_ev, uint32_t new_ev, uint64_t dur, uint64_t qid)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.ts_ns = ts;
	r.pid = pid;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.query_id = qid;
	r.cpu_ns = UINT64_MAX;
	return r;
}

static long
read_all(const char *path, char *buf, size_t cap)
{
	int			fd = open(path, O_RDONLY);
	ssize_t		n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return (long) n;
}

static void
test_seed_block_bytes(void)
{
	static uint8_t raw[PGWT_TF_PAYLOAD_MAX];
	static uint8_t comp[TF_COMPRESSED_MAX];
	static uint8_t back[PGWT_TF_PAYLOAD_MAX];
	pgwt_record r[3];
	pgwt_tf_block_header h;
	const uint8_t *p = back;
	uint64_t	d;
	int			n;

	r[0] = tr(5000000000ull, 7, 0, 0x0A000015, 100, 42);
	r[1] = tr(5000000100ull, 0, PGWT_ESC_CODE_ANOMALY, PGWT_MARKER_ESC_START, 30000000000ull, 0);
	r[2] = tr(5000000200ull, 7, 0, PGWT_MARKER_EXEC_START, 0, 42);
	CHECK_RC(tf_seed_block_encode(3, PGWT_TF_FLAG_LZ4, PGWT_TF_BLOCK_TRANSITIONS, 0, r, 3,
								  raw, comp, &h));
	CHECK(h.first_ts == 5000000000ull && h.last_ts == 5000000200ull && h.reserved == 0);
	n = LZ4_decompress_safe((const char *) comp, (char *) back, (int) h.compressed,
							sizeof(back));
	CHECK(n == (int) h.uncompressed);
	/* the first delta is the first ts itself */
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 5000000000ull);
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 100);
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 100);
	p += 3 * 4;					/* pids */
	CHECK(tf_get_u32(p + 4) == PGWT_MARKER_ESC_START);	/* old = the id */
	CHECK(tf_get_u32(p + 8) == PGWT_MARKER_EXEC_START);
	p += 3 * 4 * 2;				/* old, new */
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 100);
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 0);	/* markers: no duration */
	CHECK(tf_get_leb(&p, back + n, &d) == 0 && d == 0);
	CHECK(tf_get_u64(p) == 42);
	CHECK(tf_get_u64(p + 8) == (30ull << 8 | 1));	/* 30 s, anomaly */
	CHECK(tf_get_u64(p + 16) == 42);
	/* the seed has no v4+ layout */
	CHECK(tf_seed_block_encode(4, 0, PGWT_TF_BLOCK_TRANSITIONS, 0, r, 3, raw, comp, &h) < 0);
}

static void
test_seed_file(void)
{
	char		dir[256],
				path[300],
				meta[310],
				text[64];
	pgwt_tf_file_opts o;
	pgwt_tf_file_writer *w;
	pgwt_tf_reader *rd;
	pgwt_tf_block b;
	pgwt_record r;
	uint64_t	n = 0;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/current.trace", dir);
	snprintf(meta, sizeof(meta), "%s.meta", path);
	memset(&o, 0, sizeof(o));
	o.pg_version = 150004;
	o.write_meta = true;
	o.group_gid = -1;
	o.seed_layout = true;
	CHECK_RC(pgwt_tf_file_writer_create(path, &o, &w));
	CHECK(pgwt_tf_file_writer_header(w)->version == 3 &&
		  pgwt_tf_file_writer_header(w)->pg_version == 15);
	CHECK(read_all(meta, text, sizeof(text)) == 2 && strcmp(text, "0\n") == 0);
	r = tr(1000, 9, 0, 0x03000008, 10, 1);
	CHECK_RC(pgwt_tf_file_writer_append(w, &r));
	r = tr(1100, 9, 0, PGWT_MARKER_XACT_COMMIT, 0, 1);	/* not the seed's */
	CHECK_RC(pgwt_tf_file_writer_append(w, &r));
	r = tr(1200, 9, 0x03000008, 0, 200, 1);
	CHECK_RC(pgwt_tf_file_writer_append(w, &r));
	CHECK_RC(pgwt_tf_file_writer_flush(w));
	CHECK(pgwt_tf_file_writer_stats(w)->seed_left_out == 1);
	CHECK(read_all(meta, text, sizeof(text)) == 2 && strcmp(text, "1\n") == 0);
	/* our reader takes it back, records as written */
	CHECK_RC(pgwt_tf_reader_open(dir, NULL, &rd));
	while (pgwt_tf_reader_next_block(rd, &b) == 1)
		for (uint32_t i = 0; i < b.n; i++, n++)
			CHECK(b.recs[i].ts_ns == (n ? 1200 : 1000) && b.recs[i].pid == 9);
	CHECK(n == 2);
	pgwt_tf_reader_close(rd);
	CHECK_RC(pgwt_tf_file_writer_finish(w));
	CHECK(access(meta, F_OK) != 0);
	CHECK(o.version == 0);		/* the caller's options are not changed */
	o.version = 7;
	snprintf(path, sizeof(path), "%s/other.trace", dir);
	CHECK(pgwt_tf_file_writer_create(path, &o, &w) == -PGWT_TF_INVAL);
	tft_rmdir(dir);
}

typedef struct qseen
{
	int			n;
	size_t		len[4];
	bool		trunc[4];
	char		first[64];
	char		last_bytes[8];
} qseen;

static int
q_cb(uint64_t id, pgwt_tf_query_mode mode, bool truncated, const char *text, void *arg)
{
	qseen	   *q = arg;
	size_t		l = strlen(text);

	(void) id;
	(void) mode;
	if (q->n < 4)
	{
		q->len[q->n] = l;
		q->trunc[q->n] = truncated;
		if (q->n == 0)
			snprintf(q->first, sizeof(q->first), "%.60s", text);
		if (q->n == 1 && l >= 2)
			memcpy(q->last_bytes, text + l - 2, 2);
	}
	q->n++;
	return 0;
}

static void
test_long_query_texts(void)
{
	char		dir[256],
				p[300];
	FILE	   *f;
	qseen		q;
	uint64_t	bad = 0;
	int			i;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/query_texts.jsonl", dir);
	f = fopen(p, "w");
	CHECK(f);
	/* 300 bytes with escapes: past json_min's 255, within ours */
	fputs("{\"q\":1,\"t\":\"SELECT \\\"a\\\" \\u00e9 ", f);
	for (i = 0; i < 280; i++)
		fputc('x', f);
	fputs("\",\"ts\":1}\n", f);
	/* 3000 two-byte characters (6000 bytes) written as \u escapes, a
	 * surrogate pair at the end: cut at a character boundary */
	fputs("{\"ts\":2,\"q\":-5,\"t\":\"", f);
	for (i = 0; i < 3000; i++)
		fputs("\\u00fc", f);
	fputs("\\ud83d\\ude00\"}\n", f);
	fputs("{\"q\":3,\"t\":\"bad \\x escape\"}\n", f);	/* counted, not taken */
	fputs("{\"q\":4,\"t\":\"short\"}\n", f);
	fclose(f);
	memset(&q, 0, sizeof(q));
	CHECK_RC(pgwt_tf_seed_queries_read(dir, q_cb, &q, &bad));
	CHECKF(q.n == 3 && bad == 1, "n %d bad %llu", q.n, (unsigned long long) bad);
	CHECKF(q.len[0] == 7 + 4 + 3 + 280 && !q.trunc[0], "len %zu", q.len[0]);
	CHECKF(strncmp(q.first, "SELECT \"a\" \xc3\xa9 xx", 16) == 0, "%s", q.first);
	CHECKF(q.len[1] == PGWT_TF_QUERY_TEXT_MAX && q.trunc[1] && memcmp(q.last_bytes, "\xc3\xbc", 2) == 0,
		   "len %zu", q.len[1]);
	CHECK(q.len[2] == 5 && !q.trunc[2]);
	tft_rmdir(dir);
}

/* Our side files exported as the seed's, read back by its reader. */
static int
b_cb(const pgwt_tf_backend *b, void *arg)
{
	int		   *n = arg;

	if (b->pid == 77 && strcmp(b->type, "autovacuum worker") == 0 &&
		strcmp(b->user, "u\"1") == 0)
		(*n)++;
	return 0;
}

static void
test_sidefiles_export(void)
{
	char		dir[256],
				p[300],
				text[256];
	pgwt_tf_backend b;
	int			n = 0;
	FILE	   *f;

	tft_mkdtemp(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/backends.tsv", dir);
	memset(&b, 0, sizeof(b));
	b.pid = 77;
	b.type = "autovacuum worker";
	b.user = "u\"1";
	b.database = "db";
	b.client_addr = "";
	b.application_name = "";
	{ pgwt_tf_file_opts fo; memset(&fo, 0, sizeof(fo)); fo.group_gid = -1; CHECK_RC(pgwt_tf_backend_append(dir, &fo, &b)); }
	CHECK_RC(pgwt_tf_seed_sidefiles_write(dir));
	snprintf(p, sizeof(p), "%s/backends.jsonl", dir);
	f = fopen(p, "r");
	CHECK(f && fgets(text, sizeof(text), f));
	fclose(f);
	CHECKF(strstr(text, "\"type\":\"autovac_worker\"") != NULL, "%s", text);
	CHECK_RC(pgwt_tf_seed_backends_read(dir, b_cb, &n, NULL));
	CHECK(n == 1);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_seed_block_bytes);
	RUN(test_seed_file);
	RUN(test_long_query_texts);
	RUN(test_sidefiles_export);
	return TFT_END();
}
