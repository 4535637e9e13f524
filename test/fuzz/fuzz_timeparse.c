/*
 * fuzz_timeparse.c
 *		libFuzzer target for the time arguments users type (--from, --to,
 *		--window): pgwt_parse_time, pgwt_parse_duration and
 *		pgwt_parse_duration_list on arbitrary text.
 *
 * Input: 8 bytes of "now" (masked to a non-negative CLOCK_REALTIME), the
 * rest is the text. Beyond "no crash, no sanitizer report": an error is
 * a terminated message (it quotes the text as typed); a time is never
 * before the epoch, nor after now for a duration ago; an absolute UTC
 * time without a fraction or leap second reads back through gmtime_r as
 * the same date and time; a window list is at most max windows, non-zero
 * and increasing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/timeparse.h"

#define FZ_WINDOWS	8

static void
fz_check_err(const char *err, size_t cap)
{
	size_t		n = strnlen(err, cap);

	if (n == 0 || n == cap)
		__builtin_trap();
}

/* "YYYY-MM-DDTHH:MM:SSZ" read back through gmtime_r. */
static void
fz_check_utc(const char *text, int64_t t)
{
	struct tm	tm;
	time_t		secs = (time_t) (t / 1000000000);
	char		back[32];

	if (strlen(text) != 20 || text[19] != 'Z' || text[10] != 'T' ||
		strncmp(text + 17, "60", 2) == 0 || t % 1000000000 != 0)
		return;
	if (!gmtime_r(&secs, &tm))
		__builtin_trap();
	snprintf(back, sizeof(back), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (strcmp(back, text) != 0)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char	   *text;
	char		err[256];
	int64_t		now = 0,
				t;
	uint64_t	ns,
				w[FZ_WINDOWS];
	int			k,
				i;

	if (n < 8)
		return 0;
	for (i = 0; i < 8; i++)
		now = (int64_t) (((uint64_t) now << 8) | d[i]);
	now &= INT64_MAX;
	text = malloc(n - 8 + 1);
	if (!text)
		return 0;
	memcpy(text, d + 8, n - 8);
	text[n - 8] = '\0';

	memset(err, 0, sizeof(err));
	if (pgwt_parse_time(text, now, &t, err, sizeof(err)))
	{
		if (t < 0)
			__builtin_trap();
		if (text[0] != '\0' && strchr("0123456789", text[0]) && strlen(text) >= 10 && text[4] == '-')
			fz_check_utc(text, t);
		else if (strcmp(text, "now") != 0 && t > now)
			__builtin_trap();	/* a duration ago */
	}
	else
		fz_check_err(err, sizeof(err));

	memset(err, 0, sizeof(err));
	if (!pgwt_parse_duration(text, &ns, err, sizeof(err)))
		fz_check_err(err, sizeof(err));

	memset(err, 0, sizeof(err));
	k = pgwt_parse_duration_list(text, w, 1 + d[0] % FZ_WINDOWS, err, sizeof(err));
	if (k < 0)
		fz_check_err(err, sizeof(err));
	else if (k == 0 || k > 1 + d[0] % FZ_WINDOWS)
		__builtin_trap();
	else
		for (i = 0; i < k; i++)
			if (w[i] == 0 || (i > 0 && w[i] <= w[i - 1]))
				__builtin_trap();
	free(text);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* a zone with daylight saving, without needing tzdata */
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	return 0;
}
