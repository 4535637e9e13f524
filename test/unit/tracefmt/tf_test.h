/*
 * tf_test.h
 *		A minimal test harness for the tracefmt unit tests: each TEST
 *		prints one "PASS name" or "FAIL name: why" line (the format of
 *		test/run), and main returns non-zero when anything failed.
 *		Also a few helpers to build records and scratch directories.
 */
#ifndef TF_TEST_H
#define TF_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefmt/tracefmt.h"

#define TFT_UNUSED __attribute__((unused))

static int	tft_failures;
static int	tft_current_failed;
static const char *tft_current;

static TFT_UNUSED void
tft_fail(const char *file, int line, const char *fmt, ...)
{
	va_list		ap;

	if (tft_current_failed)
		return;					/* one line per test */
	tft_current_failed = 1;
	printf("FAIL %s: %s:%d: ", tft_current, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define CHECK(cond) do { if (!(cond)) { tft_fail(__FILE__, __LINE__, "%s", #cond); return; } } while (0)
#define CHECKF(cond, ...) do { if (!(cond)) { tft_fail(__FILE__, __LINE__, __VA_ARGS__); return; } } while (0)
#define CHECK_RC(expr) do { int rc_ = (expr); if (rc_ < 0) { tft_fail(__FILE__, __LINE__, "%s = %s", #expr, pgwt_tf_strerror(rc_)); return; } } while (0)

#define RUN(fn) do { \
	tft_current = #fn; tft_current_failed = 0; \
	fn(); \
	if (tft_current_failed) tft_failures++; \
	else printf("PASS %s\n", #fn); \
	fflush(stdout); \
} while (0)

/* A fresh scratch directory under TMPDIR, removed by tft_rmdir. */
static TFT_UNUSED void
tft_mkdtemp(char *buf, size_t len)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, len, "%s/tftest.XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(buf))
	{
		perror("mkdtemp");
		exit(2);
	}
}

static TFT_UNUSED void
tft_rmdir(const char *dir)
{
	char		cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static TFT_UNUSED pgwt_record
tft_transition(uint64_t ts, uint32_t pid, uint32_t old_ev, uint32_t new_ev,
			   uint64_t dur, uint64_t qid, uint64_t cpu)
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
	r.cpu_ns = cpu;
	return r;
}

static TFT_UNUSED pgwt_record
tft_sample(uint64_t ts, uint32_t pid, uint32_t ev, uint64_t qid, uint64_t weight)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_SAMPLE;
	r.ts_ns = ts;
	r.pid = pid;
	r.new_event = ev;
	r.query_id = qid;
	r.weight_ns = weight;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return r;
}

/* Field-by-field equality (padding bytes are not compared). */
static TFT_UNUSED int
tft_rec_eq(const pgwt_record *a, const pgwt_record *b)
{
	return a->kind == b->kind && a->ts_ns == b->ts_ns && a->pid == b->pid &&
		a->old_event == b->old_event && a->new_event == b->new_event &&
		a->duration_ns == b->duration_ns && a->query_id == b->query_id &&
		a->cpu_ns == b->cpu_ns && a->weight_ns == b->weight_ns;
}

/* Deterministic PRNG for tests (xorshift64*). */
static TFT_UNUSED uint64_t
tft_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* An injected clock (pgwt_tf_clock) that a test moves by hand. */
static TFT_UNUSED uint64_t tft_now_rt;
static TFT_UNUSED uint64_t tft_now_mono;

static TFT_UNUSED uint64_t
tft_clk_rt(void *arg)
{
	(void) arg;
	return tft_now_rt;
}

static TFT_UNUSED uint64_t
tft_clk_mono(void *arg)
{
	(void) arg;
	return tft_now_mono;
}

#define TFT_END() (tft_failures ? 1 : 0)

#endif
