/*
 * name_log.c
 *		The ids a trace writer still has to name (see name_log.h): an
 *		open-addressing set of the ids seen, and the queue of those not
 *		yet taken. A record costs one compare when its ids repeat the last
 *		one, else a binary search of the compiled table. No global state.
 */
#include "analysis/name_log.h"

#include <string.h>

void
pgwt_name_log_init(pgwt_name_log *l, const pgwt_names *known)
{
	memset(l, 0, sizeof(*l));
	l->known = known;
}

bool
pgwt_name_log_note(pgwt_name_log *l, uint32_t id)
{
	uint32_t	h;

	if (id == 0 || id == l->last || id >= PGWT_MARKER_FIRST)
		return false;
	l->last = id;
	if (!pgwt_class_name(pgwt_event_class(id)) || pgwt_names_lookup(l->known, id))
		return false;
	/* multiplicative hash; linear probing over a table never over half full */
	h = (id * 2654435761u) & (PGWT_NAME_LOG_SLOTS - 1);
	while (l->slot[h] != 0)
	{
		if (l->slot[h] == id + 1)
			return false;
		h = (h + 1) & (PGWT_NAME_LOG_SLOTS - 1);
	}
	if (l->nseen >= PGWT_NAME_LOG_MAX)
	{
		l->dropped++;
		return false;
	}
	l->slot[h] = id + 1;
	l->nseen++;
	l->pending[l->npending++] = id;
	return true;
}

void
pgwt_name_log_note_record(pgwt_name_log *l, const pgwt_record *r)
{
	if (r->kind == PGWT_REC_TRANSITION)
		(void) pgwt_name_log_note(l, r->old_event);
	(void) pgwt_name_log_note(l, r->new_event);
}

unsigned
pgwt_name_log_take(pgwt_name_log *l, uint32_t *out, unsigned max)
{
	unsigned	n = l->npending < max ? l->npending : max;

	memcpy(out, l->pending, n * sizeof(*out));
	memmove(l->pending, l->pending + n, (l->npending - n) * sizeof(*out));
	l->npending -= n;
	return n;
}
