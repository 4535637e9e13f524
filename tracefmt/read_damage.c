/*
 * read_damage.c
 *		The one rule for what a reader counts as damaged input, and the
 *		one sentence that reports it, for every tool that reads traces
 *		(pgwt-dump, pg_wait_tracer --replay): nothing is skipped in
 *		silence. Pure.
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
