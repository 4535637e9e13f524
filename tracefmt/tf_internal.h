/*
 * tf_internal.h
 *		Declarations shared between the library's own files; not installed
 *		and not for callers (they use tracefmt.h).
 */
#ifndef PGWT_TF_INTERNAL_H
#define PGWT_TF_INTERNAL_H

#include <sys/stat.h>
#include <sys/types.h>

#include "tracefmt/tracefmt.h"

/* ---- block.c: pure codec -------------------------------------------- */

/* Largest compressed payload we accept or produce. */
#define TF_COMPRESSED_MAX	(PGWT_TF_PAYLOAD_MAX + PGWT_TF_PAYLOAD_MAX / 255 + 16)

/* Checksum of the stored payload (v4 block header; spec: "Checksum"). */
extern uint16_t tf_checksum16(const uint8_t *p, size_t len);
extern void tf_file_header_encode(const pgwt_tf_file_header *h, uint8_t *out);
extern int	tf_file_header_decode(const uint8_t *in, pgwt_tf_file_header *h);
extern void tf_block_header_encode(const pgwt_tf_block_header *h, uint8_t *out);
/* Decodes and validates a block header for a file of this version/flags. */
extern int	tf_block_header_decode(const uint8_t *in, uint16_t version,
								   uint16_t flags, pgwt_tf_block_header *h);
/* Bytes one record takes uncompressed at most, for this version/type. */
extern size_t tf_record_max_bytes(uint16_t version, uint16_t type);
/* Bytes a block's payload may hold beyond n x tf_record_max_bytes. */
extern size_t tf_block_fixed_max_bytes(uint16_t version, uint16_t type);
/*
 * Stores raw (raw_len bytes) at out, LZ4-compressed when flags ask, and
 * sets h->compressed; -PGWT_TF_INVAL when compression fails.
 */
extern int	tf_block_store_payload(const uint8_t *raw, size_t raw_len, uint16_t flags,
								   uint8_t *out, pgwt_tf_block_header *h);
/* ---- block_v6.c: v6 TRANSITIONS columns after the ts column ----------- */

/*
 * The dictionaries of a v6/v8 TRANSITIONS block (pids in table order
 * through order[], events, query ids, each after its count) and then the
 * column lengths and the columns (ncols columns stride bytes apart);
 * returns the end.
 */
extern uint8_t *tf_put_dicts_columns(uint8_t *p, const uint32_t *pids, const uint16_t *order,
									 uint32_t np, const uint32_t *events, uint32_t ne,
									 const uint64_t *queries, uint32_t nq,
									 const uint8_t *cols, size_t stride,
									 const size_t *col_len, unsigned ncols);

/* Writes the columns at p; returns the end, NULL when out of memory. */
extern uint8_t *tf_encode_transitions_v6(const pgwt_record *recs, uint32_t n,
										 uint8_t *p);
/* Reads them from [*pp, end) (ts_ns already set); the payload's rest. */
extern int	tf_decode_transitions_v6(const uint8_t **pp, const uint8_t *end,
									 uint32_t n, pgwt_record *recs);
/*
 * The same with the n code bytes apart from the rest (tables, column
 * lengths, exception columns), for v7, which entropy-codes the codes:
 * the encoder writes the codes to codes and the rest at p (returns its
 * end); the decoder reads the rest from [*pp, end).
 */
extern uint8_t *tf_encode_v6_fields(const pgwt_record *recs, uint32_t n,
									uint8_t *codes, uint8_t *p);
extern int	tf_decode_v6_fields(const uint8_t *codes, const uint8_t **pp,
								const uint8_t *end, uint32_t n, pgwt_record *recs);

/* ---- block_v7.c: v7 TRANSITIONS (entropy-coded ts and code bytes) ----- */

/* Writes the whole payload at p (ts included); NULL when out of memory. */
extern uint8_t *tf_encode_transitions_v7(const pgwt_record *recs, uint32_t n,
										 uint8_t *p);
/* Reads it from [*pp, end), ts within [first_ts, last_ts]. */
extern int	tf_decode_transitions_v7(const uint8_t **pp, const uint8_t *end,
									 uint32_t n, uint64_t first_ts,
									 uint64_t last_ts, pgwt_record *recs);

/*
 * Encodes n records (all of one kind, sorted by ts) into the payload
 * columns of raw (capacity PGWT_TF_PAYLOAD_MAX), then compresses into out
 * (capacity TF_COMPRESSED_MAX) unless flags lacks LZ4. Fills hdr.
 */
extern int	tf_block_encode(uint16_t version, uint16_t flags, uint16_t type,
							uint64_t sample_period_ns,
							const pgwt_record *recs, uint32_t n,
							uint8_t *raw, uint8_t *out,
							pgwt_tf_block_header *hdr);

/*
 * Decodes a validated header's payload (hdr->compressed bytes at src) into
 * recs (capacity PGWT_TF_BLOCK_MAX_RECORDS) using raw (capacity
 * PGWT_TF_PAYLOAD_MAX) as scratch. Every value is checked.
 */
extern int	tf_block_decode(uint16_t version, uint16_t flags,
							const pgwt_tf_block_header *hdr,
							const uint8_t *src, uint8_t *raw,
							pgwt_record *recs);
/*
 * The same, for a caller that decodes many blocks: *v8 (NULL at first)
 * keeps the v8 decoder's state between calls; tf_v8_dec_free frees it.
 * skip_cpu: the caller never reads cpu_ns (pgwt_tf_read_opts.skip_cpu).
 * shift is added to every record's ts handed out (modulo 2^64, as
 * pgwt_tf_to_realtime wraps); the decoders check the stored ts.
 */
typedef struct tf_v8_dec tf_v8_dec;
extern int	tf_block_decode_ctx(uint16_t version, uint16_t flags,
								const pgwt_tf_block_header *hdr,
								const uint8_t *src, uint8_t *raw,
								pgwt_record *recs, tf_v8_dec **v8, bool skip_cpu,
								uint64_t shift);
extern void tf_v8_dec_free(tf_v8_dec *d);

/* ---- seed_layout.c: blocks of v2/v3 as the seed tool writes them ------ */

/* true (and *pp past the ts column) when the block's ts deltas are in the
 * seed's layout: the first from 0, wrapping, ending at last_ts. */
extern bool tf_seed_timestamps(const uint8_t **pp, const uint8_t *end, uint32_t n,
							   const pgwt_tf_block_header *hdr, pgwt_record *recs);
/* A decoded seed block in our terms: markers converted, sorted by ts. */
extern int	tf_seed_normalize(pgwt_record *recs, uint32_t n);
/* seed_writer.c: a block in the seed's own layout (version 2 or 3; recs
 * sorted, markers it does not know left out by the caller: keeps() says
 * which it knows), and its bare live count through .meta.tmp + rename. */
extern int	tf_seed_block_encode(uint16_t version, uint16_t flags, uint16_t type,
								 uint64_t sample_period_ns, const pgwt_record *recs,
								 uint32_t n, uint8_t *raw, uint8_t *out,
								 pgwt_tf_block_header *hdr);
extern bool tf_seed_w_keeps(const pgwt_record *r);
/* seed_json_text.c: the string value of key in one flat JSON object line
 * (line[*len] a NUL) decoded into out (cap bytes, NUL included; longer
 * texts cut at a character boundary, *truncated set), and replaced by ""
 * in the line (*len shrinks). 0; 1 no such key; -1 malformed; -2 no
 * memory. */
extern int	tf_seed_take_text(char *line, size_t *len, const char *key, char *out,
							  size_t cap, bool *truncated);
extern int	tf_seed_meta_store_at(int dirfd, const char *name, uint64_t count, int mode,
								  long gid);

/*
 * Canonical Huffman helpers of block_v7.c that v8 (block_v8.c) codes with
 * too: code lengths of at most TF_HUFF_MAX_LEN bits from frequencies;
 * bit-reversed canonical codes (-1 when the lengths over-subscribe);
 * a code table written as a count and 4-bit lengths; and read back into a
 * lookup table (ts: entries carry a ts symbol's leading bits and raw bit
 * count, docs/TRACE_FORMAT.md 3.1.3).
 */
#define TF_HUFF_MAX_LEN	11		/* tables of 2^11 entries stay in L1 */
typedef struct tf_v7_table
{
	uint32_t	e[1u << TF_HUFF_MAX_LEN];
	unsigned	bits;			/* index width: the longest code */
} tf_v7_table;
extern void tf_v7_code_lengths(const uint32_t *freq, unsigned nsym, uint8_t *len);
extern int	tf_v7_canonical(const uint8_t *len, unsigned nsym, uint32_t *rev);
extern uint8_t *tf_v7_put_lengths(uint8_t *p, const uint8_t *len, unsigned nsym);
extern int	tf_v7_get_table(const uint8_t **pp, const uint8_t *end, unsigned nsym,
							bool ts, tf_v7_table *t);

/* ---- block_v8.c (encoder), block_v8_dec.c (decoder): v8 TRANSITIONS --- */

/* Writes the whole payload at p; NULL when out of memory. */
extern uint8_t *tf_encode_transitions_v8(const pgwt_record *recs, uint32_t n,
										 uint8_t *p);
/*
 * Reads it from [*pp, end), ts ascending within [first_ts, last_ts]; ctx
 * as tf_block_decode_ctx's v8 (NULL: state for this block only).
 * skip_cpu: every cpu_ns is left PGWT_CPU_UNKNOWN, and the cpu column is
 * checked whole instead of decoded value by value (the same blocks are
 * refused). shift: as tf_block_decode_ctx's (the order and bounds are
 * checked on the stored ts).
 */
extern int	tf_decode_transitions_v8(const uint8_t **pp, const uint8_t *end,
									 uint32_t n, uint64_t first_ts,
									 uint64_t last_ts, pgwt_record *recs,
									 tf_v8_dec **ctx, bool skip_cpu, uint64_t shift);

/* ---- block_v7_samples.c: v7 SAMPLES columns after the ts column -------- */

/* Writes them at p (weights and period checked <= INT64_MAX by the
 * caller); NULL when out of memory. */
extern uint8_t *tf_encode_samples_v7(const pgwt_record *recs, uint32_t n,
									 uint64_t sample_period_ns, uint8_t *p);
/* Reads them from [*pp, end) (ts_ns already set); the payload's rest. */
extern int	tf_decode_samples_v7(const uint8_t **pp, const uint8_t *end, uint32_t n,
								 uint64_t sample_period_ns, pgwt_record *recs);

/* ---- file_reader.c: one file ------------------------------------------ */

typedef struct tf_file_reader tf_file_reader;

/* live: footerless file whose committed count is in path.meta. */
extern int	tf_file_reader_open(const char *path, bool live, bool ignore_meta,
								pgwt_tf_read_stats *stats,
								tf_file_reader **out);
extern void tf_file_reader_close(tf_file_reader *f);
extern const pgwt_tf_file_header *tf_file_reader_header(const tf_file_reader *f);
/* Restrict to records with ts in [t_start, t_end]. */
extern void tf_file_reader_set_range(tf_file_reader *f, uint64_t t_start, uint64_t t_end);
/* The caller never reads cpu_ns (pgwt_tf_read_opts.skip_cpu). */
extern void tf_file_reader_skip_cpu(tf_file_reader *f, bool skip);
/* Added to every record's ts handed out (pgwt_tf_read_opts.ts_realtime);
 * the range is still in the file's own ts. */
extern void tf_file_reader_set_shift(tf_file_reader *f, uint64_t shift);
/* Skip SAMPLES blocks by their header (pgwt_tf_read_opts.skip_samples). */
extern void tf_file_reader_skip_samples(tf_file_reader *f, bool skip);
/* 1 = block decoded into recs (*n, *type, *period), 0 = end, < 0 fatal. */
extern int	tf_file_reader_next(tf_file_reader *f, pgwt_record *recs, uint32_t *n,
								uint16_t *type, uint64_t *period);
extern int	tf_file_reader_poll(tf_file_reader *f);
/* Offset just past the last block that decoded fully (recovery). */
extern uint64_t tf_file_reader_valid_end(const tf_file_reader *f);
extern uint32_t tf_file_reader_nblocks(const tf_file_reader *f);
/* Footer entries of the blocks read so far, in file order. */
extern void tf_file_reader_index(const tf_file_reader *f, const uint64_t **first_ts,
								 const uint64_t **offsets, uint32_t *n);

/* ---- io helpers (file_io.c) ---------------------------------------------- */

extern int	tf_write_all(int fd, const void *buf, size_t len);
extern int	tf_pread_all(int fd, void *buf, size_t len, off_t off);
/*
 * path.meta, the committed count of a live file: a fixed-size checked
 * record (TF_META_LEN bytes). tf_meta_create writes the first one through
 * path.meta.tmp + rename and returns the open descriptor; tf_meta_store
 * overwrites it in place with one pwrite() (*fd, and every
 * TF_META_RECHECK-th call (*nstores counts them) creates it again if it
 * was removed).
 */
#define TF_META_DIGITS	10
#define TF_META_LEN		(TF_META_DIGITS + 1 + 8 + 1)
#define TF_META_RECHECK	64
extern int	tf_meta_create(const char *path, uint64_t count, int mode, long gid,
						   int *fd_out);
extern int	tf_meta_store(int *fd, const char *path, uint64_t count, int mode,
						  long gid, unsigned *nstores);
/* The same for the file `name` of the directory dirfd (safe_dir.c rules). */
extern int	tf_meta_create_at(int dirfd, const char *name, uint64_t count, int mode,
							  long gid, int *fd_out);
extern int	tf_meta_store_at(int *fd, int dirfd, const char *name, uint64_t count,
							 int mode, long gid, unsigned *nstores);
extern void tf_unlink_meta_at(int dirfd, const char *name);
/* Parse the committed count of path.meta (a checked record, or a bare
 * count from earlier writers); PGWT_TF_BAD_META if unusable. */
extern int	tf_read_meta(const char *path, uint64_t *count);
extern int	tf_fsync_dir(const char *dir);
/* unlink path.meta, ignoring errors */
extern void tf_unlink_meta_of(const char *path);
extern uint64_t tf_clock_realtime(const pgwt_tf_clock *c);
extern uint64_t tf_clock_monotonic(const pgwt_tf_clock *c);
/* A trace file `name` in the directory dirfd (duplicated: the writer
 * keeps its own); path is where it is for the summary when /proc is
 * missing (may be NULL). */
extern int	tf_file_writer_create_at(int dirfd, const char *name, const char *path,
									 const pgwt_tf_file_opts *opts,
									 pgwt_tf_file_writer **out);
/* Encode a footer for n entries into a malloc'd buffer. */
extern int	tf_footer_encode(const uint64_t *first_ts, const uint64_t *offsets,
							 uint32_t n, uint8_t **buf, size_t *len);

/* ---- safe_dir.c: opening files in a trace directory ------------------- */

/*
 * Names are plain (tf_name_ok: no '/', not "", "." or ".."); every open is
 * relative to the directory's descriptor with O_NOFOLLOW. The tf_openat_*
 * calls return a descriptor or -1 with errno (ENOENT: missing; EPERM: a
 * file that is no regular file of ours with one link, left untouched).
 */
extern bool tf_name_ok(const char *name);
/* A regular file of the effective user with one link. */
extern bool tf_file_safe(const struct stat *st);
extern int	tf_openat_read(int dirfd, const char *name);
/* O_RDWR of a safe file (recovery cuts and completes it). */
extern int	tf_openat_modify(int dirfd, const char *name);
/* Creates name (O_EXCL), then fchmod(mode) and fchown(gid >= 0). */
extern int	tf_openat_new(int dirfd, const char *name, int flags, int mode, long gid);
/* Removes whatever has the name (the name, never a link's target), then
 * tf_openat_new: for temporary files. */
extern int	tf_openat_replace(int dirfd, const char *name, int flags, int mode, long gid);
/* O_APPEND of a safe file; anything else under the name is removed and,
 * with create, replaced by a new empty file. */
extern int	tf_openat_append(int dirfd, const char *name, int mode, long gid, bool create);
/* The name exists and is not a safe file (a link, not ours, ...). */
extern bool tf_entry_unsafe(int dirfd, const char *name);
extern int	tf_fsync_dirfd(int dirfd);
/* Path APIs: the directory of path, strictly checked (safe_dir_open). */
extern int	tf_open_dir_path(const char *path, int *dirfd);
/* Path APIs for single files: the parent of path (opened as given) and
 * the last component, which must be a plain name. */
extern int	tf_split_path(const char *path, int *dirfd, const char **name);
/* A path that resolves through the descriptor (/proc/self/fd/N/name, or
 * dir_path/name without /proc), for code that takes paths. */
extern int	tf_at_path(int dirfd, const char *dir_path, const char *name,
					   char *buf, size_t len);
/* A path reopening fd itself (/proc/self/fd/N; dir_path/name without). */
extern int	tf_fd_path(int fd, const char *dir_path, const char *name,
					   char *buf, size_t len);

/* ---- side_retention.c: side files follow the archives' retention ----- */

/* Prunes the side files of dirfd to what can describe records at or after
 * the oldest retained file's start; now_* (the writer's clock) tells
 * whether a reboot lies between. Then cuts every side file over
 * max_bytes to its newest lines (pgwt_tf_side_trim). *dropped = lines
 * removed, *trimmed += those the bound removed. */
extern int	tf_side_apply_retention(int dirfd, const pgwt_tf_file_opts *opts,
									const pgwt_tf_file_header *oldest,
									uint64_t now_rt, uint64_t now_mono,
									uint64_t max_bytes, uint64_t *dropped,
									uint64_t *trimmed);

/* ---- summary_file.c: the summary beside a trace file ------------------- */

typedef struct tf_sum_writer tf_sum_writer;

/* Creates <trace_path>.sum with the trace's header fields. */
extern int	tf_sum_writer_create(const char *trace_path, const pgwt_tf_file_opts *opts,
								 const pgwt_tf_file_header *hdr, tf_sum_writer **out);
extern int	tf_sum_writer_add(tf_sum_writer *w, const pgwt_record *rec);
/* Writes the open seconds, fsyncs, closes, drops .meta; frees w. */
extern int	tf_sum_writer_finish(tf_sum_writer *w);
extern void tf_sum_writer_abandon(tf_sum_writer *w);
/* Cuts a leftover summary after its last valid frame (fsynced). */
extern int	tf_sum_recover(const char *sum_path, uint64_t *bytes_cut);


/* summary_memo.c: frame bounds of archived summary files, between readers */
typedef struct tf_sum_file_id
{
	uint64_t	dev,
				ino,
				size,
				mtime_ns;
} tf_sum_file_id;
struct pgwt_tf_sum_memo;
extern bool tf_sum_memo_get(struct pgwt_tf_sum_memo *m, const char *path,
							const tf_sum_file_id *id, uint64_t *lo, uint64_t *hi, bool *any);
extern void tf_sum_memo_put(struct pgwt_tf_sum_memo *m, const char *path,
							const tf_sum_file_id *id, uint64_t lo, uint64_t hi, bool any);

#endif							/* PGWT_TF_INTERNAL_H */
