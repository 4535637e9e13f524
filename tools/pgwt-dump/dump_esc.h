/*
 * dump_esc.h
 *		Escalation windows already open where a raw read begins (dump_esc.c).
 */
#ifndef PGWT_DUMP_ESC_H
#define PGWT_DUMP_ESC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

typedef struct dump_esc_stats
{
	bool		by_summary;		/* the summaries answered: nothing open */
	bool		scanned;		/* the preceding hour's records were read */
	uint64_t	records;		/* transition records looked at */
} dump_esc_stats;

/*
 * Is an escalation window open just before from_rt (CLOCK_REALTIME ns)?
 * 1: yes, *start is its ESC_START with a realtime ts; 0: no; < 0: the
 * trace could not be read (pgwt_tf_strerror). rt_minus_mono maps the
 * summaries' monotonic seconds (the first file's offset).
 */
extern int	dump_esc_open_at(const char *path, uint64_t from_rt, int64_t rt_minus_mono,
							 pgwt_record *start, dump_esc_stats *st);

#endif
