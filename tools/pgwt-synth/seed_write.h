/*
 * seed_write.h
 *		pgwt-synth --seed-layout: a directory it wrote, rewritten the way
 *		the seed tool's writer lays trace files out (seed_write.c).
 */
#ifndef PGWT_SYNTH_SEED_WRITE_H
#define PGWT_SYNTH_SEED_WRITE_H

#include "tracefmt/tracefmt.h"

/* Every trace file of dir and its side files; 0 or -1. */
int			synth_seed_rewrite(const char *dir);

#endif							/* PGWT_SYNTH_SEED_WRITE_H */
