/*
 * tfdump.c
 *		Prints every record of a trace file or directory as one text line,
 *		then the reader's stats. The golden test compares this output with
 *		committed expected dumps, so its format is frozen: change it only
 *		together with every expected dump in test/golden.
 *
 *	 tfdump [-r T0 T1] PATH
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

int
main(int argc, char **argv)
{
	pgwt_tf_read_opts opts = {0, UINT64_MAX, false, false, false, false, false};
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	const pgwt_tf_read_stats *st;
	int			argi = 1;
	int			rc;
	uint32_t	i;

	if (argc == 5 && strcmp(argv[1], "-r") == 0)
	{
		opts.t_start = strtoull(argv[2], NULL, 10);
		opts.t_end = strtoull(argv[3], NULL, 10);
		argi = 4;
	}
	if (argc != argi + 1)
	{
		fprintf(stderr, "usage: tfdump [-r T0 T1] PATH\n");
		return 2;
	}
	rc = pgwt_tf_reader_open(argv[argi], &opts, &r);
	if (rc < 0)
	{
		fprintf(stderr, "tfdump: %s: %s\n", argv[argi], pgwt_tf_strerror(rc));
		return 1;
	}
	for (i = 0; i < pgwt_tf_reader_nfiles(r); i++)
	{
		const pgwt_tf_file_header *h = pgwt_tf_reader_file_header(r, i);

		printf("file v%u flags=%u pg=%u rt=%" PRIu64 " mono=%" PRIu64 "\n",
			   h->version, h->flags, h->pg_version, h->start_realtime_ns,
			   h->start_monotonic_ns);
	}
	while ((rc = pgwt_tf_reader_next_block(r, &blk)) == 1)
	{
		printf("block type=%u n=%u period=%" PRIu64 "\n", blk.type, blk.n,
			   blk.sample_period_ns);
		for (i = 0; i < blk.n; i++)
		{
			const pgwt_record *x = &blk.recs[i];

			if (x->kind == PGWT_REC_TRANSITION)
				printf("T ts=%" PRIu64 " pid=%u old=0x%08x new=0x%08x dur=%" PRIu64
					   " qid=%" PRIu64 " cpu=%" PRIu64 "\n", x->ts_ns, x->pid,
					   x->old_event, x->new_event, x->duration_ns, x->query_id,
					   x->cpu_ns);
			else
				printf("S ts=%" PRIu64 " pid=%u ev=0x%08x qid=%" PRIu64 " w=%" PRIu64 "\n",
					   x->ts_ns, x->pid, x->new_event, x->query_id, x->weight_ns);
		}
	}
	st = pgwt_tf_reader_stats(r);
	printf("stats files=%" PRIu64 " files_bad=%" PRIu64 " footers_bad=%" PRIu64
		   " blocks=%" PRIu64 " blocks_bad=%" PRIu64 " records=%" PRIu64
		   " truncated=%" PRIu64 "\n", st->files, st->files_bad, st->footers_bad,
		   st->blocks, st->blocks_bad, st->records, st->bytes_truncated);
	pgwt_tf_reader_close(r);
	if (rc < 0)
	{
		fprintf(stderr, "tfdump: %s\n", pgwt_tf_strerror(rc));
		return 1;
	}
	return 0;
}
