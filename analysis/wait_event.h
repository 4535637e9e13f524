/*
 * wait_event.h
 *		Wait event ids -> (class, name), and names -> ids.
 *
 * A wait event id is PostgreSQL's wait_event_info: the class in the high
 * byte, the event (or LWLock tranche, or lock tag type) in the low bits.
 * Names come from a table generated at build time from one server
 * version's headers (names/gen_wait_event_names.pl), optionally overridden
 * at run time by a table the caller loads (a trace side file, the server's
 * pg_wait_events). An id no table knows prints as "Class:0xNN", never as a
 * guessed name.
 *
 * A pgwt_names is owned by its caller; nothing here has global mutable
 * state, so one may be used per thread or per backend.
 */
#ifndef PGWT_ANALYSIS_WAIT_EVENT_H
#define PGWT_ANALYSIS_WAIT_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event_ids.h"

/* Longest name pgwt_event_format() writes, with its terminator. */
#define PGWT_EVENT_NAME_MAX			96

typedef struct pgwt_event_name
{
	uint32_t	id;
	const char *name;			/* event name without the class */
} pgwt_event_name;

/* Generated tables, sorted by id. */
extern const pgwt_event_name pgwt_event_names_pg13[];
extern const unsigned pgwt_event_names_pg13_count;
extern const pgwt_event_name pgwt_event_names_pg15[];
extern const unsigned pgwt_event_names_pg15_count;
extern const pgwt_event_name pgwt_event_names_pg17[];
extern const unsigned pgwt_event_names_pg17_count;
extern const pgwt_event_name pgwt_event_names_pg18[];
extern const unsigned pgwt_event_names_pg18_count;

typedef struct pgwt_names
{
	const pgwt_event_name *builtin;	/* generated table, or NULL */
	unsigned	nbuiltin;
	pgwt_event_name *override;	/* runtime table, sorted by id; names owned */
	unsigned	noverride;
	unsigned	override_cap;
} pgwt_names;

/* "LWLock", "IO", ...; "CPU*" for class 0; NULL for a byte no server uses. */
const char *pgwt_class_name(unsigned class_index);

/*
 * Use the generated table of a server major version (13, 15, 17, 18).
 * Other versions get no built-in table, since ids move between versions
 * (every pair of neighbouring tables names some id differently, so 14 and
 * 16 cannot borrow 13's, 15's or 17's): their names must come from a
 * runtime table. Returns false in that case.
 */
bool		pgwt_names_init(pgwt_names *names, int pg_major);

/* True when a generated table exists for pg_major. */
bool		pgwt_names_have_table(int pg_major);
void		pgwt_names_free(pgwt_names *names);

/* Add or replace one runtime name (the event part, e.g. "DataFileRead").
 * Returns false when out of memory or the name is empty/too long. */
bool		pgwt_names_set(pgwt_names *names, uint32_t id, const char *name);

/* The event part only, or NULL when no table knows the id. */
const char *pgwt_names_lookup(const pgwt_names *names, uint32_t id);

/* "Class:Name", "CPU*", "CPU:RunQueue", or "Class:0xNN" for an unnamed id. */
void		pgwt_event_format(const pgwt_names *names, uint32_t id,
							  char *buf, size_t buflen);

/*
 * Parse what a user types for an event: "IO:DataFileRead" (case-insensitive),
 * "Class:0xNN", "CPU*" / "CPU", "CPU:RunQueue", or a raw "0x0A000001". Returns false when
 * the string names nothing.
 */
bool		pgwt_event_parse(const pgwt_names *names, const char *text,
							 uint32_t *id);

#endif							/* PGWT_ANALYSIS_WAIT_EVENT_H */
