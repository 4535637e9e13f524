/*
 * file_reader.c
 *		Reads one trace file block by block with bounded memory: one
 *		compressed payload and one decoded block at a time.
 *
 * Two ways to find blocks:
 *	 - footer: an archive's footer lists {first_ts, offset} per block. The
 *	   file is hostile input: a footer that claims more entries than the
 *	   file's bytes can hold (each block takes at least its header and a
 *	   byte, plus its entry) is refused before anything is read or
 *	   allocated, and the entries must point at ascending offsets between
 *	   the header and the footer. The entries are sorted by first_ts
 *	   (O(n log n) whatever their order) and a time range is found by binary
 *	   search: in a v4 file no block spans more than PGWT_TF_MAX_BLOCK_SPAN_NS,
 *	   so blocks holding ts >= t_start have first_ts >= t_start - span
 *	   (v2/v3 files promise no span, nor sorted blocks when the seed tool
 *	   wrote them, so every block is read and its records filtered).
 *	 - scan: a live file (or an archive whose footer is unusable) is walked
 *	   header by header from offset 28. A live file stops at the committed
 *	   count of <path>.meta; an invalid header ends the walk (its length is
 *	   not trustworthy), and the rest counts as truncated bytes.
 * Every block is validated (block.c); a bad block is counted and skipped.
 *
 * The object belongs to one thread; the stats it updates are its owner's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefmt/tf_internal.h"
#include "tracefmt/tf_le.h"

struct tf_file_reader
{
	int			fd;
	char	   *path;
	pgwt_tf_file_header hdr;
	uint64_t	size;			/* file size last seen */
	bool		live;
	bool		use_meta;
	bool		from_footer;
	pgwt_tf_read_stats *stats;

	/* block index: footer entries, or entries found by scanning so far */
	uint64_t   *idx_ts;
	uint64_t   *idx_off;
	uint32_t	idx_n;
	uint32_t	idx_cap;
	uint32_t	pos;			/* footer mode: next entry; range end in hi */
	uint32_t	hi;

	/* scan mode */
	uint64_t	scan_off;
	uint64_t	scan_limit;		/* footer start or file size */
	uint64_t	committed;		/* live: blocks the writer committed */
	uint64_t	scanned;		/* blocks walked (good or bad payload) */
	bool		scan_stopped;	/* invalid header met */

	uint64_t	valid_end;
	uint64_t	t_start;
	uint64_t	t_end;
	bool		skip_samples;	/* SAMPLES blocks skipped by header */

	tf_v8_dec  *v8;				/* v8 decoder state, kept across blocks */
	uint64_t	shift;			/* added to the ts handed out */
	bool		shifted;		/* the block read last: its decoder added it */

	/* scratch, written before every read of it: left unzeroed at open
	 * (clearing half a megabyte per file was most of a file's open cost) */
	uint8_t		payload[TF_COMPRESSED_MAX];
	uint8_t		raw[PGWT_TF_PAYLOAD_MAX];
	bool		skip_cpu;		/* the caller never reads cpu_ns */
};

static int
tf_index_push(tf_file_reader *f, uint64_t ts, uint64_t off)
{
	if (f->idx_n == f->idx_cap)
	{
		uint32_t	cap = f->idx_cap ? f->idx_cap * 2 : 64;
		uint64_t   *a = realloc(f->idx_ts, cap * sizeof(uint64_t));
		uint64_t   *b;

		if (!a)
			return -PGWT_TF_NOMEM;
		f->idx_ts = a;
		b = realloc(f->idx_off, cap * sizeof(uint64_t));
		if (!b)
			return -PGWT_TF_NOMEM;
		f->idx_off = b;
		f->idx_cap = cap;
	}
	f->idx_ts[f->idx_n] = ts;
	f->idx_off[f->idx_n] = off;
	f->idx_n++;
	return 0;
}

/* Loads and checks the footer; 0 = usable, else why not. */
static int
tf_load_footer(tf_file_reader *f)
{
	uint8_t		nbuf[4];
	uint8_t    *buf;
	uint64_t	n;
	uint64_t	start;
	uint64_t	i;
	int			rc;

	if (f->size < PGWT_TF_FILE_HEADER_SIZE + 4)
		return -PGWT_TF_BAD_FOOTER;
	if ((rc = tf_pread_all(f->fd, nbuf, 4, (off_t) (f->size - 4))) < 0)
		return rc;
	n = tf_get_u32(nbuf);
	/* each block costs at least its header plus its footer entry */
	if (n > (f->size - PGWT_TF_FILE_HEADER_SIZE - 4) /
		(PGWT_TF_BLOCK_HEADER_SIZE + PGWT_TF_FOOTER_ENTRY_SIZE + 1))
		return -PGWT_TF_BAD_FOOTER;
	start = f->size - 4 - n * PGWT_TF_FOOTER_ENTRY_SIZE;
	if (n == 0)
	{
		if (start != PGWT_TF_FILE_HEADER_SIZE)
			return -PGWT_TF_BAD_FOOTER;
		f->scan_limit = start;
		return 0;
	}
	buf = malloc(n * PGWT_TF_FOOTER_ENTRY_SIZE);
	if (!buf)
		return -PGWT_TF_NOMEM;
	rc = tf_pread_all(f->fd, buf, n * PGWT_TF_FOOTER_ENTRY_SIZE, (off_t) start);
	for (i = 0; rc == 0 && i < n; i++)
	{
		uint64_t	ts = tf_get_u64(buf + i * 16);
		uint64_t	off = tf_get_u64(buf + i * 16 + 8);
		uint64_t	prev_end = i == 0 ? PGWT_TF_FILE_HEADER_SIZE
			: f->idx_off[i - 1] + PGWT_TF_BLOCK_HEADER_SIZE + 1;

		/* blocks follow each other between the header and the footer
		 * (recovery leaves out blocks it found damaged, so gaps occur) */
		if (off < prev_end ||
			off > start - PGWT_TF_BLOCK_HEADER_SIZE - 1)
			rc = -PGWT_TF_BAD_FOOTER;
		else
			rc = tf_index_push(f, ts, off);
	}
	free(buf);
	if (rc < 0)
	{
		f->idx_n = 0;
		return rc;
	}
	f->scan_limit = start;
	return 0;
}

typedef struct tf_index_pair
{
	uint64_t	ts;
	uint64_t	off;
} tf_index_pair;

/* first_ts, then file order: offsets are unique and grow in file order */
static int
tf_index_pair_cmp(const void *a, const void *b)
{
	const tf_index_pair *x = a,
			   *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * Sort index entries by first_ts, ties in file order (the footer's order,
 * which tf_load_footer checked to be ascending offsets). A writer's footer
 * is already sorted: one pass finds that. Otherwise (a recovered file, or
 * one made to be slow) qsort on a scratch array: O(n log n) however the
 * footer is ordered.
 */
static int
tf_index_sort(tf_file_reader *f)
{
	tf_index_pair *pairs;
	uint32_t	i;

	for (i = 1; i < f->idx_n; i++)
		if (f->idx_ts[i - 1] > f->idx_ts[i])
			break;
	if (i >= f->idx_n)
		return 0;
	pairs = malloc((size_t) f->idx_n * sizeof(*pairs));
	if (!pairs)
		return -PGWT_TF_NOMEM;
	for (i = 0; i < f->idx_n; i++)
	{
		pairs[i].ts = f->idx_ts[i];
		pairs[i].off = f->idx_off[i];
	}
	qsort(pairs, f->idx_n, sizeof(*pairs), tf_index_pair_cmp);
	for (i = 0; i < f->idx_n; i++)
	{
		f->idx_ts[i] = pairs[i].ts;
		f->idx_off[i] = pairs[i].off;
	}
	free(pairs);
	return 0;
}

static int
tf_refresh_live(tf_file_reader *f)
{
	struct stat st;

	if (f->use_meta)
	{
		uint64_t	c;

		/* A missing or garbled .meta commits nothing new. */
		if (tf_read_meta(f->path, &c) == 0 && c > f->committed)
			f->committed = c;
	}
	if (fstat(f->fd, &st) < 0)
		return -PGWT_TF_IO;
	f->size = (uint64_t) st.st_size;
	f->scan_limit = f->size;
	return 0;
}

/*
 * A live file with no .meta at all (the seed tool's writer had not renamed
 * its first count into place, or the count was lost) is read to its last
 * complete block, as with ignore_meta; a .meta that exists but does not
 * parse still commits nothing (docs/TRACE_FORMAT.md 6.1).
 */
static bool
tf_file_reader_meta_present(const char *path)
{
	char		meta[4096];
	struct stat st;

	if (snprintf(meta, sizeof(meta), "%s%s", path, PGWT_TF_META_SUFFIX) >= (int) sizeof(meta))
		return true;
	return lstat(meta, &st) == 0 || errno != ENOENT;
}

/*
 * The bytes from off to the end are a footer of the blocks walked so far
 * (a current.trace finished in place, without .meta): N entries and N,
 * each entry the first_ts and offset of a block read. Not damage.
 */
static bool
tf_tail_is_footer(tf_file_reader *f, uint64_t off)
{
	uint8_t		b[16];
	uint32_t	n,
				i;

	if (f->size < off + 4 || tf_pread_all(f->fd, b, 4, (off_t) (f->size - 4)) < 0)
		return false;
	n = tf_get_u32(b);
	if (n != f->idx_n || f->size - off != 4 + (uint64_t) n * 16)
		return false;
	for (i = 0; i < n; i++)
	{
		if (tf_pread_all(f->fd, b, 16, (off_t) (off + (uint64_t) i * 16)) < 0 ||
			tf_get_u64(b) != f->idx_ts[i] || tf_get_u64(b + 8) != f->idx_off[i])
			return false;
	}
	return true;
}

int
tf_file_reader_open(const char *path, bool live, bool ignore_meta,
					pgwt_tf_read_stats *stats, tf_file_reader **out)
{
	tf_file_reader *f;
	struct stat st;
	uint8_t		buf[PGWT_TF_FILE_HEADER_SIZE];
	int			rc;

	f = malloc(sizeof(*f));
	if (f)
		memset(f, 0, offsetof(tf_file_reader, payload));
	if (!f || !(f->path = strdup(path)))
	{
		free(f);
		return -PGWT_TF_NOMEM;
	}
	f->stats = stats;
	f->live = live;
	f->use_meta = live && !ignore_meta && tf_file_reader_meta_present(path);
	f->t_end = UINT64_MAX;
	f->fd = pgwt_tf_open_regular(path);
	if (f->fd < 0)
	{
		rc = f->fd == -PGWT_TF_NOT_REGULAR ? f->fd : -PGWT_TF_IO;
		free(f->path);
		free(f);
		return rc;
	}
	if (fstat(f->fd, &st) < 0)
		rc = -PGWT_TF_IO;
	else
	{
		f->size = (uint64_t) st.st_size;
		rc = tf_pread_all(f->fd, buf, sizeof(buf), 0);
	}
	if (rc == 0)
		rc = tf_file_header_decode(buf, &f->hdr);
	if (rc < 0)
		goto fail;
	f->scan_off = PGWT_TF_FILE_HEADER_SIZE;
	f->valid_end = PGWT_TF_FILE_HEADER_SIZE;

	if (live)
		rc = tf_refresh_live(f);
	else
	{
		rc = tf_load_footer(f);
		if (rc == 0)
			rc = tf_index_sort(f);
		if (rc == 0)
		{
			f->from_footer = true;
			f->hi = f->idx_n;
		}
		else if (rc != -PGWT_TF_NOMEM && rc != -PGWT_TF_IO)
		{
			/* An archive without a usable footer is still readable. */
			stats->footers_bad++;
			f->scan_limit = f->size;
			rc = 0;
		}
	}
	if (rc < 0)
		goto fail;
	stats->files++;
	*out = f;
	return 0;

fail:
	close(f->fd);
	tf_v8_dec_free(f->v8);
	free(f->path);
	free(f);
	return rc;
}

void
tf_file_reader_close(tf_file_reader *f)
{
	if (!f)
		return;
	close(f->fd);
	tf_v8_dec_free(f->v8);
	free(f->idx_ts);
	free(f->idx_off);
	free(f->path);
	free(f);
}

const pgwt_tf_file_header *
tf_file_reader_header(const tf_file_reader *f)
{
	return &f->hdr;
}

/* First index entry with idx_ts >= ts. */
static uint32_t
tf_lower_bound(const tf_file_reader *f, uint64_t ts)
{
	uint32_t	lo = 0,
				hi = f->idx_n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (f->idx_ts[mid] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
tf_file_reader_skip_cpu(tf_file_reader *f, bool skip)
{
	f->skip_cpu = skip;
}

void
tf_file_reader_set_range(tf_file_reader *f, uint64_t t_start, uint64_t t_end)
{
	f->t_start = t_start;
	f->t_end = t_end;
	if (f->from_footer)
	{
		uint64_t	from = 0;

		if (f->hdr.version >= 4)
			from = t_start > PGWT_TF_MAX_BLOCK_SPAN_NS ? t_start - PGWT_TF_MAX_BLOCK_SPAN_NS : 0;
		f->pos = tf_lower_bound(f, from);
		f->hi = t_end == UINT64_MAX || f->hdr.version <= 3 ? f->idx_n
			: tf_lower_bound(f, t_end + 1);
		if (f->stats)
			f->stats->blocks_skipped_range += f->pos + (f->idx_n - f->hi);
	}
}

void
tf_file_reader_set_shift(tf_file_reader *f, uint64_t shift)
{
	f->shift = shift;
}

void
tf_file_reader_skip_samples(tf_file_reader *f, bool skip)
{
	f->skip_samples = skip;
}

/*
 * Reads and decodes the block at off, bounded by limit. Returns 1 when
 * decoded, 0 when skipped for the time range, < 0 when invalid; *len gets
 * the block's length whenever its header was valid (else 0).
 */
static int
tf_read_block_at(tf_file_reader *f, uint64_t off, uint64_t limit,
				 pgwt_tf_block_header *h, pgwt_record *recs, uint64_t *len)
{
	uint8_t		hb[PGWT_TF_BLOCK_HEADER_SIZE];
	int			rc;

	*len = 0;
	if (off > limit || limit - off < PGWT_TF_BLOCK_HEADER_SIZE)
		return -PGWT_TF_TRUNCATED;
	if ((rc = tf_pread_all(f->fd, hb, sizeof(hb), (off_t) off)) < 0)
		return rc;
	if ((rc = tf_block_header_decode(hb, f->hdr.version, f->hdr.flags, h)) < 0)
		return rc;
	if (limit - off - PGWT_TF_BLOCK_HEADER_SIZE < h->compressed)
		return -PGWT_TF_TRUNCATED;
	*len = PGWT_TF_BLOCK_HEADER_SIZE + (uint64_t) h->compressed;
	/* a v2/v3 header bounds nothing when the seed tool wrote it: its
	 * records are filtered once decoded */
	if (f->hdr.version > 3 && (h->last_ts < f->t_start || h->first_ts > f->t_end))
		return 0;
	if (f->skip_samples && h->type == PGWT_TF_BLOCK_SAMPLES)
		return 0;
	if ((rc = tf_pread_all(f->fd, f->payload, h->compressed,
						   (off_t) (off + PGWT_TF_BLOCK_HEADER_SIZE))) < 0)
		return rc;
	/*
	 * v8 transitions bound their ts by the header's: a block wholly inside
	 * the range needs no filter, and its decoder adds the shift as it
	 * hands records out (anything else is filtered first, then shifted)
	 */
	f->shifted = f->shift != 0 && h->type == PGWT_TF_BLOCK_TRANSITIONS &&
		f->hdr.version >= 8 && h->first_ts >= f->t_start && h->last_ts <= f->t_end;
	if ((rc = tf_block_decode_ctx(f->hdr.version, f->hdr.flags, h, f->payload,
								  f->raw, recs, &f->v8, f->skip_cpu,
								  f->shifted ? f->shift : 0)) < 0)
		return rc;
	return 1;
}

/* Keeps the records inside the range; returns how many. */
static uint32_t
tf_filter_range(const tf_file_reader *f, pgwt_record *recs, uint32_t n)
{
	uint32_t	i,
				k = 0;

	if (f->t_start == 0 && f->t_end == UINT64_MAX)
		return n;
	for (i = 0; i < n; i++)
		if (recs[i].ts_ns >= f->t_start && recs[i].ts_ns <= f->t_end)
		{
			if (k != i)
				recs[k] = recs[i];
			k++;
		}
	return k;
}

static bool
tf_fatal(int rc)
{
	return rc == -PGWT_TF_NOMEM || rc == -PGWT_TF_IO;
}

int
tf_file_reader_next(tf_file_reader *f, pgwt_record *recs, uint32_t *n,
					uint16_t *type, uint64_t *period)
{
	pgwt_tf_block_header h;
	uint64_t	len;
	int			rc;

	for (;;)
	{
		uint64_t	off;

		if (f->from_footer)
		{
			if (f->pos >= f->hi)
				return 0;
			off = f->idx_off[f->pos];
			rc = tf_read_block_at(f, off, f->scan_limit, &h, recs, &len);
			/* the header must agree with the footer that pointed at it */
			if (rc >= 0 && h.first_ts != f->idx_ts[f->pos])
				rc = -PGWT_TF_BAD_BLOCK;
			f->pos++;
		}
		else
		{
			if (f->scan_stopped || (f->use_meta && f->scanned >= f->committed))
				return 0;
			if (f->scan_off >= f->scan_limit)
			{
				/* A live file that ends here may still grow. */
				if (!f->live)
					f->scan_stopped = true;
				return 0;
			}
			off = f->scan_off;
			rc = tf_read_block_at(f, off, f->scan_limit, &h, recs, &len);
			if (len == 0)
			{
				if (tf_fatal(rc))
					return rc;
				/* Header unusable or block cut: the walk cannot go on. An
				 * uncommitted tail of a live file is simply not there yet. */
				if (f->live && !f->use_meta && tf_tail_is_footer(f, off))
				{
					f->scan_stopped = true;
					return 0;
				}
				if (f->live && !f->use_meta && rc == -PGWT_TF_TRUNCATED)
				{
					f->stats->bytes_truncated += f->scan_limit - off;
					f->scan_stopped = true;
					return 0;
				}
				if (f->use_meta)
					f->stats->blocks_bad++;
				f->stats->bytes_truncated += f->scan_limit - off;
				f->scan_stopped = true;
				return 0;
			}
			f->scan_off = off + len;
			f->scanned++;
		}
		if (rc < 0)
		{
			if (tf_fatal(rc))
				return rc;
			f->stats->blocks_bad++;
			continue;
		}
		if (!f->from_footer)
		{
			int			prc = tf_index_push(f, h.first_ts, off);

			if (prc < 0)
				return prc;
			if (off + len > f->valid_end)
				f->valid_end = off + len;
		}
		if (rc == 0)
		{
			f->stats->blocks_skipped_range++;
			continue;
		}
		f->stats->blocks++;
		if (f->shifted)
			*n = h.n;
		else
		{
			*n = tf_filter_range(f, recs, h.n);
			for (uint32_t i = 0; f->shift != 0 && i < *n; i++)
				recs[i].ts_ns += f->shift;
		}
		if (*n == 0)
			continue;
		*type = h.type;
		*period = h.sample_period_ns;
		f->stats->records += *n;
		return 1;
	}
}

int
tf_file_reader_poll(tf_file_reader *f)
{
	uint64_t	before = f->committed;
	int			rc;

	if (!f->live)
		return 0;
	if ((rc = tf_refresh_live(f)) < 0)
		return rc;
	if (!f->use_meta)
		f->scan_stopped = false;
	return (int) (f->committed - before);
}

uint64_t
tf_file_reader_valid_end(const tf_file_reader *f)
{
	return f->valid_end;
}

uint32_t
tf_file_reader_nblocks(const tf_file_reader *f)
{
	return f->idx_n;
}

void
tf_file_reader_index(const tf_file_reader *f, const uint64_t **first_ts,
					 const uint64_t **offsets, uint32_t *n)
{
	*first_ts = f->idx_ts;
	*offsets = f->idx_off;
	*n = f->idx_n;
}
