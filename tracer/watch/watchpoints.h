/*
 * watchpoints.h
 *		The exact (full) tier's capture source: one hardware write-watchpoint
 *		per backend on its wait_event_info, each running the wait_watch BPF
 *		program, and the ring buffer that carries transitions back.
 */
#ifndef PGWT_TRACER_WATCHPOINTS_H
#define PGWT_TRACER_WATCHPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/wait_watch.h"
#include "tracefmt/record.h"
#include "tracer/watch/self_test.h"

typedef struct pgwt_watch pgwt_watch;

typedef void (*pgwt_watch_sink) (const pgwt_record *rec, void *arg);

/* Loads the program. lightweight: aggregate in per-CPU maps, no ring buffer. */
int			pgwt_watch_open(pgwt_watch **out, bool lightweight,
							char *err, size_t errlen);

/*
 * Starts watching one backend: wait_addr is the address of its
 * wait_event_info in its address space, query_id_addr its st_query_id (0 to
 * skip), xact_addr its st_xact_start_timestamp (the carry's key; 0: none,
 * ids are billed raw), current_event the value it holds now (read by the caller), so the
 * first transition has a true duration.
 */
int			pgwt_watch_add(pgwt_watch *w, pid_t pid, uint64_t wait_addr,
						   uint64_t query_id_addr, uint64_t xact_addr, uint32_t current_event,
						   char *err, size_t errlen);
int			pgwt_watch_remove(pgwt_watch *w, pid_t pid);
int			pgwt_watch_count(const pgwt_watch *w);

/*
 * Lets the program find query ids itself for targets added with
 * query_id_addr 0 (MyBEEntry not set yet): be_var is the address of
 * MyBEEntry, qid_offset st_query_id's offset (-1: never read them),
 * xact_offset st_xact_start_timestamp's (-1: no carry, raw ids).
 */
void		pgwt_watch_set_qid_source(pgwt_watch *w, uint64_t be_var, int qid_offset,
									  int xact_offset);

/* The program's state of a watched pid: last event, since when, where. */
int			pgwt_watch_target_get(pgwt_watch *w, pid_t pid, struct pgwt_watch_target *out);
/* Replace it (only while the pid has not trapped since the get). */
int			pgwt_watch_target_set(pgwt_watch *w, pid_t pid, const struct pgwt_watch_target *t);

/* Drains the ring buffer into sink; waits up to timeout_ms for data. */
int			pgwt_watch_poll(pgwt_watch *w, int timeout_ms,
							pgwt_watch_sink sink, void *arg);

/* Counters summed over CPUs (enum pgwt_watch_counter). */
void		pgwt_watch_counters(pgwt_watch *w, uint64_t out[PGWT_WC_NCOUNTERS]);

/* Lightweight aggregates: calls fn once per event with the summed totals. */
int			pgwt_watch_aggregates(pgwt_watch *w,
								  void (*fn) (uint32_t event,
											  const struct pgwt_watch_agg *agg,
											  void *arg),
								  void *arg);

void		pgwt_watch_close(pgwt_watch *w);


/*
 * The self-test (self_test.h): arms a watchpoint on a variable of this
 * process with the loaded program, writes it, and judges what trapped.
 * Run it after pgwt_watch_open and before each exact window; it costs one
 * trap per write (~10 us each in a VM) and a perf event open. Returns 0 when
 * the tier sees (r->ok), -1 otherwise with the reason in r->why.
 * PGWT_WATCH_SELF_TEST=fail in the environment fails it on purpose (tests
 * of the refusal paths on machines whose watchpoints fire).
 */
int			pgwt_watch_run_self_test(pgwt_watch *w, pgwt_watch_self_test *r);

/* Opens a write watchpoint on (pid, addr, 4 bytes); returns the perf fd. */
int			pgwt_watch_perf_open(pid_t pid, uint64_t addr);

#endif							/* PGWT_TRACER_WATCHPOINTS_H */
