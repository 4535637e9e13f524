/*
 * fuzz_summary.c
 *		libFuzzer target for the per-second summaries (.sum), which
 *		pgwt_history_* and pgwt-dump read from a trace directory: the frame
 *		payload codec and the summary file reader.
 *		The first input byte picks the entry point; the rest is the data:
 *		  0  one frame payload through pgwt_tf_second_decode (an exact-size
 *		     copy, so ASan sees any read past it); a decoded second must
 *		     encode within pgwt_tf_second_encoded_max and decode again to
 *		     the same second
 *		  1  a whole archived summary file through the reader, with a time
 *		     range and a frame filter taken from the input
 *		  2  a live current.trace.sum with its .meta text from the input
 *		Every second handed out must keep the promises of summary.h:
 *		indexes inside their tables, stats that add up, cover inside the
 *		second, crossings that began before it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefmt/summary.h"

static char fz_dir[4096];

static void
fz_check_stat(const pgwt_tf_sum_stat *st)
{
	if (st->max_ns > st->completed_ns || (st->waits == 0 && st->completed_ns) ||
		(st->samples == 0 && st->sampled_ns))
		__builtin_trap();
}

static void
fz_check_second(const pgwt_tf_second *s)
{
	uint32_t	i;

	if (s->span_ns != ((s->flags & PGWT_TF_SUM_F_MINUTE) ? PGWT_TF_SUM_MINUTE_NS : PGWT_TF_SUM_SECOND_NS) ||
		s->sec_ts % s->span_ns != 0 || (s->flags & ~PGWT_TF_SUM_F_ALL))
		__builtin_trap();
	if (s->cover_lo <= s->cover_hi && s->cover_hi > s->sec_ts + s->span_ns)
		__builtin_trap();
	fz_check_stat(&s->other_event);
	fz_check_stat(&s->other_pid_event);
	fz_check_stat(&s->other_query_event);
	for (i = 0; i < s->nevents; i++)
		fz_check_stat(&s->events[i].st);
	for (i = 0; i < s->npids; i++)
		if (s->pids[i].flags & ~PGWT_TF_SUM_PID_EXITED)
			__builtin_trap();
	for (i = 0; i < s->npid_events; i++)
	{
		const pgwt_tf_sum_pair *p = &s->pid_events[i];

		if (p->key_index >= s->npids || p->event_index >= s->nevents ||
			p->key != s->pids[p->key_index].pid || p->event != s->events[p->event_index].event)
			__builtin_trap();
		fz_check_stat(&p->st);
	}
	for (i = 0; i < s->nquery_events; i++)
	{
		const pgwt_tf_sum_pair *p = &s->query_events[i];

		if (p->key_index >= s->nqueries || p->event_index >= s->nevents ||
			p->key != s->queries[p->key_index] || p->event != s->events[p->event_index].event)
			__builtin_trap();
		fz_check_stat(&p->st);
	}
	for (i = 0; i < s->ncrossings; i++)
		if (s->crossings[i].ns == 0 || s->crossings[i].ns > s->sec_ts)
			__builtin_trap();
}

#define FZ_SAME(a, b, n) ((n) == 0 || memcmp((a), (b), (n) * sizeof(*(a))) == 0)

/* Two decoded seconds hold the same values (structs with padding are
 * compared field by field). */
static bool
fz_same(const pgwt_tf_second *a, const pgwt_tf_second *b)
{
	uint32_t	i;

	if (a->sec_ts != b->sec_ts || a->flags != b->flags || a->span_ns != b->span_ns ||
		memcmp(&a->c, &b->c, sizeof(a->c)) != 0 || a->cover_lo != b->cover_lo ||
		a->cover_hi != b->cover_hi ||
		memcmp(&a->other_event, &b->other_event, sizeof(a->other_event)) != 0 ||
		memcmp(&a->other_pid_event, &b->other_pid_event, sizeof(a->other_pid_event)) != 0 ||
		memcmp(&a->other_query_event, &b->other_query_event, sizeof(a->other_query_event)) != 0 ||
		a->nevents != b->nevents || a->npids != b->npids || a->nqueries != b->nqueries ||
		a->npid_events != b->npid_events || a->nquery_events != b->nquery_events ||
		a->ncrossings != b->ncrossings)
		return false;
	if (!FZ_SAME(a->queries, b->queries, a->nqueries))
		return false;
	for (i = 0; i < a->nevents; i++)
	{
		const pgwt_tf_sum_event *x = &a->events[i],
				   *y = &b->events[i];

		if (x->event != y->event || memcmp(&x->st, &y->st, sizeof(x->st)) != 0 ||
			x->superseded_ns != y->superseded_ns || x->superseded_samples != y->superseded_samples ||
			memcmp(x->hist_us, y->hist_us, sizeof(x->hist_us)) != 0 ||
			memcmp(x->hist_ns, y->hist_ns, sizeof(x->hist_ns)) != 0)
			return false;
	}
	for (i = 0; i < a->npids; i++)
		if (a->pids[i].pid != b->pids[i].pid || a->pids[i].flags != b->pids[i].flags)
			return false;
	for (i = 0; i < a->npid_events + a->nquery_events; i++)
	{
		const pgwt_tf_sum_pair *x = i < a->npid_events ? &a->pid_events[i] : &a->query_events[i - a->npid_events];
		const pgwt_tf_sum_pair *y = i < a->npid_events ? &b->pid_events[i] : &b->query_events[i - a->npid_events];

		if (x->key != y->key || x->event != y->event || x->key_index != y->key_index ||
			x->event_index != y->event_index || memcmp(&x->st, &y->st, sizeof(x->st)) != 0)
			return false;
	}
	for (i = 0; i < a->ncrossings; i++)
		if (a->crossings[i].pid != b->crossings[i].pid || a->crossings[i].event != b->crossings[i].event ||
			a->crossings[i].query_id != b->crossings[i].query_id || a->crossings[i].ns != b->crossings[i].ns)
			return false;
	return true;
}

static void
fz_payload(const uint8_t *d, size_t n)
{
	uint8_t    *copy = malloc(n ? n : 1),
			   *enc = NULL;
	pgwt_tf_second_buf a,
				b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!copy)
		return;
	memcpy(copy, d, n);
	if (pgwt_tf_second_decode(copy, n, &a) == 0)
	{
		size_t		max = pgwt_tf_second_encoded_max(&a.s),
					len;

		fz_check_second(&a.s);
		if ((enc = malloc(max)) != NULL)
		{
			len = pgwt_tf_second_encode(&a.s, enc);
			if (len > max || pgwt_tf_second_decode(enc, len, &b) != 0 || !fz_same(&a.s, &b.s))
				__builtin_trap();
		}
	}
	free(enc);
	free(copy);
	pgwt_tf_second_buf_free(&a);
	pgwt_tf_second_buf_free(&b);
}

static int
fz_write_file(const char *path, const uint8_t *d, size_t n)
{
	int			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool		ok;

	if (fd < 0)
		return -1;
	ok = n == 0 || write(fd, d, n) == (ssize_t) n;
	close(fd);
	return ok ? 0 : -1;
}

/* A filter that keeps about half the frames, by their header. */
static bool
fz_filter(uint64_t sec_ts, uint64_t span_ns, uint64_t reach_ns, void *arg)
{
	unsigned	salt = *(const unsigned *) arg;

	return ((sec_ts / span_ns + reach_ns / 1000000 + salt) & 1) == 0;
}

static void
fz_file(const uint8_t *d, size_t n, bool live)
{
	char		path[4200],
				meta[4300];
	pgwt_tf_sum_reader *r;
	const pgwt_tf_second *s;
	uint64_t	t_start = 0,
				t_end = UINT64_MAX;
	unsigned	salt = 0;
	bool		filter = false;
	int			rc,
				guard;

	if (n < 2)
		return;
	/* byte 0: range and filter; live: then a meta length and its text */
	if (d[0] & 1)
	{
		t_start = (uint64_t) (d[0] >> 4) * PGWT_TF_SUM_SECOND_NS;
		t_end = t_start + (uint64_t) (d[1] + 1) * PGWT_TF_SUM_SECOND_NS;
	}
	filter = d[0] & 2;
	salt = d[0] >> 2;
	d++;
	n--;
	if (live)
	{
		size_t		mlen = d[0] % 33;

		if (n < 1 + mlen)
			return;
		snprintf(path, sizeof(path), "%s/%s%s", fz_dir, PGWT_TF_CURRENT_NAME, PGWT_TF_SUM_SUFFIX);
		snprintf(meta, sizeof(meta), "%s%s", path, PGWT_TF_META_SUFFIX);
		if (fz_write_file(meta, d + 1, mlen) < 0)
			return;
		d += 1 + mlen;
		n -= 1 + mlen;
	}
	else
		snprintf(path, sizeof(path), "%s/20260101T000000Z%s%s", fz_dir, PGWT_TF_ARCHIVE_SUFFIX,
				 PGWT_TF_SUM_SUFFIX);
	if (fz_write_file(path, d, n) == 0 &&
		pgwt_tf_sum_reader_open(live ? fz_dir : path, t_start, t_end, &r) == 0)
	{
		if (filter)
			pgwt_tf_sum_reader_set_filter(r, fz_filter, &salt);
		for (guard = 0; guard < 100000 && (rc = pgwt_tf_sum_reader_next(r, &s)) == 1; guard++)
		{
			fz_check_second(s);
			if (s->sec_ts < t_start || s->sec_ts > t_end)
				__builtin_trap();
		}
		if (guard == 100000)
			__builtin_trap();	/* more frames than bytes allow */
		pgwt_tf_sum_reader_close(r);
	}
	unlink(path);
	if (live)
		unlink(meta);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	switch (d[0] % 3)
	{
		case 0:
			fz_payload(d + 1, n - 1);
			break;
		case 1:
			fz_file(d + 1, n - 1, false);
			break;
		default:
			fz_file(d + 1, n - 1, true);
			break;
	}
	return 0;
}

static void
fz_cleanup(void)
{
	rmdir(fz_dir);				/* every run unlinks its files */
}

/* Scratch files: a fresh directory under $PGWT_FUZZ_DIR, else /dev/shm
 * (as fuzz_reader does). */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = getenv("PGWT_FUZZ_DIR");

	snprintf(fz_dir, sizeof(fz_dir), "%s/pgwt-fuzz-sum.XXXXXX", base ? base : "/dev/shm");
	if (!mkdtemp(fz_dir))
	{
		snprintf(fz_dir, sizeof(fz_dir), "/tmp/pgwt-fuzz-sum.XXXXXX");
		if (!mkdtemp(fz_dir))
			abort();
	}
	atexit(fz_cleanup);
	return 0;
}
