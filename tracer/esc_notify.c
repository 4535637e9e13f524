/*
 * esc_notify.c
 *		Pure logic of the SQL escalation channel (see esc_notify.h): the
 *		sender's authorization verdict, the log escaping, the reconnect
 *		backoff and the set of the channel's own backends. The payload and
 *		the report are built and parsed by common/esc_protocol.c.
 */
#include "tracer/esc_notify.h"

#include <stdio.h>
#include <string.h>

#define ESCN_BACKOFF_FIRST_NS	1000000000ull
#define ESCN_BACKOFF_MAX_NS		60000000000ull

pgwt_esc_verdict
pgwt_esc_authorize(const pgwt_esc_notice *n, const pgwt_esc_sender *s)
{
	if (!n->have_start)
		return PGWT_ESC_REFUSED_NO_START;
	if (!s || !s->found)
		return PGWT_ESC_REFUSED_GONE;
	if (s->start_us != n->start_us)
		return PGWT_ESC_REFUSED_START;
	if (!(n->op == PGWT_ESC_OP_ESCALATE ? s->may_escalate : s->may_deescalate))
		return PGWT_ESC_REFUSED_PRIVILEGE;
	return PGWT_ESC_AUTHORIZED;
}

const char *
pgwt_esc_verdict_text(pgwt_esc_verdict v)
{
	switch (v)
	{
		case PGWT_ESC_AUTHORIZED:
			return "authorized";
		case PGWT_ESC_REFUSED_NO_START:
			return "not authorized: the payload has no backend_start_us";
		case PGWT_ESC_REFUSED_GONE:
			return "not authorized: the sending backend is gone (or in another database)";
		case PGWT_ESC_REFUSED_START:
			return "not authorized: the sending backend's start time differs from the payload's";
		case PGWT_ESC_REFUSED_PRIVILEGE:
			return "not authorized: the sender's role may not execute the function";
		case PGWT_ESC_REFUSED_UNVERIFIED:
			return "not authorized: the sender could not be looked up";
		case PGWT_ESC_REFUSED_BUSY:
			return "not authorized: too many requests waiting for a look-up";
	}
	return "not authorized";
}

char *
pgwt_esc_log_escape(const char *in, size_t max_in, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t		n = 0,
				i;

	if (cap == 0)
		return out;
	if (!in)
		in = "";
	for (i = 0; in[i] && i < max_in; i++)
	{
		unsigned char c = (unsigned char) in[i];
		char		e[4];
		size_t		len;

		if (c == '\\' || c == '"')
		{
			e[0] = '\\';
			e[1] = (char) c;
			len = 2;
		}
		else if (c >= 0x20 && c < 0x7f)
		{
			e[0] = (char) c;
			len = 1;
		}
		else
		{
			e[0] = '\\';
			e[1] = 'x';
			e[2] = hex[c >> 4];
			e[3] = hex[c & 15];
			len = 4;
		}
		/* room for this, "..." and the terminator, else stop here */
		if (n + len + 4 > cap)
			break;
		memcpy(out + n, e, len);
		n += len;
	}
	if (in[i] && cap >= 4 && n + 4 <= cap)
	{
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n < cap ? n : cap - 1] = '\0';
	return out;
}

uint64_t
pgwt_esc_backoff_ns(int failures)
{
	uint64_t	d = ESCN_BACKOFF_FIRST_NS;

	for (int i = 1; i < failures && d < ESCN_BACKOFF_MAX_NS; i++)
		d *= 2;
	return d < ESCN_BACKOFF_MAX_NS ? d : ESCN_BACKOFF_MAX_NS;
}

/* Rebuild the derived fields after a slot changed. */
static void
escn_own_update(pgwt_own_backends *o)
{
	o->npids = 0;
	o->connecting_since_ns = 0;
	for (int k = 0; k < PGWT_OWN_SLOTS; k++)
	{
		uint32_t	pid = o->slot_pid[k];
		int			i;

		if (o->slot_since_ns[k] == 0)
			continue;
		if (pid == 0)
		{
			if (o->connecting_since_ns == 0 || o->slot_since_ns[k] < o->connecting_since_ns)
				o->connecting_since_ns = o->slot_since_ns[k];
			continue;
		}
		/* insertion keeps pids sorted; a pid twice is kept once */
		for (i = o->npids; i > 0 && o->pids[i - 1] > pid; i--)
			o->pids[i] = o->pids[i - 1];
		if (i > 0 && o->pids[i - 1] == pid)
		{
			memmove(&o->pids[i], &o->pids[i + 1], (size_t) (o->npids - i) * sizeof(uint32_t));
			continue;
		}
		o->pids[i] = pid;
		o->npids++;
	}
	o->generation++;
}

void
pgwt_own_connecting(pgwt_own_backends *o, int slot, uint64_t now_ns)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS)
		return;
	o->slot_pid[slot] = 0;
	o->slot_since_ns[slot] = now_ns ? now_ns : 1;
	escn_own_update(o);
}

void
pgwt_own_connected(pgwt_own_backends *o, int slot, uint32_t pid)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS || o->slot_since_ns[slot] == 0)
		return;
	o->slot_pid[slot] = pid;
	escn_own_update(o);
}

void
pgwt_own_closed(pgwt_own_backends *o, int slot)
{
	if (slot < 0 || slot >= PGWT_OWN_SLOTS || o->slot_since_ns[slot] == 0)
		return;
	o->slot_pid[slot] = 0;
	o->slot_since_ns[slot] = 0;
	escn_own_update(o);
}

bool
pgwt_own_has(const pgwt_own_backends *o, uint32_t pid)
{
	int			lo = 0,
				hi = o->npids;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (o->pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->npids && o->pids[lo] == pid;
}

uint64_t
pgwt_own_hold_since(const pgwt_own_backends *o, uint64_t now_ns)
{
	uint64_t	since = o->connecting_since_ns;

	if (since == 0 || (now_ns > since && now_ns - since >= PGWT_OWN_HOLD_MAX_NS))
		return UINT64_MAX;
	return since;
}
