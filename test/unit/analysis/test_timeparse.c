/*
 * test_timeparse.c
 *		Time arguments: absolute, relative, now, windows, and the errors.
 */
#include "analysis/timeparse.h"
#include "unit.h"

#include <stdlib.h>
#include <time.h>

#define S 1000000000ll

static void
test_durations(void)
{
	uint64_t	ns;
	char		err[200];

	EXPECT(pgwt_parse_duration("90s", &ns, err, sizeof(err)) && ns == 90 * S);
	EXPECT(pgwt_parse_duration("30m", &ns, err, sizeof(err)) && ns == 1800 * S);
	EXPECT(pgwt_parse_duration("1h", &ns, err, sizeof(err)) && ns == 3600 * S);
	EXPECT(pgwt_parse_duration("2h30m", &ns, err, sizeof(err)) && ns == 9000 * S);
	EXPECT(pgwt_parse_duration("1d", &ns, err, sizeof(err)) && ns == 86400 * S);
	EXPECT(pgwt_parse_duration("250ms", &ns, err, sizeof(err)) && ns == 250000000);
	EXPECT(!pgwt_parse_duration("", &ns, err, sizeof(err)));
	EXPECT(!pgwt_parse_duration("h", &ns, err, sizeof(err)));
	EXPECT(!pgwt_parse_duration("10x", &ns, err, sizeof(err)));
	EXPECT(strstr(err, "unit") != NULL);
	EXPECT(!pgwt_parse_duration("5", &ns, err, sizeof(err)));
	EXPECT(!pgwt_parse_duration("99999999999999999999s", &ns, err, sizeof(err)));
	EXPECT(!pgwt_parse_duration("-5s", &ns, err, sizeof(err)));
}

static void
test_times(void)
{
	int64_t		now = 1772029800ll * S;	/* 2026-02-25T14:30:00Z */
	int64_t		t;
	char		err[200];

	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT(pgwt_parse_time("now", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("1h", now, &t, err, sizeof(err)) && t == now - 3600 * S);
	EXPECT(pgwt_parse_time("2h30m", now, &t, err, sizeof(err)) && t == now - 9000 * S);
	EXPECT(pgwt_parse_time("2026-02-25T14:30:00", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("2026-02-25 14:30:00", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("2026-02-25T14:30", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("2026-02-25T14:30:00Z", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("2026-02-25T16:30:00+02:00", now, &t, err, sizeof(err)) && t == now);
	EXPECT(pgwt_parse_time("2026-02-25T14:30:00.25Z", now, &t, err, sizeof(err)) && t == now + S / 4);
	EXPECT(pgwt_parse_time("1970-01-01T00:00:00Z", now, &t, err, sizeof(err)) && t == 0);
	EXPECT(pgwt_parse_time("2024-02-29T00:00:00Z", now, &t, err, sizeof(err)) && t == 1709164800ll * S);
	/* local time follows TZ */
	setenv("TZ", "EST5", 1);
	tzset();
	EXPECT(pgwt_parse_time("2026-02-25T09:30:00", now, &t, err, sizeof(err)) && t == now);
	setenv("TZ", "UTC", 1);
	tzset();
	/* errors */
	EXPECT(!pgwt_parse_time("2026-02-30T00:00:00", now, &t, err, sizeof(err)));
	EXPECT(strstr(err, "no such date") != NULL);
	EXPECT(!pgwt_parse_time("2025-02-29T00:00:00", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("2026-02-25T24:00:00", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("2026-02-25X14:30:00", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("2026-02-25T14:30:00junk", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("yesterday", now, &t, err, sizeof(err)));
	EXPECT(strstr(err, "yesterday") != NULL);
	EXPECT(!pgwt_parse_time("", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("100000d", 5, &t, err, sizeof(err)));
}

/* The range of a signed 64-bit ns count since the epoch: past it, a clean
 * error (the product used to overflow, undefined behaviour). */
static void
test_time_range(void)
{
	int64_t		now = 1772029800ll * S;
	int64_t		t;
	char		err[200];

	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT(pgwt_parse_time("2262-04-11T23:47:16Z", now, &t, err, sizeof(err)) &&
		   t == 9223372036ll * S);
	EXPECT(pgwt_parse_time("2262-04-11T23:47:16.854775807Z", now, &t, err, sizeof(err)) &&
		   t == INT64_MAX);
	EXPECT(!pgwt_parse_time("2262-04-11T23:47:16.854775808Z", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("2262-04-11T23:47:17Z", now, &t, err, sizeof(err)));
	EXPECT(strstr(err, "after 2262") != NULL);
	EXPECT(!pgwt_parse_time("2263-01-01T00:00:00Z", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("9999-12-31T23:59:59.999999999Z", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("9999-12-31T23:59:59-23:59", now, &t, err, sizeof(err)));
	/* local time, through mktime */
	EXPECT(!pgwt_parse_time("9999-12-31T23:59:59", now, &t, err, sizeof(err)));
	EXPECT(strstr(err, "after 2262") != NULL);
	EXPECT(!pgwt_parse_time("0000-01-01T00:00:00Z", now, &t, err, sizeof(err)));
	EXPECT(strstr(err, "before the epoch") != NULL);
	EXPECT(!pgwt_parse_time("0000-01-01T00:00:00", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("1969-12-31T23:59:59Z", now, &t, err, sizeof(err)));
	EXPECT(!pgwt_parse_time("1970-01-01T00:00:00+00:01", now, &t, err, sizeof(err)));
	EXPECT(pgwt_parse_time("1970-01-01T00:00:00-00:01", now, &t, err, sizeof(err)) && t == 60 * S);
}

static void
test_window_lists(void)
{
	uint64_t	w[8];
	char		err[200];

	EXPECT(pgwt_parse_duration_list("5s,1m,5m", w, 8, err, sizeof(err)) == 3);
	EXPECT(w[0] == 5 * S && w[1] == 60 * S && w[2] == 300 * S);
	EXPECT(pgwt_parse_duration_list("1m,5s", w, 8, err, sizeof(err)) == -1);
	EXPECT(pgwt_parse_duration_list("5s,,1m", w, 8, err, sizeof(err)) == -1);
	EXPECT(pgwt_parse_duration_list("1s,2s,3s", w, 2, err, sizeof(err)) == -1);
	EXPECT(pgwt_parse_duration_list("0s", w, 8, err, sizeof(err)) == -1);
	EXPECT(pgwt_parse_duration_list("", w, 8, err, sizeof(err)) == -1);
}

int
main(void)
{
	RUN(test_durations);
	RUN(test_times);
	RUN(test_time_range);
	RUN(test_window_lists);
	return unit_failures ? 1 : 0;
}
