/*
 * read_damage.c
 *		The one rule for what a reader counts as damaged input, and the
 *		one sentence that reports it, for every tool that reads traces
 *		(pgwt-dump, pg_wait_tracer --replay): nothing is skipped in
 *		silence, neither a block nor a side file's line. Pure.
 */
#include <stdio.h>

#include "tracefmt/tracefmt.h"

bool
pgwt_tf_read_damaged(const pgwt_tf_read_stats *rs)
{
	return rs->blocks_bad > 0 || rs->files_bad > 0 || rs->bytes_truncated > 0;
}

int
pgwt_tf_read_damage_text(const pgwt_tf_read_stats *rs, char *buf, size_t len)
{
	return snprintf(buf, len,
					"damaged input: %llu blocks read, %llu bad blocks skipped, "
					"%llu unreadable files, %llu bytes truncated",
					(unsigned long long) rs->blocks, (unsigned long long) rs->blocks_bad,
					(unsigned long long) rs->files_bad,
					(unsigned long long) rs->bytes_truncated);
}

bool
pgwt_tf_side_damaged(const pgwt_tf_side_damage *sd)
{
	return pgwt_tf_side_bad_total(sd) > 0;
}

/* Lines not used, a names file that did not parse counting as one. */
uint64_t
pgwt_tf_side_bad_total(const pgwt_tf_side_damage *sd)
{
	return sd->names_bad + (sd->names_unreadable ? 1 : 0) + sd->backends_bad + sd->queries_bad;
}

/* Only the files that had damage are named. */
int
pgwt_tf_side_damage_text(const pgwt_tf_side_damage *sd, char *buf, size_t len)
{
	int			n = snprintf(buf, len, "damaged side files:");
	const char *sep = "";

	if (n >= 0 && (size_t) n < len && (sd->names_bad || sd->names_unreadable))
	{
		n += snprintf(buf + n, len - (size_t) n, " %llu event-name line(s) not used%s",
					  (unsigned long long) sd->names_bad,
					  sd->names_unreadable ? " (the names file unreadable)" : "");
		sep = ",";
	}
	if (n >= 0 && (size_t) n < len && sd->backends_bad)
	{
		n += snprintf(buf + n, len - (size_t) n, "%s %llu backend line(s) bad", sep,
					  (unsigned long long) sd->backends_bad);
		sep = ",";
	}
	if (n >= 0 && (size_t) n < len && sd->queries_bad)
		n += snprintf(buf + n, len - (size_t) n, "%s %llu query-text line(s) bad", sep,
					  (unsigned long long) sd->queries_bad);
	if (n >= 0 && (size_t) n < len)
		n += snprintf(buf + n, len - (size_t) n, ", skipped");
	return n;
}
