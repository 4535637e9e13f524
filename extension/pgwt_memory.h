/*
 * pgwt_memory.h
 *		The extension's shared memory by part (memory.c): what pgwt_memory()
 *		lists and pgwt_status sums. No shared state: sizes only.
 */
#ifndef PGWT_MEMORY_H
#define PGWT_MEMORY_H

#define PGWT_MEMORY_PARTS 8

typedef struct PgwtMemoryPart
{
	const char *part;
	Size		bytes;
	const char *detail;
} PgwtMemoryPart;

extern int	pgwt_memory_parts(PgwtMemoryPart *parts);
extern int64 pgwt_memory_total(void);

#endif							/* PGWT_MEMORY_H */
