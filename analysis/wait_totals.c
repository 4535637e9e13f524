/*
 * wait_totals.c
 *		Running totals per wait event (see wait_totals.h): a fixed open
 *		addressing table keyed by wait_event_info, with one overflow row.
 */
#include "analysis/wait_totals.h"

#include <stdio.h>
#include <string.h>

void
pgwt_wait_totals_init(pgwt_wait_totals *t, bool bill_transitions)
{
	memset(t, 0, sizeof(*t));
	t->bill_transitions = bill_transitions;
}

/* The row of id, created when there is room; the overflow row otherwise. */
static pgwt_wait_total *
wtot_row(pgwt_wait_totals *t, uint32_t id)
{
	/* Fibonacci hashing spreads the class byte and the low bits alike */
	uint32_t	h = (uint32_t) ((id * UINT64_C(0x9E3779B97F4A7C15)) >> 32);

	for (unsigned i = 0; i < PGWT_WAIT_TOTALS_SLOTS; i++)
	{
		unsigned	s = (h + i) & (PGWT_WAIT_TOTALS_SLOTS - 1);
		uint16_t	r = t->slot[s];

		if (r == 0)
		{
			if (t->n >= PGWT_WAIT_TOTALS_MAX)
				break;
			t->row[t->n].id = id;
			t->row[t->n].used = true;
			t->slot[s] = (uint16_t) (++t->n);
			return &t->row[t->n - 1];
		}
		if (t->row[r - 1].id == id)
			return &t->row[r - 1];
	}
	t->overflow_events++;
	t->other.used = true;
	return &t->other;
}

void
pgwt_wait_totals_add(pgwt_wait_totals *t, const pgwt_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_record *r = &recs[i];
		pgwt_wait_total *row;

		if (r->kind == PGWT_REC_SAMPLE)
		{
			if (PGWT_IS_MARKER(r->new_event) || r->new_event == PGWT_EVENT_EXIT)
				continue;
			row = wtot_row(t, r->new_event);
			row->samples++;
			if (!t->bill_transitions)
				row->ns += r->weight_ns;
		}
		else if (r->kind == PGWT_REC_TRANSITION)
		{
			/* a marker's old_event is a reason code, not a wait */
			if (PGWT_IS_MARKER(r->new_event) || PGWT_IS_MARKER(r->old_event) ||
				r->old_event == PGWT_EVENT_EXIT)
				continue;
			row = wtot_row(t, r->old_event);
			if (!pgwt_event_is_cpu(r->old_event))
				row->waits++;
			if (t->bill_transitions)
				row->ns += r->duration_ns;
		}
	}
}

void
pgwt_wait_totals_labels(const pgwt_names *names, uint32_t id,
						char *type, size_t typelen, char *event, size_t eventlen)
{
	char		full[PGWT_EVENT_NAME_MAX];
	const char *colon;

	pgwt_event_format(names, id, full, sizeof(full));
	colon = strchr(full, ':');
	if (pgwt_event_is_cpu(id))
	{
		/* "CPU*", "CPU:RunQueue", "CPU:OnCPU" */
		snprintf(type, typelen, "CPU");
		snprintf(event, eventlen, "%s", colon ? colon + 1 : full);
	}
	else if (colon)
	{
		snprintf(type, typelen, "%.*s", (int) (colon - full), full);
		snprintf(event, eventlen, "%s", colon + 1);
	}
	else
	{
		snprintf(type, typelen, "Unknown");
		snprintf(event, eventlen, "%s", full);
	}
}
