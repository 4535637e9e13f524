/*
 * naming.c
 *		Pure policy of the trace directory: archive file names (hour of the
 *		file's start, collision sequence) and which archives retention
 *		removes. No I/O, so both are unit-tested with made-up clocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracefmt/tracefmt.h"

int
pgwt_tf_archive_name(uint64_t realtime_ns, bool local_time, unsigned seq,
					 char *buf, size_t len)
{
	time_t		t = (time_t) (realtime_ns / 1000000000ull);
	struct tm	tm;
	int			w;

	if ((local_time ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) == NULL)
		return -PGWT_TF_INVAL;
	if (seq > 0)
		w = snprintf(buf, len, "%04d-%02d-%02d_%02d.%u%s", tm.tm_year + 1900,
					 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, seq, PGWT_TF_ARCHIVE_SUFFIX);
	else
		w = snprintf(buf, len, "%04d-%02d-%02d_%02d%s", tm.tm_year + 1900,
					 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, PGWT_TF_ARCHIVE_SUFFIX);
	if (w < 0 || (size_t) w >= len)
		return -PGWT_TF_INVAL;
	return 0;
}

/* Reads exactly ndigits decimal digits. */
static bool
tf_digits(const char **pp, int ndigits, int *out)
{
	const char *p = *pp;
	int			v = 0;
	int			i;

	for (i = 0; i < ndigits; i++, p++)
	{
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	*pp = p;
	return true;
}

int
pgwt_tf_archive_parse(const char *name, bool local_time, int64_t *hour_epoch_s,
					  unsigned *seq)
{
	const char *p = name;
	struct tm	tm;
	int			y, mo, d, h;
	unsigned long s = 0;
	time_t		t;

	memset(&tm, 0, sizeof(tm));
	if (!tf_digits(&p, 4, &y) || *p++ != '-' || !tf_digits(&p, 2, &mo) ||
		*p++ != '-' || !tf_digits(&p, 2, &d) || *p++ != '_' || !tf_digits(&p, 2, &h))
		return -PGWT_TF_INVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23)
		return -PGWT_TF_INVAL;
	if (*p == '.' && p[1] >= '1' && p[1] <= '9')
	{
		char	   *end;

		s = strtoul(p + 1, &end, 10);
		if (s > 1000000)
			return -PGWT_TF_INVAL;
		p = end;
	}
	if (strcmp(p, PGWT_TF_ARCHIVE_SUFFIX) != 0)
		return -PGWT_TF_INVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	if (local_time)
	{
		tm.tm_isdst = -1;
		t = mktime(&tm);
	}
	else
		t = timegm(&tm);
	if (t == (time_t) -1)
		return -PGWT_TF_INVAL;
	*hour_epoch_s = (int64_t) t;
	*seq = (unsigned) s;
	return 0;
}

static int
tf_archive_cmp(const void *a, const void *b)
{
	const pgwt_tf_archive *x = a,
			   *y = b;

	if (x->hour_epoch_s != y->hour_epoch_s)
		return x->hour_epoch_s < y->hour_epoch_s ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t
pgwt_tf_retention_select(pgwt_tf_archive *a, bool *del, size_t n, int64_t now_s,
						 uint32_t retention_hours, uint64_t retention_bytes,
						 uint64_t live_bytes)
{
	uint64_t	total = live_bytes;
	size_t		marked = 0;
	size_t		i;

	if (n > 1)
		qsort(a, n, sizeof(*a), tf_archive_cmp);
	for (i = 0; i < n; i++)
	{
		/* an hour's archive ages from the end of that hour */
		int64_t		end = a[i].hour_epoch_s + 3600;

		del[i] = retention_hours > 0 &&
			now_s - end > (int64_t) retention_hours * 3600;
		if (del[i])
			marked++;
		else
			total += a[i].size;
	}
	if (retention_bytes > 0)
		for (i = 0; i < n && total > retention_bytes; i++)
		{
			if (del[i])
				continue;
			del[i] = true;
			total -= a[i].size;
			marked++;
		}
	return marked;
}
