/*
 * tracefmt.h
 *		Public API of the trace format library: write, read, rotate and
 *		recover pg_wait_tracer trace files (docs/TRACE_FORMAT.md).
 *
 * Layers inside the library, lowest first:
 *	 - tf_le.h		little-endian and LEB128 helpers (pure, inline)
 *	 - block.c		one block <-> records (pure: no I/O)
 *	 - naming.c		archive names, retention policy (pure)
 *	 - file_io.c		whole reads/writes, the .meta record, clocks (below all)
 *	 - file_writer.c	one trace file: header, blocks, footer
 *	 - file_reader.c	one trace file: footer index, live files, validation
 *	 - reader.c		a file or a directory of files, in time order
 *	 - tracedir.c	the trace directory: rotation, recovery, retention
 *	 - sidefiles.c	backends, query texts, wait-event names
 *	 - normalize.c	query texts without their literals (pure)
 *	 - safe_dir.c	the checked directory and every open in it
 *	 - side_bounds.c	size bounds of side files, the written-query set
 *
 * No global mutable state: every object is owned by its caller, and one
 * object is used by one thread at a time. Errors are returned as negative
 * pgwt_tf_err codes; nothing prints, nothing exits. The library links into
 * the PostgreSQL extension (built with -fPIC).
 */
#ifndef PGWT_TRACEFMT_H
#define PGWT_TRACEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracefmt/record.h"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* X(name, text): the error table. Codes are returned negated. */
#define PGWT_TF_ERRORS(X) \
	X(OK,			"success") \
	X(IO,			"I/O error") \
	X(NOMEM,		"out of memory") \
	X(INVAL,		"invalid argument") \
	X(BAD_MAGIC,	"not a trace file (bad magic)") \
	X(BAD_VERSION,	"unsupported trace format version") \
	X(BAD_HEADER,	"invalid file header") \
	X(TRUNCATED,	"file or block truncated") \
	X(BAD_BLOCK,	"invalid block header") \
	X(BAD_PAYLOAD,	"invalid block payload") \
	X(LZ4,			"LZ4 decompression failed") \
	X(CHECKSUM,		"block checksum mismatch") \
	X(BAD_FOOTER,	"invalid footer") \
	X(BAD_META,		"invalid live-file meta") \
	X(BAD_SIDEFILE,	"invalid side file") \
	X(EXISTS,		"file already exists") \
	X(NOT_FOUND,	"no trace files found") \
	X(ORDER,		"records out of order") \
	X(CLOSED,		"object is closed") \
	X(UNSAFE,		"trace directory or file not safe to write (owner, mode or link)") \
	X(FULL,			"side file at its size bound: line not written") \
	X(NOT_REGULAR,	"not a regular file (a link, FIFO or device): not read")

typedef enum pgwt_tf_err
{
#define PGWT_TF_X_ENUM(name, text) PGWT_TF_##name,
	PGWT_TF_ERRORS(PGWT_TF_X_ENUM)
#undef PGWT_TF_X_ENUM
	PGWT_TF_ERR_COUNT
} pgwt_tf_err;

/* Text for a code (either sign); never NULL. */
extern const char *pgwt_tf_strerror(int err);

/*
 * Every file of a trace directory is opened for reading through these
 * (file_io.c): never through a symbolic link at its name, never blocking on
 * a FIFO or reading a device, since the directory may be writable by a user
 * other than the reader (the extension's, read by root). They return a
 * descriptor (a stream) of a regular file, or -PGWT_TF_NOT_FOUND,
 * -PGWT_TF_NOT_REGULAR or -PGWT_TF_IO (NULL with *err set).
 */
extern int	pgwt_tf_open_regular(const char *path);
extern FILE *pgwt_tf_fopen_regular(const char *path, int *err);
/*
 * One line of a side file, bounded: reads through the next LF into buf
 * (max + 2 bytes, NUL-terminated) and returns its length with the LF, as
 * getline does; a line longer than max is consumed whole and returned as
 * max + 1 (its first max bytes kept); -1 at end of file.
 */
extern long pgwt_tf_getline_max(char *buf, size_t max, FILE *fp);

/* ------------------------------------------------------------------ */
/* Format constants                                                    */
/* ------------------------------------------------------------------ */

#define PGWT_TF_MAGIC			0x54574750u	/* "PGWT" little-endian */
#define PGWT_TF_VERSION_MIN		2
#define PGWT_TF_VERSION			8		/* what the writer produces by default */
#define PGWT_TF_VERSION_MAX		8		/* newest version read and written */
#define PGWT_TF_FLAG_LZ4		0x0001u
#define PGWT_TF_FILE_HEADER_SIZE	28
#define PGWT_TF_BLOCK_HEADER_SIZE	40
#define PGWT_TF_FOOTER_ENTRY_SIZE	16
#define PGWT_TF_BLOCK_MAX_RECORDS	4096
/* Bound on one block's uncompressed payload (largest legal block: v6
 * TRANSITIONS, 60 bytes per record plus 27 of tables and lengths). */
#define PGWT_TF_PAYLOAD_MAX		(PGWT_TF_BLOCK_MAX_RECORDS * 60 + 64)
/* v4 writers keep last_ts - first_ts of every block within this. */
#define PGWT_TF_MAX_BLOCK_SPAN_NS	(10ull * 1000000000ull)

typedef enum pgwt_tf_block_type
{
	PGWT_TF_BLOCK_TRANSITIONS = 0,
	PGWT_TF_BLOCK_SAMPLES = 1
} pgwt_tf_block_type;

/* File header fields (decoded). */
typedef struct pgwt_tf_file_header
{
	uint16_t	version;
	uint16_t	flags;
	uint32_t	pg_version;			/* e.g. 150004 */
	uint64_t	start_realtime_ns;	/* CLOCK_REALTIME at creation */
	uint64_t	start_monotonic_ns; /* CLOCK_MONOTONIC at creation */
} pgwt_tf_file_header;

/* Block header fields (decoded). */
typedef struct pgwt_tf_block_header
{
	uint64_t	first_ts;
	uint64_t	last_ts;
	uint32_t	n;
	uint32_t	compressed;
	uint32_t	uncompressed;
	uint16_t	type;
	uint16_t	reserved;		/* v4: checksum of the stored payload */
	uint64_t	sample_period_ns;
} pgwt_tf_block_header;

/* Realtime ns of a record timestamp, using its file's header. */
static inline uint64_t
pgwt_tf_to_realtime(const pgwt_tf_file_header *h, uint64_t ts_ns)
{
	return h->start_realtime_ns + (ts_ns - h->start_monotonic_ns);
}

/* ------------------------------------------------------------------ */
/* Clock (injectable so rotation and retention are testable)           */
/* ------------------------------------------------------------------ */

typedef struct pgwt_tf_clock
{
	/* Both return nanoseconds; NULL functions mean the system clocks. */
	uint64_t	(*realtime_ns) (void *arg);
	uint64_t	(*monotonic_ns) (void *arg);
	void	   *arg;
} pgwt_tf_clock;

/* ------------------------------------------------------------------ */
/* Writing one file                                                    */
/* ------------------------------------------------------------------ */

typedef struct pgwt_tf_writer_stats
{
	uint64_t	records;		/* accepted by append */
	uint64_t	blocks;			/* committed blocks */
	uint64_t	bytes;			/* file bytes written */
	uint64_t	rejected;		/* records refused (bad kind) */
	uint64_t	summary_failed; /* 1 when the summary stopped (I/O error) */
	uint64_t	seed_left_out;	/* seed_layout: markers the seed tool does not
								 * know (0xFFFFFFF8..FC), not written */
} pgwt_tf_writer_stats;

typedef struct pgwt_tf_file_writer pgwt_tf_file_writer;

typedef struct pgwt_tf_file_opts
{
	uint32_t	pg_version;
	uint16_t	version;		/* 0 = PGWT_TF_VERSION; 2..8 allowed */
	bool		no_lz4;			/* store payloads raw (flags bit0 clear) */
	bool		write_meta;		/* maintain <path>.meta, the committed block
								 * count (docs/TRACE_FORMAT.md 6.1) */
	bool		fsync_each_block;	/* default off: page cache per block */
	int			mode;			/* 0 = 0640 */
	long		group_gid;		/* -1 = leave the group alone */
	uint64_t	max_block_span_ns;	/* 0 = PGWT_TF_MAX_BLOCK_SPAN_NS */
	pgwt_tf_clock clock;		/* for the header's start times */
	/* Per-second summaries go to <path>.sum (tracefmt/summary.h) unless
	 * this is set; the default (false) writes them. */
	bool		no_summary;
	/* Bound of each side file (backends, queries, blockers): an append
	 * past it is refused (-PGWT_TF_FULL). 0 = PGWT_TF_SIDE_MAX_DEFAULT;
	 * the directory writer derives it from its retention_bytes. */
	uint64_t	side_max_bytes;
	/* Write what the seed tool reads (docs/TRACE_FORMAT.md 7.2): version
	 * 3 (2 if asked), its block layout, the major version in the header,
	 * a bare count in .meta, no summary. */
	bool		seed_layout;
} pgwt_tf_file_opts;

/* Create path (must not exist). */
extern int	pgwt_tf_file_writer_create(const char *path,
									   const pgwt_tf_file_opts *opts,
									   pgwt_tf_file_writer **out);
/* Buffer one record; full blocks are compressed and written. */
extern int	pgwt_tf_file_writer_append(pgwt_tf_file_writer *w,
									   const pgwt_record *rec);
/* Sample period of subsequent SAMPLES records (closes an open block). */
extern int	pgwt_tf_file_writer_set_sample_period(pgwt_tf_file_writer *w,
												  uint64_t period_ns);
/* Write every buffered block now (and update .meta). */
extern int	pgwt_tf_file_writer_flush(pgwt_tf_file_writer *w);
/* Flush, append footer, fsync, close; the object is freed either way. */
extern int	pgwt_tf_file_writer_finish(pgwt_tf_file_writer *w);
/* Close without footer (as after a crash); frees the object. */
extern void pgwt_tf_file_writer_abandon(pgwt_tf_file_writer *w);
extern const pgwt_tf_writer_stats *pgwt_tf_file_writer_stats(const pgwt_tf_file_writer *w);
extern const pgwt_tf_file_header *pgwt_tf_file_writer_header(const pgwt_tf_file_writer *w);

/* ------------------------------------------------------------------ */
/* Reading: a file, or a directory of files in time order              */
/* ------------------------------------------------------------------ */

/* The major version of a file header's pg_version: server_version_num
 * (150004 -> 15) or, as the seed tool writes it, the major itself (18). */
extern uint32_t pgwt_tf_pg_major(uint32_t pg_version);

typedef struct pgwt_tf_read_stats
{
	uint64_t	files;			/* files opened */
	uint64_t	files_bad;		/* files skipped: unreadable header */
	uint64_t	footers_bad;	/* footer invalid: fell back to a scan */
	uint64_t	blocks;			/* blocks decoded */
	uint64_t	blocks_bad;		/* blocks skipped as invalid */
	uint64_t	blocks_skipped_range;	/* blocks outside the time range */
	uint64_t	records;		/* records delivered */
	uint64_t	bytes_truncated;	/* unreadable bytes at file ends */
} pgwt_tf_read_stats;

typedef struct pgwt_tf_reader pgwt_tf_reader;

/* Input was damaged: a block skipped, a file unreadable, bytes cut off.
 * Tools say so on stderr (pgwt_tf_read_damage_text) and exit nonzero
 * unless told to accept it (read_damage.c). */
extern bool pgwt_tf_read_damaged(const pgwt_tf_read_stats *rs);
extern int	pgwt_tf_read_damage_text(const pgwt_tf_read_stats *rs, char *buf, size_t len);

/*
 * The side files' share of damaged input: lines of events.tsv /
 * wait_event_names.json, backends.tsv / backends.jsonl and query_texts.tsv
 * / query_texts.jsonl that were not used (malformed, over the bounds, a
 * name whose class is not its id's), and a names file that did not parse
 * at all. Same rule as blocks: said on stderr with the counts, nonzero
 * status unless accepted (read_damage.c).
 */
typedef struct pgwt_tf_side_damage
{
	uint64_t	names_bad;		/* names lines or entries not used */
	bool		names_unreadable;	/* the names file as a whole */
	uint64_t	backends_bad;
	uint64_t	queries_bad;
} pgwt_tf_side_damage;

extern bool pgwt_tf_side_damaged(const pgwt_tf_side_damage *sd);
extern uint64_t pgwt_tf_side_bad_total(const pgwt_tf_side_damage *sd);
extern int	pgwt_tf_side_damage_text(const pgwt_tf_side_damage *sd, char *buf, size_t len);

typedef struct pgwt_tf_read_opts
{
	/* Inclusive time range in record timestamps. t_start 0 and t_end
	 * UINT64_MAX mean everything; so does a zeroed struct (t_end 0). */
	uint64_t	t_start;
	uint64_t	t_end;
	/* When set, the range is CLOCK_REALTIME ns, mapped per file. */
	bool		range_realtime;
	/* A live current.trace is read up to the committed block count of
	 * its .meta; set this to read it to its last valid block instead
	 * (what recovery does; may include a block still being written). */
	bool		ignore_meta;
	/* The caller never reads cpu_ns (the views bill none): decoders may
	 * leave it PGWT_CPU_UNKNOWN and check its column whole rather than
	 * decode each value (v8 transitions; a block is refused all the same). */
	bool		skip_cpu;
	/* Blocks of samples are skipped by their header, unread: only
	 * transitions (exact waits and markers) come out. */
	bool		skip_samples;
	/* Records come out with their ts in CLOCK_REALTIME ns
	 * (pgwt_tf_to_realtime of their file, wrapping as it does); the
	 * range above is unchanged. */
	bool		ts_realtime;
} pgwt_tf_read_opts;

/* One decoded block; recs stays valid until the next call on the reader. */
/*
 * A block's records ascend by ts (ties in the writer's order): every
 * decoder guarantees it (deltas bounded by the header's last_ts, v8's
 * check, the sort of the seed tool's blocks), and readers of blocks such
 * as analysis/range_load.c rely on it.
 */
typedef struct pgwt_tf_block
{
	const pgwt_record *recs;
	uint32_t	n;				/* records after range filtering (>= 1) */
	uint16_t	type;			/* pgwt_tf_block_type */
	uint64_t	sample_period_ns;
	const pgwt_tf_file_header *file;	/* header of the file it came from */
	uint32_t	file_index;		/* 0-based, in time order */
} pgwt_tf_block;

/* path: a trace file, or a directory holding *.trace.lz4 and current.trace.
 * opts may be NULL (everything). */
extern int	pgwt_tf_reader_open(const char *path, const pgwt_tf_read_opts *opts,
								pgwt_tf_reader **out);
extern void pgwt_tf_reader_close(pgwt_tf_reader *r);
/* Batch API: 1 = a block, 0 = end, < 0 = fatal error (bad blocks and
 * files are skipped and counted, not fatal). */
extern int	pgwt_tf_reader_next_block(pgwt_tf_reader *r, pgwt_tf_block *blk);
/* The same, decoded into the caller's buf of PGWT_TF_BLOCK_MAX_RECORDS
 * records (blk->recs points there), for a caller that edits the records
 * in place and would otherwise copy each block. */
extern int	pgwt_tf_reader_next_block_into(pgwt_tf_reader *r, pgwt_record *buf,
										   pgwt_tf_block *blk);
/* Record iterator over the same stream: 1 / 0 / < 0 as above. */
extern int	pgwt_tf_reader_next(pgwt_tf_reader *r, pgwt_record *rec);
/* Callback form: stops early and returns cb's value when it is non-zero. */
typedef int (*pgwt_tf_record_cb) (const pgwt_record *rec,
								  const pgwt_tf_block *blk, void *arg);
extern int	pgwt_tf_reader_foreach(pgwt_tf_reader *r, pgwt_tf_record_cb cb,
								   void *arg);
/* Live file: re-read the committed count so next_block can go on.
 * Returns the number of newly committed blocks (>= 0) or an error. */
extern int	pgwt_tf_reader_poll(pgwt_tf_reader *r);
extern const pgwt_tf_read_stats *pgwt_tf_reader_stats(const pgwt_tf_reader *r);
/* Number of files in the stream, and the header of file i. */
extern uint32_t pgwt_tf_reader_nfiles(const pgwt_tf_reader *r);
extern const pgwt_tf_file_header *pgwt_tf_reader_file_header(const pgwt_tf_reader *r,
															  uint32_t i);
extern const char *pgwt_tf_reader_file_path(const pgwt_tf_reader *r, uint32_t i);

/*
 * Escalation windows open where a raw read begins (esc_lookup.c). A reader
 * that starts at from_rt misses the ESC_START of a window opened earlier,
 * and would bill the samples that window's exact records supersede twice:
 * give the returned ESC_START (ts in CLOCK_REALTIME ns) to the analysis
 * first. Looks back at most an hour (windows are bounded by the rolling-
 * hour budget); asks the summaries first, so the lookback costs a read
 * only when a window was open. 1 = open (*start as in its file, *start_rt
 * its CLOCK_REALTIME ts), 0 = none, < 0 error.
 */
typedef struct pgwt_tf_esc_lookup
{
	bool		by_summary;		/* the summaries answered: nothing open */
	bool		scanned;		/* the preceding hour's records were read */
	uint64_t	records;		/* transition records looked at */
} pgwt_tf_esc_lookup;

extern int	pgwt_tf_escalation_open_at(const char *path, uint64_t from_rt,
									   pgwt_record *start, uint64_t *start_rt,
									   pgwt_tf_esc_lookup *st);

/* ------------------------------------------------------------------ */
/* The trace directory: live file, hourly rotation, recovery, retention */
/* ------------------------------------------------------------------ */

#define PGWT_TF_CURRENT_NAME	"current.trace"
#define PGWT_TF_META_SUFFIX		".meta"
#define PGWT_TF_ARCHIVE_SUFFIX	".trace.lz4"

typedef struct pgwt_tf_dir_opts
{
	pgwt_tf_file_opts file;		/* per-file options (clock inside) */
	bool		local_time;		/* archive names in local time (default UTC) */
	uint32_t	retention_hours;	/* 0 = keep by age forever */
	uint64_t	retention_bytes;	/* 0 = no size cap */
} pgwt_tf_dir_opts;

typedef struct pgwt_tf_dir_stats
{
	uint64_t	rotations;
	uint64_t	files_started;	/* live files begun (writers of per-file side
								 * data, e.g. query texts, start again) */
	uint64_t	recovered;		/* leftover current files archived */
	uint64_t	recovered_bytes_cut;	/* torn tail bytes dropped */
	uint64_t	quarantined;	/* unreadable files kept aside (.bad-*) */
	uint64_t	deleted;		/* archives removed by retention */
	uint64_t	deleted_bytes;
	uint64_t	side_lines_dropped;	/* side-file lines removed by retention */
	uint64_t	side_lines_trimmed; /* of those: the oldest lines of a side
									 * file over its bound */
	uint64_t	unsafe_replaced;	/* links or foreign files under our names,
									 * set aside or removed, never followed */
} pgwt_tf_dir_stats;

typedef struct pgwt_tf_dir_writer pgwt_tf_dir_writer;

/*
 * Who may write a trace directory (safe_dir.c; docs/TRACE_FORMAT.md 6):
 * it is opened once (O_DIRECTORY|O_NOFOLLOW: a symbolic link is refused)
 * and must belong to root or the effective user and be writable by
 * neither its group nor others; every directory above it must belong to
 * root or the effective user and be writable by others only with the
 * sticky bit. Refusals say which directory and why in why (also on
 * success why is set to ""). create makes a missing directory (the last
 * component) with mode (0 = 0750) and group_gid (-1 = unchanged), set on
 * its descriptor. *dirfd is O_CLOEXEC and the caller's to close.
 */
typedef struct pgwt_tf_safe_dir_opts
{
	bool		create;
	int			mode;
	long		group_gid;
} pgwt_tf_safe_dir_opts;

extern int	pgwt_tf_safe_dir_open(const char *path, const pgwt_tf_safe_dir_opts *opts,
								  int *dirfd, char *why, size_t whylen);
/* The rule itself (pure): 0, or -PGWT_TF_UNSAFE and the reason in why. */
extern int	pgwt_tf_dir_verdict(uint32_t owner, uint32_t mode, uint32_t euid,
								bool ancestor, char *why, size_t whylen);

/* Opens dir (must exist; checked as pgwt_tf_safe_dir_open, refused with
 * -PGWT_TF_UNSAFE), recovers a leftover current.trace, applies retention
 * and starts a new current.trace. */
extern int	pgwt_tf_dir_open(const char *dir, const pgwt_tf_dir_opts *opts,
							 pgwt_tf_dir_writer **out);
/* The same on a directory opened with pgwt_tf_safe_dir_open (the writer
 * keeps a duplicate of dirfd; dir names it in nothing but fallbacks). */
extern int	pgwt_tf_dir_open_fd(int dirfd, const char *dir, const pgwt_tf_dir_opts *opts,
								pgwt_tf_dir_writer **out);
/* The writer's directory descriptor, for side files written beside it. */
extern int	pgwt_tf_dir_writer_fd(const pgwt_tf_dir_writer *d);
/* Its file options with side_max_bytes derived from retention_bytes. */
extern pgwt_tf_file_opts pgwt_tf_dir_side_opts(const pgwt_tf_dir_writer *d);
extern int	pgwt_tf_dir_append(pgwt_tf_dir_writer *d, const pgwt_record *rec);
extern int	pgwt_tf_dir_set_sample_period(pgwt_tf_dir_writer *d, uint64_t period_ns);
/* Flush buffered blocks; rotate if the hour changed; cheap otherwise. */
extern int	pgwt_tf_dir_flush(pgwt_tf_dir_writer *d);
/* Rotate now if the calendar hour changed since the live file began. */
extern int	pgwt_tf_dir_tick(pgwt_tf_dir_writer *d);
extern int	pgwt_tf_dir_apply_retention(pgwt_tf_dir_writer *d);
/* Finish and archive the live file; frees d. */
extern int	pgwt_tf_dir_close(pgwt_tf_dir_writer *d);
extern const pgwt_tf_dir_stats *pgwt_tf_dir_writer_stats(const pgwt_tf_dir_writer *d);

/* Recover a leftover live file without opening a writer (used by
 * pgwt_tf_dir_open). *archived receives the new name's basename when
 * buf is non-NULL. Returns 0 when there was nothing to do, 1 when a file
 * was archived, 2 when it was quarantined, < 0 on error. */
extern int	pgwt_tf_recover_current(const char *dir, const pgwt_tf_dir_opts *opts,
									pgwt_tf_dir_stats *stats,
									char *archived, size_t archived_len);

/* ------------------------------------------------------------------ */
/* Archive names and retention policy (pure)                           */
/* ------------------------------------------------------------------ */

/* "YYYY-MM-DD_HH" (+ ".N" when seq > 0) + ".trace.lz4". */
extern int	pgwt_tf_archive_name(uint64_t realtime_ns, bool local_time,
								 unsigned seq, char *buf, size_t len);
/* Parse an archive name; returns 0 and the hour start (seconds since the
 * epoch, in the same zone convention) and seq, or PGWT_TF_INVAL. */
extern int	pgwt_tf_archive_parse(const char *name, bool local_time,
								  int64_t *hour_epoch_s, unsigned *seq);

typedef struct pgwt_tf_archive
{
	const char *name;
	int64_t		hour_epoch_s;
	unsigned	seq;
	uint64_t	size;
} pgwt_tf_archive;

/* Sorts a[] oldest first and marks which to delete (del[i] = true) so that
 * no archive is older than retention_hours (an archive's age counts from
 * the end of its hour) and archives + live_bytes fit retention_bytes.
 * Returns the number marked. */
extern size_t pgwt_tf_retention_select(pgwt_tf_archive *a, bool *del, size_t n,
									   int64_t now_s, uint32_t retention_hours,
									   uint64_t retention_bytes,
									   uint64_t live_bytes);

/* ------------------------------------------------------------------ */
/* Side files: backends, query texts, wait-event names                 */
/* ------------------------------------------------------------------ */

#define PGWT_TF_BACKENDS_NAME	"backends.tsv"
#define PGWT_TF_QUERIES_NAME	"queries.tsv"
#define PGWT_TF_EVENTS_NAME		"events.tsv"
#define PGWT_TF_BLOCKERS_NAME	"blockers.tsv"
#define PGWT_TF_QUERY_TEXT_MAX	4096	/* bytes kept of one query text */
#define PGWT_TF_FIELD_MAX		256		/* bytes kept of other strings */

typedef struct pgwt_tf_backend
{
	uint32_t	pid;
	uint32_t	leader_pid;		/* 0 = none */
	uint64_t	start_realtime_ns;
	const char *type;			/* "client backend", "autovacuum worker" ... */
	const char *user;
	const char *database;
	const char *client_addr;
	const char *application_name;
} pgwt_tf_backend;

typedef enum pgwt_tf_query_mode
{
	PGWT_TF_QUERY_NONE = 0,		/* no texts stored */
	PGWT_TF_QUERY_NORMALIZED = 1,	/* literals replaced by '?' */
	PGWT_TF_QUERY_FULL = 2
} pgwt_tf_query_mode;

typedef struct pgwt_tf_event_name
{
	uint32_t	id;
	const char *class_name;
	const char *name;
} pgwt_tf_event_name;

/*
 * windows.tsv (docs/TRACE_FORMAT.md 8.5): which exact source each
 * escalation window of the external tracer used, one line per window
 * opened (its first ESC_START). A window without a line (a directory
 * written before the file existed, or by the extension) has source
 * UNKNOWN; readers say "unknown", never guess.
 */
#define PGWT_TF_WINDOWS_NAME	"windows.tsv"

typedef enum pgwt_tf_exact_source
{
	PGWT_TF_XSRC_UNKNOWN = 0,
	PGWT_TF_XSRC_WATCH,			/* hardware watchpoints (the full tier) */
	PGWT_TF_XSRC_SCHED,			/* the scheduler's tracepoints */
	PGWT_TF_XSRC_COUNT
} pgwt_tf_exact_source;

typedef struct pgwt_tf_window
{
	uint64_t	start_mono_ns;	/* the ESC_START's ts (CLOCK_MONOTONIC) */
	uint64_t	start_rt_ns;	/* the same instant, CLOCK_REALTIME */
	pgwt_tf_exact_source source;
} pgwt_tf_window;

/* The windows of a range, by source (windows_side.c). */
typedef struct pgwt_tf_window_sources
{
	bool		present;		/* windows.tsv was there */
	uint64_t	windows;		/* lines whose start lies in the range */
	uint64_t	by_source[PGWT_TF_XSRC_COUNT];
	uint64_t	bad;			/* lines that did not parse */
} pgwt_tf_window_sources;

/* "watch", "sched", "unknown"; and back (anything else: UNKNOWN). */
extern const char *pgwt_tf_exact_source_name(pgwt_tf_exact_source s);
extern pgwt_tf_exact_source pgwt_tf_exact_source_parse(const char *name);
/* Count w into s when its start lies in [from_rt, to_rt) (to_rt 0: open). */
extern void pgwt_tf_window_sources_add(pgwt_tf_window_sources *s, const pgwt_tf_window *w,
									   uint64_t from_rt, uint64_t to_rt);
/* One line without LF: "exact windows: 2, source sched" (or the mix);
 * empty when the file is absent. Returns the length. */
extern size_t pgwt_tf_window_sources_text(const pgwt_tf_window_sources *s, char *buf,
										  size_t len);
/* Reads dir's windows.tsv into s for [from_rt, to_rt); absent: 0, present
 * false; else 0 or -PGWT_TF_* */
extern int	pgwt_tf_window_sources_load(const char *dir, uint64_t from_rt, uint64_t to_rt,
										pgwt_tf_window_sources *s);
typedef int (*pgwt_tf_window_cb) (const pgwt_tf_window *w, void *arg);
extern int	pgwt_tf_windows_read(const char *dir, pgwt_tf_window_cb cb, void *arg,
								 uint64_t *bad);
/* One line per window opened; within the side-file bound. */
extern int	pgwt_tf_window_append_at(int dirfd, const pgwt_tf_file_opts *opts,
									 const pgwt_tf_window *w);

/* Appenders open, append one line, and close (side files are small and
 * rarely written). Files are created 0640 with opts' group. A line that
 * would take the file past opts->side_max_bytes is refused with
 * -PGWT_TF_FULL. The path forms check dir as pgwt_tf_safe_dir_open
 * does; the _at forms take a directory opened that way. */
extern int	pgwt_tf_backend_append(const char *dir, const pgwt_tf_file_opts *opts,
								   const pgwt_tf_backend *b);
/* Stores nothing in mode NONE; truncates at PGWT_TF_QUERY_TEXT_MAX. */
extern int	pgwt_tf_query_append(const char *dir, const pgwt_tf_file_opts *opts,
								 pgwt_tf_query_mode mode, uint64_t query_id,
								 const char *text);
/* Appends "#file<TAB>start_rt" to an existing queries.tsv (the writer
 * does it whenever a trace file starts; docs/TRACE_FORMAT.md 8.2). */
#define PGWT_TF_QUERIES_FILE_MARK	"#file"
extern int	pgwt_tf_queries_mark_file(const char *dir, uint64_t start_rt);
/*
 * An event name is data from a server: 1..PGWT_TF_EVENT_NAME_MAX bytes,
 * no control character (bytes below 0x20, and 0x7F). Writers clean a name
 * to that rule (pgwt_tf_event_name_clean: control characters become '?',
 * the name is cut without splitting a UTF-8 character; returns its length,
 * 0 for an empty name); readers refuse a line that breaks it, and take at
 * most PGWT_TF_EVENTS_MAX_LINES lines of events.tsv (docs/TRACE_FORMAT.md
 * 8.3). Pure.
 */
#define PGWT_TF_EVENT_NAME_MAX		64
#define PGWT_TF_EVENTS_MAX_LINES	8192
extern size_t pgwt_tf_event_name_clean(const char *in, char *out, size_t outlen);
extern bool pgwt_tf_event_name_ok(const char *name);
/* Replaces the event-name table atomically (tmp + rename). */
extern int	pgwt_tf_events_write(const char *dir, const pgwt_tf_file_opts *opts,
								 uint32_t pg_version,
								 const pgwt_tf_event_name *ev, size_t n);
extern int	pgwt_tf_backend_append_at(int dirfd, const pgwt_tf_file_opts *opts,
									  const pgwt_tf_backend *b);
/* The n lines (n <= PGWT_TF_BACKENDS_BATCH_MAX) in one open and one
 * write(): all of them or, on any error, none (a field past the line's
 * bound is -PGWT_TF_INVAL; past the side-file bound -PGWT_TF_FULL). */
#define PGWT_TF_BACKENDS_BATCH_MAX	64
extern int	pgwt_tf_backends_append_at(int dirfd, const pgwt_tf_file_opts *opts,
									   const pgwt_tf_backend *b, size_t n);
extern int	pgwt_tf_query_append_at(int dirfd, const pgwt_tf_file_opts *opts,
									pgwt_tf_query_mode mode, uint64_t query_id,
									const char *text);
extern int	pgwt_tf_queries_mark_file_at(int dirfd, uint64_t start_rt);
extern int	pgwt_tf_events_write_at(int dirfd, const pgwt_tf_file_opts *opts,
									uint32_t pg_version,
									const pgwt_tf_event_name *ev, size_t n);
/* Appends the n names to events.tsv in one write() (a new file gets the
 * magic line with pg_version first); names are cleaned as above, entries
 * without a class or a name are skipped. Within the side-file bound. */
extern int	pgwt_tf_events_append_at(int dirfd, const pgwt_tf_file_opts *opts,
									 uint32_t pg_version,
									 const pgwt_tf_event_name *ev, size_t n);
/* Appends len bytes of whole lines to the side file `name` (a plain name,
 * e.g. PGWT_TF_BLOCKERS_NAME) in one write(), within the same bound. */
extern int	pgwt_tf_side_append_at(int dirfd, const char *name,
								   const pgwt_tf_file_opts *opts,
								   const char *lines, size_t len);

/*
 * Bounds (side_bounds.c, pure). Each side file is bounded: by default
 * PGWT_TF_SIDE_MAX_DEFAULT; in a directory capped at retention_bytes, an
 * eighth of the cap, at least PGWT_TF_SIDE_MAX_FLOOR. Retention cuts a
 * file past 7/8 of its bound to its newest lines (3/4 of it: room to
 * append until the next pass), and counts side files in the cap.
 */
#define PGWT_TF_SIDE_MAX_DEFAULT	(64ull << 20)
#define PGWT_TF_SIDE_MAX_FLOOR		(64ull << 10)
extern uint64_t pgwt_tf_side_bound(uint64_t retention_bytes);
/* keep[i] for lines of len[i] bytes (LF included), oldest first: line 0
 * when keep_first (the magic line), then the newest lines that fit in
 * target bytes with it. Returns the lines dropped. */
extern size_t pgwt_tf_side_trim(const size_t *len, size_t n, bool keep_first,
								uint64_t target, bool *keep);

/*
 * The query ids whose text a writer already wrote into the current trace
 * file: a fixed-size set (PGWT_TF_QUERY_SEEN_SETS x _WAYS ids) evicting
 * the id seen least recently in its set. An id in use stays; one evicted
 * costs one more line when it comes back. Reset at each new file.
 */
#define PGWT_TF_QUERY_SEEN_SETS	2048
#define PGWT_TF_QUERY_SEEN_WAYS	4
typedef struct pgwt_tf_query_seen
{
	uint64_t	id[PGWT_TF_QUERY_SEEN_SETS][PGWT_TF_QUERY_SEEN_WAYS];	/* 0 = empty */
	uint32_t	used[PGWT_TF_QUERY_SEEN_SETS][PGWT_TF_QUERY_SEEN_WAYS];
	uint32_t	clock;
	uint64_t	evicted;
} pgwt_tf_query_seen;

extern void pgwt_tf_query_seen_reset(pgwt_tf_query_seen *s);
/* true: id was in the set (its text is written); false: it is added now
 * (its text is to be written). id 0 is never added (always false). */
extern bool pgwt_tf_query_seen_add(pgwt_tf_query_seen *s, uint64_t id);

/* Replace SQL literals by '?' into out (NUL-terminated, truncated to
 * outlen - 1). Returns the length written. Pure. */
extern size_t pgwt_tf_normalize_query(const char *in, char *out, size_t outlen);

/* Readers: the callback gets each valid line; bad lines are counted in
 * *bad (may be NULL). The strings live only during the callback.
 * events.tsv lines past PGWT_TF_EVENTS_MAX_LINES count as bad. */
typedef int (*pgwt_tf_backend_cb) (const pgwt_tf_backend *b, void *arg);
typedef int (*pgwt_tf_query_cb) (uint64_t query_id, pgwt_tf_query_mode mode,
								 bool truncated, const char *text, void *arg);
typedef int (*pgwt_tf_event_cb) (const pgwt_tf_event_name *e, void *arg);
extern int	pgwt_tf_backends_read(const char *dir, pgwt_tf_backend_cb cb,
								  void *arg, uint64_t *bad);
extern int	pgwt_tf_queries_read(const char *dir, pgwt_tf_query_cb cb,
								 void *arg, uint64_t *bad);
extern int	pgwt_tf_events_read(const char *dir, pgwt_tf_event_cb cb,
								void *arg, uint32_t *pg_version, uint64_t *bad);
/* The same from the seed tool's backends.jsonl, query_texts.jsonl and
 * wait_event_names.json (seed_sidefiles.c); the readers above fall back
 * to these when their own file is missing. */
extern int	pgwt_tf_seed_backends_read(const char *dir, pgwt_tf_backend_cb cb,
									   void *arg, uint64_t *bad);
extern int	pgwt_tf_seed_queries_read(const char *dir, pgwt_tf_query_cb cb,
									  void *arg, uint64_t *bad);
extern int	pgwt_tf_seed_events_read(const char *dir, pgwt_tf_event_cb cb, void *arg,
									 uint32_t *pg_version, uint64_t *bad);
/* The seed's name of a process type ("client" for "client backend"). */
extern const char *pgwt_tf_seed_type_name(const char *backend_type);
/* Writes backends.jsonl, query_texts.jsonl and wait_event_names.json from
 * the directory's own side files (seed_sidefiles_write.c), each through
 * a .tmp and rename, so the seed tool finds its own; 0 or -PGWT_TF_*. */
extern int	pgwt_tf_seed_sidefiles_write(const char *dir);

/*
 * Side-file retention rules (pure; applied by pgwt_tf_dir_apply_retention
 * with the start of the oldest retained trace file as the horizon).
 * keep_backends: of the n backends lines (valid[i] false = not a parsable
 * line, always kept), drop every line started at or before horizon_rt
 * that a later-starting line of the same pid, also at or before it,
 * supersedes. keep_blocker: a blockers.tsv line is kept unless its ts_ns
 * lies before horizon_mono.
 */
extern int	pgwt_tf_side_keep_backends(const uint32_t *pid, const uint64_t *start,
									   const bool *valid, size_t n,
									   uint64_t horizon_rt, bool *keep);
extern bool pgwt_tf_side_keep_blocker(const char *line, size_t len,
									  uint64_t horizon_mono);

/*
 * keep_queries: queries.tsv lines (line[i], len[i]; line 0 is the magic
 * line) in segments that start at "#file" marks. Lines before the
 * previous-but-one mark that starts at or before horizon_rt (i.e. before
 * the mark of the file preceding the oldest retained one, kept as a grace
 * segment for records that crossed a rotation) are dropped, marks
 * included; so is a line identical to an earlier one of the same segment.
 * Lines that are neither texts nor marks are kept. Without a mark at or
 * before the horizon nothing is aged.
 */
extern int	pgwt_tf_side_keep_queries(const char *const *line, const size_t *len,
									  size_t n, uint64_t horizon_rt, bool *keep);

#endif							/* PGWT_TRACEFMT_H */
