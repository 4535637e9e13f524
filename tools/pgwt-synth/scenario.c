/*
 * scenario.c
 *		Parser of pgwt-synth scenarios and the simulation itself. Pure: no
 *		I/O, so the truth it reports depends only on the scenario text.
 *
 * Each backend alternates CPU time and waits; a wait picks an event by
 * weight and a length from the event's distribution. A transition is
 * emitted at each change (old -> new, duration = time spent in old).
 * The sampler ticks every sample_period_ns, each tick stretched by up to
 * +-jitter%, and records every backend's current state, weighted by the
 * tick's real length. Backends and the sampler are merged in time order
 * through a binary heap. With "escalation every=E length=L [offset=O]"
 * transitions are written only inside the windows [start + O + kE,
 * + L), each between an ESC_START and an ESC_END marker (pid 0, reason
 * "schedule", the window's length), as the daemon's tiered mode writes
 * its budgeted exact windows; the simulation itself runs all the time.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "scenario.h"

/* ---- parsing ---------------------------------------------------------- */

static int
syn_duration(const char *s, uint64_t *out)
{
	char	   *end;
	double		v = strtod(s, &end);
	double		mult;

	if (end == s || v < 0)
		return -1;
	if (strcmp(end, "ns") == 0 || *end == '\0')
		mult = 1;
	else if (strcmp(end, "us") == 0)
		mult = 1e3;
	else if (strcmp(end, "ms") == 0)
		mult = 1e6;
	else if (strcmp(end, "s") == 0)
		mult = 1e9;
	else if (strcmp(end, "m") == 0)
		mult = 60e9;
	else if (strcmp(end, "h") == 0)
		mult = 3600e9;
	else
		return -1;
	if (v * mult > 1.8e19)
		return -1;
	*out = (uint64_t) (v * mult + 0.5);
	return 0;
}

static int
syn_uint(const char *s, uint64_t max, uint64_t *out)
{
	char	   *end;
	unsigned long long v;

	if (!isdigit((unsigned char) *s))
		return -1;
	v = strtoull(s, &end, 0);
	if (*end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
syn_bool(const char *s, bool *out)
{
	if (strcmp(s, "on") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "1") == 0)
		*out = true;
	else if (strcmp(s, "off") == 0 || strcmp(s, "no") == 0 || strcmp(s, "0") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

static int
syn_distname(const char *s, syn_dist *d)
{
	if (strcmp(s, "exp") == 0)
		*d = SYN_DIST_EXP;
	else if (strcmp(s, "fixed") == 0)
		*d = SYN_DIST_FIXED;
	else if (strcmp(s, "uniform") == 0)
		*d = SYN_DIST_UNIFORM;
	else
		return -1;
	return 0;
}

static void
syn_defaults(syn_scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->seed = 1;
	sc->duration_ns = 10000000000ull;
	sc->start_realtime_ns = 1700000000000000000ull;
	sc->start_monotonic_ns = 1000000000ull;
	sc->pg_version = 150004;
	sc->backends = 4;
	sc->first_pid = 1000;
	sc->cpu_mean_ns = 50000;
	sc->transitions = true;
	sc->cpu_column = true;
}

/*
 * Keywords with one value: "seed 7", "duration 10s", "transitions off".
 * A table, so each keyword's type and bounds are in one row.
 */
typedef enum syn_kind
{
	SYN_U64,					/* uint64_t, at most max */
	SYN_U32,					/* uint32_t, at most max */
	SYN_U32_NONZERO,
	SYN_DURATION,				/* uint64_t nanoseconds */
	SYN_BOOL
} syn_kind;

typedef struct syn_scalar
{
	const char *name;
	syn_kind	kind;
	uint64_t	max;
	size_t		offset;			/* of the field in syn_scenario */
} syn_scalar;

#define SYN_FIELD(f) offsetof(syn_scenario, f)
static const syn_scalar syn_scalars[] = {
	{"seed", SYN_U64, UINT64_MAX, SYN_FIELD(seed)},
	{"duration", SYN_DURATION, 0, SYN_FIELD(duration_ns)},
	{"start_realtime", SYN_U64, UINT64_MAX / 2, SYN_FIELD(start_realtime_ns)},
	{"start_monotonic", SYN_U64, UINT64_MAX / 2, SYN_FIELD(start_monotonic_ns)},
	{"pg_version", SYN_U32, UINT32_MAX, SYN_FIELD(pg_version)},
	{"backends", SYN_U32_NONZERO, SYN_MAX_BACKENDS, SYN_FIELD(backends)},
	{"first_pid", SYN_U32_NONZERO, UINT32_MAX - SYN_MAX_BACKENDS, SYN_FIELD(first_pid)},
	{"query_ids", SYN_U32, UINT32_MAX, SYN_FIELD(query_ids)},
	{"transitions", SYN_BOOL, 0, SYN_FIELD(transitions)},
	{"cpu_column", SYN_BOOL, 0, SYN_FIELD(cpu_column)},
	{"max_records", SYN_U64, UINT64_MAX, SYN_FIELD(max_records)},
};

/* One scalar keyword's value into its field: 0, or 1 when bad. */
static int
syn_scalar_set(const syn_scalar *k, const char *word, syn_scenario *sc)
{
	char	   *field = (char *) sc + k->offset;
	uint64_t	v;

	switch (k->kind)
	{
		case SYN_U64:
			return syn_uint(word, k->max, (uint64_t *) field) != 0;
		case SYN_DURATION:
			return syn_duration(word, (uint64_t *) field) != 0;
		case SYN_BOOL:
			return syn_bool(word, (bool *) field) != 0;
		case SYN_U32:
		case SYN_U32_NONZERO:
			if (syn_uint(word, k->max, &v) || (k->kind == SYN_U32_NONZERO && v == 0))
				return 1;
			*(uint32_t *) field = (uint32_t) v;
			return 0;
	}
	return 1;
}

/* "sample_period 10ms|off" and "sample_jitter 20%". */
static int
syn_sampling(char **words, syn_scenario *sc)
{
	uint64_t	v;
	size_t		l;

	if (strcmp(words[0], "sample_period") == 0)
	{
		if (strcmp(words[1], "off") == 0)
		{
			sc->sample_period_ns = 0;
			return 0;
		}
		/* below 1 us the run would never end */
		return syn_duration(words[1], &sc->sample_period_ns) ||
			(sc->sample_period_ns > 0 && sc->sample_period_ns < 1000);
	}
	l = strlen(words[1]);
	if (l < 2 || words[1][l - 1] != '%')
		return 1;
	words[1][l - 1] = '\0';
	if (syn_uint(words[1], 90, &v))
		return 1;
	sc->sample_jitter_pct = (uint32_t) v;
	return 0;
}

/* "escalation every=1h length=5m [offset=10m]". */
static int
syn_escalation(char **words, int nw, syn_scenario *sc)
{
	for (int i = 1; i < nw; i++)
	{
		char	   *eq = strchr(words[i], '=');
		int			bad;

		if (!eq)
			return 1;
		*eq++ = '\0';
		if (strcmp(words[i], "every") == 0)
			bad = syn_duration(eq, &sc->esc_every_ns) || sc->esc_every_ns == 0;
		else if (strcmp(words[i], "length") == 0)
			bad = syn_duration(eq, &sc->esc_length_ns) || sc->esc_length_ns == 0;
		else if (strcmp(words[i], "offset") == 0)
			bad = syn_duration(eq, &sc->esc_offset_ns);
		else
			bad = 1;
		if (bad)
			return 1;
	}
	/* windows shorter than their period, so they open and close */
	return sc->esc_every_ns == 0 || sc->esc_length_ns == 0 ||
		sc->esc_length_ns >= sc->esc_every_ns ||
		sc->esc_offset_ns > sc->esc_every_ns - sc->esc_length_ns;
}

/* One key=value of a "cpu" or "event" line into e. */
static int
syn_event_attr(char *word, bool is_event, syn_event *e)
{
	char	   *eq = strchr(word, '=');
	uint64_t	v;

	if (!eq)
		return 1;
	*eq++ = '\0';
	if (strcmp(word, "mean") == 0)
		return syn_duration(eq, &e->mean_ns) || e->mean_ns == 0;
	if (strcmp(word, "dist") == 0)
		return syn_distname(eq, &e->dist);
	if (is_event && strcmp(word, "weight") == 0)
	{
		if (syn_uint(eq, 1000000, &v) || v == 0)
			return 1;
		e->weight = (uint32_t) v;
		return 0;
	}
	if (is_event && strcmp(word, "name") == 0 && strlen(eq) < SYN_NAME_MAX && strchr(eq, ':'))
	{
		strcpy(e->name, eq);
		return 0;
	}
	return 1;
}

/* "cpu mean=50us [dist=exp]" or "event ID [mean=..] [dist=..] [weight=..] [name=T:E]". */
static int
syn_event_line(char **words, int nw, syn_scenario *sc)
{
	bool		is_event = words[0][0] == 'e';
	syn_event	e;
	uint64_t	v;
	int			i = 1;

	memset(&e, 0, sizeof(e));
	e.weight = 1;
	e.mean_ns = 100000;
	if (is_event)
	{
		if (nw < 2 || syn_uint(words[1], UINT32_MAX, &v) || v == 0 || v >= PGWT_MARKER_FIRST)
			return 1;
		e.id = (uint32_t) v;
		i = 2;
	}
	for (; i < nw; i++)
		if (syn_event_attr(words[i], is_event, &e))
			return 1;
	if (!is_event)
	{
		sc->cpu_mean_ns = e.mean_ns;
		sc->cpu_dist = e.dist;
		return 0;
	}
	if (sc->nevents == SYN_MAX_EVENTS)
		return 1;
	for (size_t k = 0; k < sc->nevents; k++)
		if (sc->events[k].id == e.id)
			return 1;
	sc->events[sc->nevents++] = e;
	return 0;
}

/* One line's words: 0, 1 for a bad value, 2 for an unknown keyword. */
static int
syn_line(char **words, int nw, syn_scenario *sc)
{
	for (size_t k = 0; k < sizeof(syn_scalars) / sizeof(syn_scalars[0]); k++)
		if (strcmp(words[0], syn_scalars[k].name) == 0)
			return nw != 2 || syn_scalar_set(&syn_scalars[k], words[1], sc);
	if (strcmp(words[0], "sample_period") == 0 || strcmp(words[0], "sample_jitter") == 0)
		return nw != 2 || syn_sampling(words, sc);
	if (strcmp(words[0], "escalation") == 0)
		return syn_escalation(words, nw, sc);
	if (strcmp(words[0], "cpu") == 0 || strcmp(words[0], "event") == 0)
		return syn_event_line(words, nw, sc);
	return 2;
}

int
syn_parse(const char *text, syn_scenario *sc, char *err, size_t errlen)
{
	char	   *copy = strdup(text);
	char	   *save = NULL;
	char	   *line;
	int			lineno = 0;

	syn_defaults(sc);
	if (!copy)
	{
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
	{
		char	   *words[16];
		int			nw = 0;
		char	   *hash = strchr(line, '#');
		char	   *wsave = NULL;
		char	   *w;
		int			rc;

		lineno++;
		if (hash)
			*hash = '\0';
		for (w = strtok_r(line, " \t\r", &wsave); w && nw < 16; w = strtok_r(NULL, " \t\r", &wsave))
			words[nw++] = w;
		if (nw == 0)
			continue;
		if ((rc = syn_line(words, nw, sc)) != 0)
		{
			snprintf(err, errlen, rc == 2 ? "line %d: unknown keyword '%s'"
					 : "line %d: bad value for '%s'", lineno, words[0]);
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (sc->nevents == 0)
	{
		snprintf(err, errlen, "no 'event' line: a scenario needs at least one wait event");
		return -1;
	}
	if (!sc->transitions && sc->sample_period_ns == 0)
	{
		snprintf(err, errlen, "nothing to write: transitions off and no sample_period");
		return -1;
	}
	return 0;
}

/* ---- simulation ------------------------------------------------------ */

typedef struct syn_backend
{
	uint64_t	next_ts;		/* when the current state ends */
	uint64_t	since;			/* when the current state began */
	uint32_t	event;			/* 0 = on CPU */
	int			event_index;	/* -1 = CPU */
	uint64_t	query_id;
} syn_backend;

static uint64_t
syn_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Uniform in (0, 1]. */
static double
syn_unit(uint64_t *s)
{
	return ((double) (syn_rand(s) >> 11) + 1.0) / 9007199254740992.0;
}

static uint64_t
syn_draw(uint64_t *s, uint64_t mean, syn_dist d)
{
	double		v;

	switch (d)
	{
		case SYN_DIST_FIXED:
			return mean;
		case SYN_DIST_UNIFORM:
			v = 2.0 * (double) mean * syn_unit(s);
			break;
		default:
			v = -(double) mean * log(syn_unit(s));
			break;
	}
	return v < 1.0 ? 1 : (uint64_t) v;
}

/* Heap of indices ordered by next_ts; index nb (one past the backends)
 * stands for the sampler. */
typedef struct syn_heap
{
	uint32_t   *a;
	uint32_t	n;
	const syn_backend *b;
	const uint64_t *sampler_ts;
	uint32_t	nb;
} syn_heap;

static uint64_t
syn_key(const syn_heap *h, uint32_t i)
{
	return i == h->nb ? *h->sampler_ts : h->b[i].next_ts;
}

static bool
syn_less(const syn_heap *h, uint32_t x, uint32_t y)
{
	uint64_t	a = syn_key(h, x),
				b = syn_key(h, y);

	return a < b || (a == b && x < y);
}

static void
syn_sift_down(syn_heap *h, uint32_t i)
{
	for (;;)
	{
		uint32_t	l = 2 * i + 1,
					r = l + 1,
					m = i;

		if (l < h->n && syn_less(h, h->a[l], h->a[m]))
			m = l;
		if (r < h->n && syn_less(h, h->a[r], h->a[m]))
			m = r;
		if (m == i)
			return;
		{
			uint32_t	t = h->a[i];

			h->a[i] = h->a[m];
			h->a[m] = t;
		}
		i = m;
	}
}

static syn_truth_event *
syn_truth_for(syn_truth *t, int event_index)
{
	return event_index < 0 ? &t->cpu : &t->ev[event_index];
}

static int
syn_emit(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t,
		 const pgwt_record *r)
{
	if (t->records == 0)
		t->first_ts = r->ts_ns;
	t->last_ts = r->ts_ns;
	t->records++;
	return emit(r, arg);
}

/* An escalation marker for all backends (pid 0), reason "schedule". */
static int
syn_esc_marker(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t,
			   bool start, uint64_t ts, uint64_t length_ns)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.ts_ns = ts;
	r.old_event = PGWT_ESC_CODE_SCHEDULE;
	r.new_event = start ? PGWT_MARKER_ESC_START : PGWT_MARKER_ESC_END;
	r.duration_ns = length_ns;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return syn_emit(sc, emit, arg, t, &r);
}

/*
 * Opens and closes the escalation windows whose boundaries lie at or
 * before now (markers at the boundary instants, so in time order);
 * *open says whether transitions at now are written.
 */
static int
syn_windows_until(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t,
				  uint64_t now, uint64_t *next_edge, bool *open)
{
	int			rc = 0;

	if (sc->esc_every_ns == 0)
	{
		*open = true;
		return 0;
	}
	while (rc == 0 && *next_edge <= now)
	{
		rc = syn_esc_marker(sc, emit, arg, t, !*open, *next_edge, sc->esc_length_ns);
		*open = !*open;
		*next_edge += *open ? sc->esc_length_ns : sc->esc_every_ns - sc->esc_length_ns;
	}
	return rc;
}

/*
 * A sampler tick: every backend's state, weighted by the time since the
 * last tick; sets when the next tick is due (jittered when asked).
 */
static int
syn_sampler_tick(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t,
				 const syn_backend *b, uint64_t now, uint64_t *last_tick,
				 uint64_t *sampler_ts, uint64_t *rng)
{
	uint64_t	weight = now - *last_tick;
	uint64_t	next = sc->sample_period_ns;
	int			rc = 0;

	for (uint32_t i = 0; i < sc->backends && rc == 0; i++)
	{
		pgwt_record r;
		syn_truth_event *te = syn_truth_for(t, b[i].event_index);

		memset(&r, 0, sizeof(r));
		r.kind = PGWT_REC_SAMPLE;
		r.ts_ns = now;
		r.pid = sc->first_pid + i;
		r.new_event = b[i].event;
		r.query_id = b[i].query_id;
		r.weight_ns = weight;
		r.cpu_ns = PGWT_CPU_UNKNOWN;
		te->samples++;
		te->sampled_ns += weight;
		t->samples++;
		rc = syn_emit(sc, emit, arg, t, &r);
	}
	*last_tick = now;
	if (sc->sample_jitter_pct)
	{
		uint64_t	span = sc->sample_period_ns * sc->sample_jitter_pct / 100;

		next = sc->sample_period_ns - span + syn_rand(rng) % (2 * span + 1);
	}
	*sampler_ts = now + next;
	return rc;
}

/*
 * Backend x (index top) reached the end of its state: a CPU burst ends in
 * a wait picked by weight, a wait in a CPU burst (now and then with a new
 * statement). The transition is emitted inside an escalation window.
 */
static int
syn_backend_step(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t,
				 syn_backend *x, uint32_t top, uint64_t now, uint64_t total_weight,
				 bool window_open, uint64_t *rng)
{
	pgwt_record r;
	syn_truth_event *te = syn_truth_for(t, x->event_index);
	uint64_t	dur = now - x->since;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.ts_ns = now;
	r.pid = sc->first_pid + top;
	r.old_event = x->event;
	r.duration_ns = dur;
	r.query_id = x->query_id;
	if (x->event_index < 0)
	{
		/* CPU burst over: pick a wait by weight */
		uint64_t	pick = syn_rand(rng) % total_weight;
		int			k = 0;

		while (pick >= sc->events[k].weight)
			pick -= sc->events[k++].weight;
		r.cpu_ns = sc->cpu_column ? dur : PGWT_CPU_UNKNOWN;
		x->event_index = k;
		x->event = sc->events[k].id;
		x->next_ts = now + syn_draw(rng, sc->events[k].mean_ns, sc->events[k].dist);
	}
	else
	{
		r.cpu_ns = sc->cpu_column ? 0 : PGWT_CPU_UNKNOWN;
		x->event_index = -1;
		x->event = PGWT_EVENT_NONE;
		x->next_ts = now + syn_draw(rng, sc->cpu_mean_ns, sc->cpu_dist);
		/* a new statement now and then */
		if (sc->query_ids && syn_rand(rng) % 8 == 0)
			x->query_id = 1 + syn_rand(rng) % sc->query_ids;
	}
	r.new_event = x->event;
	x->since = now;
	if (sc->transitions && window_open)
	{
		te->waits++;
		te->wait_ns += dur;
		t->transitions++;
		return syn_emit(sc, emit, arg, t, &r);
	}
	return 0;
}

int
syn_run(const syn_scenario *sc, syn_emit_fn emit, void *arg, syn_truth *t)
{
	uint64_t	rng = sc->seed ? sc->seed : 1;
	uint64_t	end = sc->start_monotonic_ns + sc->duration_ns;
	uint64_t	total_weight = 0;
	uint64_t	sampler_ts = UINT64_MAX;
	uint64_t	last_tick = sc->start_monotonic_ns;
	uint64_t	next_edge = sc->start_monotonic_ns + sc->esc_offset_ns;
	bool		window_open = false;
	syn_backend *b;
	syn_heap	h;
	uint32_t	i;
	int			rc = 0;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < sc->nevents; i++)
		total_weight += sc->events[i].weight;
	b = calloc(sc->backends, sizeof(*b));
	h.a = calloc(sc->backends + 1, sizeof(uint32_t));
	if (!b || !h.a)
	{
		free(b);
		free(h.a);
		return -1;
	}
	/* every backend starts on CPU at a random point of its first burst */
	for (i = 0; i < sc->backends; i++)
	{
		b[i].since = sc->start_monotonic_ns;
		b[i].event_index = -1;
		b[i].next_ts = sc->start_monotonic_ns + syn_draw(&rng, sc->cpu_mean_ns, sc->cpu_dist);
		b[i].query_id = sc->query_ids ? 1 + syn_rand(&rng) % sc->query_ids : 0;
	}
	if (sc->sample_period_ns)
		sampler_ts = sc->start_monotonic_ns + sc->sample_period_ns;
	h.b = b;
	h.nb = sc->backends;
	h.sampler_ts = &sampler_ts;
	h.n = sc->backends + 1;
	for (i = 0; i < h.n; i++)
		h.a[i] = i;
	for (i = h.n / 2 + 1; i-- > 0;)
		syn_sift_down(&h, i);

	while (rc == 0)
	{
		uint32_t	top = h.a[0];
		uint64_t	now = syn_key(&h, top);

		if (now > end || (sc->max_records && t->records >= sc->max_records))
			break;
		if (sc->transitions &&
			(rc = syn_windows_until(sc, emit, arg, t, now, &next_edge, &window_open)) != 0)
			break;
		if (top == h.nb)
			rc = syn_sampler_tick(sc, emit, arg, t, b, now, &last_tick, &sampler_ts, &rng);
		else
			rc = syn_backend_step(sc, emit, arg, t, &b[top], top, now, total_weight,
								  window_open, &rng);
		syn_sift_down(&h, 0);
	}
	/* a window still open at the end closes with the last record */
	if (rc == 0 && sc->transitions && sc->esc_every_ns && window_open)
		rc = syn_esc_marker(sc, emit, arg, t, false, t->last_ts,
							t->last_ts - (next_edge - sc->esc_length_ns));
	free(b);
	free(h.a);
	return rc;
}
