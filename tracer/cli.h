/*
 * cli.h
 *		Command-line options of pg_wait_tracer, parsed and validated without
 *		touching the system (unit-tested). Flags follow the seed tool's
 *		documented CLI so its users can switch.
 */
#ifndef PGWT_TRACER_CLI_H
#define PGWT_TRACER_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum pgwt_view
{
	PGWT_VIEW_TIME_MODEL = 0,
	PGWT_VIEW_SYSTEM_EVENT,
	PGWT_VIEW_SESSION_EVENT,
	PGWT_VIEW_ACTIVE,
	PGWT_VIEW_HISTOGRAM,
	PGWT_VIEW_QUERY_EVENT
} pgwt_view;

/* --sort: the seed tool's modes (all also understood by analysis views). */
typedef enum pgwt_cli_sort
{
	PGWT_CLI_SORT_WAIT_TIME = 0,
	PGWT_CLI_SORT_DB_TIME,
	PGWT_CLI_SORT_PID,
	PGWT_CLI_SORT_EVENT
} pgwt_cli_sort;

typedef enum pgwt_format
{
	PGWT_FORMAT_AUTO = 0,		/* tui on a terminal, text otherwise */
	PGWT_FORMAT_TUI,
	PGWT_FORMAT_TEXT,
	PGWT_FORMAT_JSON,
	PGWT_FORMAT_CSV
} pgwt_format;

#define PGWT_CLI_MAX_WINDOWS 8

typedef enum pgwt_mode
{
	PGWT_MODE_TIERED = 0,		/* sampled, escalating to full in windows */
	PGWT_MODE_SAMPLED,
	PGWT_MODE_FULL,
	PGWT_MODE_COOP,				/* refused: lives in the extension */
	PGWT_MODE_SCHED				/* exact blocking waits from the scheduler */
} pgwt_mode;

#define PGWT_CLI_BUDGET_UNLIMITED (-1)

/*
 * --exact-source: the exact tier of tiered mode's escalation windows. AUTO
 * takes the watchpoints where their self-test passes, else the scheduler's
 * tracepoints (which see every wait that blocks, no debug registers).
 */
typedef enum pgwt_exact_choice
{
	PGWT_EXACT_AUTO = 0,
	PGWT_EXACT_WATCH,
	PGWT_EXACT_SCHED
} pgwt_exact_choice;

/* --query-text: what of a query the trace directory keeps beside its id. */
typedef enum pgwt_query_text
{
	PGWT_QUERY_TEXT_NORMALIZED = 0,	/* literals replaced by '?' (default) */
	PGWT_QUERY_TEXT_NONE		/* no text at all: query ids only */
} pgwt_query_text;

/*
 * --anomaly-* overrides, applied over the policy module's defaults (kept
 * there, not here): value and whether it was given.
 */
typedef enum pgwt_cli_anomaly
{
	PGWT_CLI_AN_AAS_FACTOR = 0,
	PGWT_CLI_AN_AAS_TICKS,
	PGWT_CLI_AN_AAS_MIN,
	PGWT_CLI_AN_LOCK_FRACTION,
	PGWT_CLI_AN_LOCK_MIN_AAS,
	PGWT_CLI_AN_COOLDOWN_S,
	PGWT_CLI_AN_WINDOW_S,
	PGWT_CLI_AN_CPU_CAPACITY,
	PGWT_CLI_AN_CPU_MIN_AAS,
	PGWT_CLI_AN_CPU_MARGIN,
	PGWT_CLI_AN_CPU_K,
	PGWT_CLI_AN_CPU_H,
	PGWT_CLI_AN_CPU_CAP,
	PGWT_CLI_AN_CPU_GAP_S,
	PGWT_CLI_AN_COUNT
} pgwt_cli_anomaly;

typedef struct pgwt_options
{
	/* target */
	int			pid;			/* 0 = auto */
	const char *pgdata;
	const char *dbname;
	const char *user;
	const char *host;
	/* capture */
	unsigned	sample_rate;	/* Hz */
	pgwt_mode	mode;
	int			lightweight;	/* full tier: kernel aggregates only */
	int			skip_query_id;	/* full tier: no st_query_id read */
	int			sampler_priority;	/* SCHED_FIFO priority of the sampler's
									 * wake-up and read; 0 = normal
									 * scheduling; -1 = auto (1 as root) */
	pgwt_exact_choice exact_source; /* tiered: the windows' source */
	long long	escalation_budget;	/* s per rolling hour; 0 off; -1 unlimited */
	double		anomaly[PGWT_CLI_AN_COUNT];
	unsigned	anomaly_set;	/* bit i: anomaly[i] was given */
	int			anomaly_cpu_disable;
	const char *metrics_listen; /* 127.0.0.1:PORT */
	/* output */
	pgwt_view	view;
	pgwt_cli_sort sort;
	const char *sort_name;		/* as typed, for the analysis views */
	pgwt_format format;
	unsigned	interval_s;
	long		duration_s;		/* 0 = unlimited */
	long		count;			/* 0 = unlimited */
	int			nwindows;
	uint64_t	windows_ns[PGWT_CLI_MAX_WINDOWS];
	/* filters */
	const char *event;
	int			pid_filter;
	int			have_query_id;
	uint64_t	query_id;
	/* recording */
	const char *trace_dir;
	unsigned	retention_hours;
	double		retention_gb;	/* 0 = no cap */
	const char *trace_group;	/* NULL = default "dba" when it exists */
	pgwt_query_text query_text;
	int			seed_format;	/* --seed-format: files the seed tool reads */
	/* modes */
	int			daemon;
	int			replay;
	int			accept_damaged;	/* replay: damaged input is no failure */
	int			check_exact;	/* run the exact tier's self-test, then exit */
	int			fine;			/* --fine: accepted and ignored; every
								 * histogram has the one layout of
								 * common/histogram.h */
	const char *from;
	const char *to;
	int			verbose;
	int			help;
} pgwt_options;

/*
 * Parse argv into o (defaults first). 0 on success; -1 with a one-line
 * message in err on bad input. Does not print.
 */
extern int	pgwt_options_parse(int argc, char **argv, pgwt_options *o,
							   char *err, size_t errlen);

extern const char *pgwt_view_name(pgwt_view v);
extern const char *pgwt_mode_name(pgwt_mode m);
extern const char *pgwt_exact_choice_name(pgwt_exact_choice c);

/* The modes whose one source is exact from the start (no windows). */
static inline int
pgwt_mode_always_exact(pgwt_mode m)
{
	return m == PGWT_MODE_FULL || m == PGWT_MODE_SCHED;
}
extern const char *pgwt_cli_sort_name(pgwt_cli_sort s);

extern void pgwt_usage(FILE *out);

#endif
