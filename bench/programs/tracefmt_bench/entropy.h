/*
 * entropy.h
 *		The tracefmt_entropy arm: how many bits per event the fields of a
 *		TRANSITIONS trace carry once v6 has predicted them (entropy.c).
 */
#ifndef PGWT_BENCH_ENTROPY_H
#define PGWT_BENCH_ENTROPY_H

#include <stdint.h>

#include "tracefmt/record.h"

typedef struct entropy_acc entropy_acc;

/* Per-field figures in bits per event (events = TRANSITIONS records). */
typedef struct entropy_result
{
	uint64_t	events;
	double		ts_h0;			/* order-0 entropy of the exact ts deltas */
	double		ts_log;			/* log-bucket symbol entropy + raw low bits */
	double		code_h0;		/* the v6 code byte */
	double		exc_h0;			/* exception values, each column order-0 */
	double		tables;			/* pid/event/query table entries (raw bits) */
} entropy_result;

/* quantum: every instant of the trace is a multiple of it (1 = ns) */
extern entropy_acc *entropy_new(uint64_t quantum);
/* One block of records as a writer forms it (sorted by ts). */
extern int	entropy_add_block(entropy_acc *a, const pgwt_record *recs, uint32_t n);
extern void entropy_finish(entropy_acc *a, entropy_result *out);
extern void entropy_free(entropy_acc *a);

#endif							/* PGWT_BENCH_ENTROPY_H */
