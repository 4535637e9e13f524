/*
 * timeparse.c
 *		Time argument parsing (see timeparse.h). Pure except that a local
 *		time without a zone goes through mktime() and thus TZ. A time
 *		must fit the signed 64-bit nanosecond count of CLOCK_REALTIME
 *		after the epoch (1970-01-01 to 2262-04-11T23:47:16.854775807Z);
 *		anything else is an error, checked before it is multiplied.
 */
#include "analysis/timeparse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS_PER_S 1000000000ull

bool
pgwt_parse_duration(const char *text, uint64_t *ns, char *err, size_t errlen)
{
	const char *p = text;
	uint64_t	total = 0;

	if (!text || !*text)
	{
		snprintf(err, errlen, "empty duration");
		return false;
	}
	while (*p)
	{
		uint64_t	v = 0,
					unit;
		int			digits = 0;

		while (isdigit((unsigned char) *p))
		{
			if (v > (UINT64_MAX - 9) / 10)
			{
				snprintf(err, errlen, "duration '%s' is too large", text);
				return false;
			}
			v = v * 10 + (uint64_t) (*p++ - '0');
			digits++;
		}
		if (digits == 0)
		{
			snprintf(err, errlen, "bad duration '%s': expected a number at '%s'", text, p);
			return false;
		}
		if (strncmp(p, "ms", 2) == 0)
		{
			unit = NS_PER_S / 1000;
			p += 2;
		}
		else if (*p == 's')
			unit = NS_PER_S, p++;
		else if (*p == 'm')
			unit = 60 * NS_PER_S, p++;
		else if (*p == 'h')
			unit = 3600 * NS_PER_S, p++;
		else if (*p == 'd')
			unit = 86400 * NS_PER_S, p++;
		else
		{
			snprintf(err, errlen, "bad duration '%s': unit must be ms, s, m, h or d", text);
			return false;
		}
		if (v > (UINT64_MAX - total) / unit)
		{
			snprintf(err, errlen, "duration '%s' is too large", text);
			return false;
		}
		total += v * unit;
	}
	*ns = total;
	return true;
}

/* Exactly n digits into *v. */
static bool
tp_digits(const char **p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++)
	{
		if (!isdigit((unsigned char) (*p)[i]))
			return false;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return true;
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t
tp_days_from_civil(int64_t y, int m, int d)
{
	int64_t		era;
	unsigned	yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned) (y - era * 400);
	doy = (unsigned) ((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t) doe - 719468;
}

/* Seconds and a fraction since the epoch into ns, or an error. */
static bool
tp_to_ns(int64_t secs, int64_t frac_ns, const char *text, int64_t *out_ns,
		 char *err, size_t errlen)
{
	if (secs < 0)
	{
		snprintf(err, errlen, "bad time '%s': before the epoch", text);
		return false;
	}
	if (secs > (INT64_MAX - frac_ns) / (int64_t) NS_PER_S)
	{
		snprintf(err, errlen,
				 "bad time '%s': after 2262-04-11T23:47:16Z (nanoseconds since 1970 overflow 64 bits)",
				 text);
		return false;
	}
	*out_ns = secs * (int64_t) NS_PER_S + frac_ns;
	return true;
}

static bool
tp_parse_absolute(const char *text, int64_t *out_ns, char *err, size_t errlen)
{
	const char *p = text;
	int			y,
				mo,
				d,
				h,
				mi,
				s = 0;
	int64_t		frac_ns = 0;
	bool		has_zone = false;
	int			zone_s = 0;
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (!tp_digits(&p, 4, &y) || *p++ != '-' || !tp_digits(&p, 2, &mo) || *p++ != '-' ||
		!tp_digits(&p, 2, &d) || (*p != 'T' && *p != ' ') || (p++, !tp_digits(&p, 2, &h)) ||
		*p++ != ':' || !tp_digits(&p, 2, &mi))
		goto bad;
	if (*p == ':')
	{
		p++;
		if (!tp_digits(&p, 2, &s))
			goto bad;
		if (*p == '.')
		{
			int64_t		scale = 100000000;

			p++;
			if (!isdigit((unsigned char) *p))
				goto bad;
			while (isdigit((unsigned char) *p))
			{
				frac_ns += (*p++ - '0') * scale;
				scale /= 10;
			}
		}
	}
	if (*p == 'Z')
	{
		has_zone = true;
		p++;
	}
	else if (*p == '+' || *p == '-')
	{
		int			sign = *p++ == '-' ? -1 : 1,
					zh,
					zm;

		if (!tp_digits(&p, 2, &zh) || *p++ != ':' || !tp_digits(&p, 2, &zm) || zh > 23 || zm > 59)
			goto bad;
		has_zone = true;
		zone_s = sign * (zh * 3600 + zm * 60);
	}
	if (*p != '\0')
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
		(mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) ||
		h > 23 || mi > 59 || s > 60)
	{
		snprintf(err, errlen, "bad time '%s': no such date or time of day", text);
		return false;
	}
	if (has_zone)
	{
		int64_t		secs = tp_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - zone_s;

		return tp_to_ns(secs, frac_ns, text, out_ns, err, errlen);
	}
	else
	{
		struct tm	tm = {0};
		time_t		t;

		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_min = mi;
		tm.tm_sec = s;
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (t == (time_t) -1)
		{
			snprintf(err, errlen, "bad time '%s': not representable in the local time zone", text);
			return false;
		}
		return tp_to_ns((int64_t) t, frac_ns, text, out_ns, err, errlen);
	}
bad:
	snprintf(err, errlen,
			 "bad time '%s': expected YYYY-MM-DDTHH:MM[:SS], a duration ago like 1h or 2h30m, or 'now'",
			 text);
	return false;
}

bool
pgwt_parse_time(const char *text, int64_t now_ns, int64_t *out_ns, char *err, size_t errlen)
{
	uint64_t	ago;

	if (!text || !*text)
	{
		snprintf(err, errlen, "empty time");
		return false;
	}
	if (strcmp(text, "now") == 0)
	{
		*out_ns = now_ns;
		return true;
	}
	if (isdigit((unsigned char) text[0]) && strlen(text) >= 10 && text[4] == '-')
		return tp_parse_absolute(text, out_ns, err, errlen);
	if (!pgwt_parse_duration(text, &ago, err, errlen))
	{
		snprintf(err, errlen,
				 "bad time '%s': expected YYYY-MM-DDTHH:MM[:SS], a duration ago like 1h or 2h30m, or 'now'",
				 text);
		return false;
	}
	if (ago > (uint64_t) INT64_MAX || (int64_t) ago > now_ns)
	{
		snprintf(err, errlen, "bad time '%s': before the epoch", text);
		return false;
	}
	*out_ns = now_ns - (int64_t) ago;
	return true;
}

int
pgwt_parse_duration_list(const char *text, uint64_t *ns, int max, char *err, size_t errlen)
{
	char		item[64];
	const char *p = text;
	int			n = 0;

	if (!text || !*text)
	{
		snprintf(err, errlen, "empty window list");
		return -1;
	}
	for (;;)
	{
		const char *comma = strchr(p, ',');
		size_t		len = comma ? (size_t) (comma - p) : strlen(p);

		if (len == 0 || len >= sizeof(item))
		{
			snprintf(err, errlen, "bad window list '%s'", text);
			return -1;
		}
		if (n == max)
		{
			snprintf(err, errlen, "bad window list '%s': at most %d windows", text, max);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (!pgwt_parse_duration(item, &ns[n], err, errlen))
			return -1;
		if (ns[n] == 0 || (n > 0 && ns[n] <= ns[n - 1]))
		{
			snprintf(err, errlen, "bad window list '%s': windows must be non-zero and increasing", text);
			return -1;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return n;
}
