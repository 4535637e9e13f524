/*
 * summary.h
 *		Per-second summaries written beside trace files
 *		(docs/TRACE_FORMAT.md section 11).
 *
 * Every trace file writer also keeps a summary builder (unless
 * pgwt_tf_file_opts.no_summary): records are aggregated per second of
 * their timestamp into bounded tables (events, backends, backend x event,
 * query x event, waits crossing the second's start), and each finished
 * second is written as one frame of <trace path>.sum. Summaries are an
 * accelerator: the trace stays the complete copy, and a directory without
 * .sum files reads as before.
 *
 * The builder and the frame codec are pure (summary_build.c); the file
 * writer, reader and recovery are in summary_file.c. Objects belong to
 * one thread; there is no global state.
 */
#ifndef PGWT_TRACEFMT_SUMMARY_H
#define PGWT_TRACEFMT_SUMMARY_H

#include "common/histogram.h"
#include "tracefmt/summary_us.h"
#include "tracefmt/tracefmt.h"

#define PGWT_TF_SUM_MAGIC		0x53574750u	/* "PGWS" little-endian */
/* 2 adds the shortest wait to every stat; version 1 files still read (no
 * shortest wait known: min_ns 0) */
#define PGWT_TF_SUM_VERSION		2
#define PGWT_TF_SUM_VERSION_OLDEST 1
#define PGWT_TF_SUM_SUFFIX		".sum"
#define PGWT_TF_SUM_FRAME_HEADER_SIZE 24
#define PGWT_TF_SUM_SECOND_NS	1000000000ull
/* Largest raw payload of one second a reader accepts. */
#define PGWT_TF_SUM_PAYLOAD_MAX	(8u << 20)

/* Per-second caps (keys past them are folded into "other" and counted). */
#define PGWT_TF_SUM_MAX_EVENTS		256
#define PGWT_TF_SUM_MAX_PIDS		1024
#define PGWT_TF_SUM_MAX_PID_EVENTS	4096
#define PGWT_TF_SUM_MAX_QUERY_EVENTS 4096
#define PGWT_TF_SUM_MAX_CROSSINGS	1024
#define PGWT_TF_SUM_MAX_QUERIES		PGWT_TF_SUM_MAX_QUERY_EVENTS
/* A second is written once the stream is this far past its end. */
#define PGWT_TF_SUM_LAG_NS			(2ull * PGWT_TF_SUM_SECOND_NS)

/* Second flags. */
#define PGWT_TF_SUM_F_EXACT			0x01u	/* exact transitions billed */
#define PGWT_TF_SUM_F_SAMPLED		0x02u	/* samples billed */
#define PGWT_TF_SUM_F_ESC_AT_START	0x04u	/* an escalation window was open at the start */
#define PGWT_TF_SUM_F_ESC_AT_END	0x08u	/* ... at the end */
#define PGWT_TF_SUM_F_MINUTE		0x10u	/* a minute rollup, not a second */
#define PGWT_TF_SUM_F_ALL			0x1Fu
#define PGWT_TF_SUM_MINUTE_NS		(60ull * PGWT_TF_SUM_SECOND_NS)

/* Backend flags. */
#define PGWT_TF_SUM_PID_EXITED		0x01u

typedef struct pgwt_tf_sum_stat
{
	uint64_t	waits;			/* exact waits that ended in the second */
	uint64_t	exact_ns;		/* exact time inside the second */
	uint64_t	completed_ns;	/* full length of those waits */
	uint64_t	min_ns;			/* shortest of them (0: unknown, version 1) */
	uint64_t	max_ns;			/* longest of them */
	uint64_t	sampled_ns;		/* sample weights */
	uint64_t	samples;
} pgwt_tf_sum_stat;

typedef struct pgwt_tf_sum_event
{
	uint32_t	event;
	pgwt_tf_sum_stat st;
	uint64_t	superseded_ns;	/* samples inside an escalation window */
	uint64_t	superseded_samples;
	uint64_t	hist_us[PGWT_TF_US_BUCKETS];
	uint64_t	hist_ns[PGWT_HIST_NS_BUCKETS];
} pgwt_tf_sum_event;

typedef struct pgwt_tf_sum_pid
{
	uint32_t	pid;
	uint32_t	flags;			/* PGWT_TF_SUM_PID_* */
} pgwt_tf_sum_pid;

/* (pid, event) or (query_id, event); the indexes locate the pid (in
 * pids[]) or the query (in queries[]) and the event (in events[]). */
typedef struct pgwt_tf_sum_pair
{
	uint64_t	key;
	uint32_t	event;
	uint32_t	key_index;
	uint32_t	event_index;
	pgwt_tf_sum_stat st;
} pgwt_tf_sum_pair;

/* A wait that ended in this second and began before it: ns is the part
 * before the second's start (not in any stat above). */
typedef struct pgwt_tf_sum_crossing
{
	uint32_t	pid;
	uint32_t	event;
	uint64_t	query_id;
	uint64_t	ns;
} pgwt_tf_sum_crossing;

typedef struct pgwt_tf_sum_counters
{
	uint64_t	exact_records;	/* transitions billed (markers excluded) */
	uint64_t	sample_records; /* samples billed (superseded excluded) */
	uint64_t	markers;
	uint64_t	esc_markers;	/* escalation start/end markers */
	uint64_t	late_records;	/* arrived after their second was written */
	uint64_t	folded_events;	/* records folded past each cap */
	uint64_t	folded_pids;
	uint64_t	folded_pid_events;
	uint64_t	folded_query_events;
	uint64_t	folded_crossings;
} pgwt_tf_sum_counters;

/* One decoded second. Arrays are owned by whoever filled it. */
typedef struct pgwt_tf_second
{
	uint64_t	sec_ts;			/* CLOCK_MONOTONIC ns, multiple of 1e9
								 * (of 60e9 for a minute rollup) */
	uint64_t	span_ns;		/* 1 s, or 60 s with PGWT_TF_SUM_F_MINUTE */
	uint32_t	flags;			/* PGWT_TF_SUM_F_* */
	pgwt_tf_sum_counters c;
	uint64_t	cover_lo;		/* earliest instant billed (UINT64_MAX = none) */
	uint64_t	cover_hi;		/* latest instant billed */
	pgwt_tf_sum_stat other_event;	/* time of folded keys */
	pgwt_tf_sum_stat other_pid_event;
	pgwt_tf_sum_stat other_query_event;
	pgwt_tf_sum_event *events;
	uint32_t	nevents;
	pgwt_tf_sum_pid *pids;
	uint32_t	npids;
	pgwt_tf_sum_pair *pid_events;
	uint32_t	npid_events;
	uint64_t   *queries;		/* the query ids query_events[] refer to */
	uint32_t	nqueries;
	pgwt_tf_sum_pair *query_events;
	uint32_t	nquery_events;
	pgwt_tf_sum_crossing *crossings;
	uint32_t	ncrossings;
} pgwt_tf_second;

/* Whether any key of the second was folded (its tables are not exact). */
static inline bool
pgwt_tf_second_folded(const pgwt_tf_second *s)
{
	return s->c.folded_events || s->c.folded_pids || s->c.folded_pid_events ||
		s->c.folded_query_events || s->c.folded_crossings;
}

/* ---- builder (pure) ------------------------------------------------- */

typedef struct pgwt_tf_sum_builder pgwt_tf_sum_builder;

/* Called for each finished second, oldest first; non-zero stops. */
typedef int (*pgwt_tf_second_cb) (const pgwt_tf_second *s, void *arg);

extern int	pgwt_tf_sum_builder_create(pgwt_tf_second_cb cb, void *arg,
									   pgwt_tf_sum_builder **out);
extern void pgwt_tf_sum_builder_free(pgwt_tf_sum_builder *b);
/* Aggregate one record; may finish older seconds through cb. */
extern int	pgwt_tf_sum_builder_add(pgwt_tf_sum_builder *b, const pgwt_record *rec);
/* Finish every open second (end of the file). */
extern int	pgwt_tf_sum_builder_finish(pgwt_tf_sum_builder *b);

/* ---- frame payload codec (pure) ------------------------------------- */

/* Bytes the payload of s takes at most. */
extern size_t pgwt_tf_second_encoded_max(const pgwt_tf_second *s);
/* Encodes s into out (capacity from pgwt_tf_second_encoded_max). */
extern size_t pgwt_tf_second_encode(const pgwt_tf_second *s, uint8_t *out);

typedef struct pgwt_tf_second_buf
{
	pgwt_tf_second s;			/* arrays point into the buffers below */
	size_t		cap_events,
				cap_queries,
				cap_pids,
				cap_pid_events,
				cap_query_events,
				cap_crossings;
} pgwt_tf_second_buf;

/* Decodes and validates a payload; arrays grow in buf. */
extern int	pgwt_tf_second_decode(const uint8_t *p, size_t len,
								  pgwt_tf_second_buf *buf);
extern void pgwt_tf_second_buf_free(pgwt_tf_second_buf *buf);

/* ---- summary files ---------------------------------------------------- */

typedef struct pgwt_tf_sum_reader pgwt_tf_sum_reader;

typedef struct pgwt_tf_sum_read_stats
{
	uint64_t	files;
	uint64_t	files_bad;		/* unreadable header */
	uint64_t	frames;
	uint64_t	frames_bad;		/* checksum, LZ4 or payload invalid */
	uint64_t	bytes_truncated;
} pgwt_tf_sum_read_stats;

/*
 * path: a summary file, a trace file (its <file>.sum; PGWT_TF_NOT_FOUND
 * when it has none), or a trace directory (reads every *.sum in order
 * of their start time; a live current.trace.sum up to its .meta count).
 * Seconds whose sec_ts lies outside [t_start, t_end] (monotonic ns) are
 * skipped. Returns PGWT_TF_NOT_FOUND when a directory holds no summaries.
 */
extern int	pgwt_tf_sum_reader_open(const char *path, uint64_t t_start,
									uint64_t t_end, pgwt_tf_sum_reader **out);

/*
 * Frames the caller wants, decided from the frame header before anything
 * is decompressed: start, span (1 s or 60 s) and reach (how far before
 * its start the frame's earliest crossing wait began, rounded up to the
 * ms). NULL = every frame in [t_start, t_end].
 */
typedef bool (*pgwt_tf_sum_filter) (uint64_t sec_ts, uint64_t span_ns,
									uint64_t reach_ns, void *arg);
extern void pgwt_tf_sum_reader_set_filter(pgwt_tf_sum_reader *r,
										  pgwt_tf_sum_filter f, void *arg);
/* 1 = a second (valid until the next call), 0 = end, < 0 error. */
extern int	pgwt_tf_sum_reader_next(pgwt_tf_sum_reader *r, const pgwt_tf_second **s);
extern const pgwt_tf_sum_read_stats *pgwt_tf_sum_reader_stats(const pgwt_tf_sum_reader *r);
extern void pgwt_tf_sum_reader_close(pgwt_tf_sum_reader *r);

/*
 * A memo of where archived summary files' frames lie (summary_memo.c),
 * owned by the caller and shared by the readers it is given to (any
 * thread): a reader skips a file the memo says has no frame in its range
 * instead of walking its frame headers; the frames it returns are the
 * same. Files are known by path, device, inode, size and mtime.
 */
typedef struct pgwt_tf_sum_memo pgwt_tf_sum_memo;
extern pgwt_tf_sum_memo *pgwt_tf_sum_memo_create(void);
extern void pgwt_tf_sum_memo_free(pgwt_tf_sum_memo *m);
/* m (or NULL: none) must outlive the reader */
extern void pgwt_tf_sum_reader_set_memo(pgwt_tf_sum_reader *r, pgwt_tf_sum_memo *m);

#endif							/* PGWT_TRACEFMT_SUMMARY_H */
