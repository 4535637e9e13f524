/*
 * sampler_read.c
 *		How the sampled tier reads each backend's values: one backend at a
 *		time with process_vm_readv, or all together through a plan over the
 *		server's shared memory (mapped read-only, else one remote read).
 *
 * Per backend the sampler caches two pointers, read from the backend's own
 * memory: my_wait_event_info (-> wait_event_info in its PGPROC; on 13
 * MyProc plus the field's offset, tracer/pg_layout.c) and
 * MyBEEntry (-> its PgBackendStatus, where st_query_id lives). They are
 * verified while a backend is new, once a second, and after a doubtful
 * value, with one call to that backend that also returns its values; when
 * a pointer changed (the backend finished InitProcess, or the pid was
 * reused) the values are re-read through the new pointer before use.
 *
 * Every backend's values are read together: the PGPROC and
 * PgBackendStatus arrays are in the shared memory segment, mapped at the
 * same address in the postmaster and all its children, so they sit in a
 * few dense address ranges of the postmaster (read_plan.c). The pages of
 * those ranges are mapped read-only into our own address space through the
 * postmaster's /proc/PID/map_files entry of the segment, so a steady tick
 * reads each value with one aligned load: no system call, no remote page
 * walk, no copy of the ranges (a process_vm_readv of the ranges cost
 * 15-50 us a tick for 108 backends). The mapping is checked to still be
 * the postmaster's segment whenever the plan changes and once a second (a
 * crash restart replaces it). Without map_files (it needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE) the ranges are read with one process_vm_readv
 * against the postmaster per tick. The plan (ranges, where each backend's values are)
 * is kept from tick to tick and rebuilt only when a backend comes or goes
 * or a pointer changes, so a steady tick is a walk over the table, with no
 * sorting and no allocation. A backend verified this tick uses the values
 * of its own read. If the batch fails the backends are read one by one for
 * that tick (counted as a batch fallback). A backend whose
 * pointer still targets the binary's own image has no PGPROC yet (or never
 * will: syslogger) and is not sampled. A value whose class byte is not a
 * wait class is counted as a read fault and never emitted.
 *
 * Single-threaded: the sampler's tick calls in; nothing here locks.
 */
#include "tracer/sampler_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "tracer/attach.h"
#include "tracer/wait_class.h"

int
pgwt_smp_grow(void **arr, size_t *cap, size_t need, size_t elsize)
{
	size_t		nc;
	void	   *p;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	p = realloc(*arr, nc * elsize);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}

/*
 * Batched reads go through the postmaster, assuming it maps the shared
 * memory where its children do (fork without exec). Check that once on a
 * verified PGPROC address; if the postmaster cannot read it or reads no
 * wait_event_info there, every backend is read on its own instead.
 */
static void
srd_test_batch(sampler_state *s, uint64_t wait_ptr)
{
	uint32_t	v;

	if (pgwt_remote_read(s->cfg.postmaster_pid, wait_ptr, &v, sizeof(v)) == 0 &&
		pgwt_wait_info_valid(v, s->cfg.attach.pg_major))
	{
		s->batch_state = 1;
		s->plan_dirty = 1;
	}
	else
		s->batch_state = -1;
}

/*
 * One read of backend b. Returns 1 with *rb filled when the backend is
 * sampleable, 0 when it has no PGPROC yet, -1 when it is gone, -2 on a
 * read fault.
 *
 * Steady state is one call with two iovecs (wait_event_info, st_query_id):
 * each remote page costs a page-table walk and pin in the kernel, so the
 * pointer variables (two more pages) are re-read only for a new backend,
 * every SAMPLER_RECHECK_NS, and after a value failed validation.
 */
int
pgwt_smp_read_one(sampler_state *s, sampler_backend *b, sampler_readbuf *rb, uint64_t now_ns)
{
	const pgwt_attach *a = &s->cfg.attach;
	struct iovec l[5],
				r[5];
	int			n,
				pass;
	ssize_t		want,
				got;
	uint64_t	new_wait;
	int			check = pgwt_smp_needs_check(s, b, now_ns);

	for (pass = 0; pass < 2; pass++)
	{
		n = 0;
		want = 0;
		if (check)
		{
			l[n] = (struct iovec) {&rb->wait_ptr, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) a->wait_var, 8};
			rb->be_ptr = 0;
			if (a->be_var)
			{
				l[n] = (struct iovec) {&rb->be_ptr, 8};
				r[n++] = (struct iovec) {(void *) (uintptr_t) a->be_var, 8};
			}
		}
		if (b->wait_ptr)
		{
			l[n] = (struct iovec) {&rb->event, 4};
			r[n++] = (struct iovec) {(void *) (uintptr_t) b->wait_ptr, 4};
		}
		rb->query_id = 0;
		if (b->wait_ptr && b->be_ptr && a->qid_offset >= 0)
		{
			l[n] = (struct iovec) {&rb->query_id, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) (b->be_ptr + (uint64_t) a->qid_offset), 8};
		}
		rb->xact_start = 0;
		if (b->wait_ptr && b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
		{
			l[n] = (struct iovec) {&rb->xact_start, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) (b->be_ptr + (uint64_t) a->xact_offset), 8};
		}
		if (n == 0)
			return 0;
		for (int i = 0; i < n; i++)
			want += (ssize_t) l[i].iov_len;
		got = process_vm_readv((pid_t) b->pid, l, (unsigned long) n, r, (unsigned long) n, 0);
		s->cfg.metrics->read_syscalls_total++;
		if (got < 0 && errno == ESRCH)
			return -1;
		if (!check)
			break;
		if (got < (ssize_t) l[0].iov_len + (a->be_var ? 8 : 0))
			return -2;
		b->checked_ns = now_ns;
		/* the pointer variable's value, as the address of the uint32 (0: none yet) */
		rb->wait_ptr = pgwt_pg_layout_wait_addr(&a->layout, rb->wait_ptr, a->image_lo, a->image_hi);
		/* pointers still what we dereferenced? then the values are good */
		if (rb->wait_ptr == b->wait_ptr && rb->be_ptr == b->be_ptr)
		{
			b->suspect = 0;
			if (s->batch_state == 0 && b->wait_ptr)
				srd_test_batch(s, b->wait_ptr);
			break;
		}
		new_wait = rb->wait_ptr;
		if (new_wait != b->wait_ptr || rb->be_ptr != b->be_ptr)
			s->plan_dirty = 1;
		b->wait_ptr = new_wait;
		b->be_ptr = rb->be_ptr;
		if (!b->wait_ptr)
			return 0;
	}
	if (pass == 2 || !b->wait_ptr)
		return 0;
	if (got != want)
	{
		b->suspect = 1;
		return -2;
	}
	return 1;
}

/*
 * Rebuild the batch plan: the ranges that cover the values of every backend
 * whose pointers are known, their iovecs, and where each backend's values
 * land in the buffer. Allocates only when the table grew. Returns 0, or -1
 * when the values cannot be batched (too many ranges or bytes): backends
 * are then read one by one until the next change.
 */
static int
srd_plan(sampler_state *s)
{
	const pgwt_attach *a = &s->cfg.attach;
	size_t		nreads = 0,
				nr;
	uint64_t	total;

	s->nspans = 0;
	if (pgwt_smp_grow((void **) &s->reads, &s->capreads, 3 * s->nbe + 1, sizeof(pgwt_read)) != 0)
		return -1;
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		b->ev_off = -1;
		b->qid_off = -1;
		b->xact_off = -1;
		if (!b->wait_ptr)
			continue;
		s->reads[nreads++] = (pgwt_read) {b->wait_ptr, 4};
		if (b->be_ptr && a->qid_offset >= 0)
			s->reads[nreads++] = (pgwt_read) {b->be_ptr + (uint64_t) a->qid_offset, 8};
		if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
			s->reads[nreads++] = (pgwt_read) {b->be_ptr + (uint64_t) a->xact_offset, 8};
	}
	if (nreads == 0)
		return 0;
	nr = pgwt_plan_ranges(s->reads, nreads, SAMPLER_BATCH_GAP, s->spans,
						  SAMPLER_BATCH_RANGES, &total);
	if (nr == 0 || total > SAMPLER_BATCH_MAX ||
		pgwt_smp_grow((void **) &s->batch_buf, &s->capbatch, total, 1) != 0)
		return -1;
	for (size_t i = 0; i < nr; i++)
	{
		s->iov_local[i] = (struct iovec) {s->batch_buf + s->spans[i].buf_off, s->spans[i].len};
		s->iov_remote[i] = (struct iovec) {(void *) (uintptr_t) s->spans[i].addr, s->spans[i].len};
	}
	s->nspans = nr;
	s->batch_total = total;
	/* map the ranges when they left the mapped pages (or none are mapped) */
	if (s->map_state >= 0 &&
		(!s->map.base || s->spans[0].addr < s->map.lo ||
		 s->spans[nr - 1].addr + s->spans[nr - 1].len > s->map.hi))
	{
		if (pgwt_shm_view_open(&s->map, s->cfg.postmaster_pid, s->spans[0].addr,
							   s->spans[nr - 1].addr + s->spans[nr - 1].len) == 0)
			s->map_state = 1;
		else if (s->map_state == 0)
			s->map_state = -1;	/* never worked (no map_files): don't retry */
	}
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		if (!b->wait_ptr)
			continue;
		if (s->map.base)
		{
			b->ev_off = (int64_t) (b->wait_ptr - s->map.lo);
			if (b->be_ptr && a->qid_offset >= 0)
				b->qid_off = (int64_t) (b->be_ptr + (uint64_t) a->qid_offset - s->map.lo);
			if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
				b->xact_off = (int64_t) (b->be_ptr + (uint64_t) a->xact_offset - s->map.lo);
			continue;
		}
		b->ev_off = pgwt_plan_locate(s->spans, nr, b->wait_ptr, 4);
		if (b->be_ptr && a->qid_offset >= 0)
			b->qid_off = pgwt_plan_locate(s->spans, nr, b->be_ptr + (uint64_t) a->qid_offset, 8);
		if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
			b->xact_off = pgwt_plan_locate(s->spans, nr, b->be_ptr + (uint64_t) a->xact_offset, 8);
	}
	return 0;
}

/*
 * Read the planned ranges in one call against the postmaster (the shared
 * memory is mapped at the same address there). Returns 0 with the values
 * in s->batch_buf, -1 when the batch could not be read (the caller falls
 * back to per-backend reads).
 */
static int
srd_read_batch(sampler_state *s)
{
	ssize_t		got;

	got = process_vm_readv((pid_t) s->cfg.postmaster_pid, s->iov_local, (unsigned long) s->nspans,
						   s->iov_remote, (unsigned long) s->nspans, 0);
	s->cfg.metrics->read_syscalls_total++;
	return got == (ssize_t) s->batch_total ? 0 : -1;
}

/*
 * Pass 2's source of values: the read-only mapping, else one
 * process_vm_readv over the planned spans. Returns whether it holds this
 * tick's values (*vals points at them); false sends every backend to its
 * own read.
 */
int
pgwt_smp_batch_source(sampler_state *s, uint64_t now_ns, const uint8_t **valsp)
{
	pgwt_self_metrics *m = s->cfg.metrics;
	const uint8_t *vals;
	int			batch_ok;

	if (s->map_state == 1 &&
		(s->plan_dirty || now_ns - s->map_checked_ns >= SAMPLER_MAP_CHECK_NS))
	{
		s->map_checked_ns = now_ns;
		if (!s->map.base || !pgwt_shm_view_current(&s->map))
		{
			/* the segment was replaced (or a remap failed): map again */
			pgwt_shm_view_close(&s->map);
			s->plan_dirty = 1;
		}
	}
	if (s->plan_dirty)
	{
		s->plan_ok = srd_plan(s) == 0;
		s->plan_dirty = 0;
	}
	if (s->plan_ok && s->nspans > 0 && s->map.base)
	{
		vals = s->map.base;
		batch_ok = 1;
	}
	else
	{
		vals = s->batch_buf;
		batch_ok = s->plan_ok && s->nspans > 0 && srd_read_batch(s) == 0;
	}
	m->batch_fallbacks_total += !batch_ok;
	*valsp = vals;
	return batch_ok;
}

/*
 * Take every value first, in a loop of independent loads: from the
 * mapping each is a cache miss on a line the backend writes, and a
 * tight loop keeps many in flight (accounting between the loads kept
 * one at a time). It also makes the tick a snapshot a few
 * microseconds wide. From the mapping, one aligned load each (the
 * server writes them whole); the copied ranges of process_vm_readv
 * are packed, so their values may be unaligned.
 */
void
pgwt_smp_snapshot(sampler_state *s, const uint8_t *vals)
{
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		if (b->own_read || b->ev_off < 0)
			continue;
		b->snap_qid = 0;
		b->snap_xact = 0;
		if (vals == s->map.base)
		{
			b->snap_event = *(const volatile uint32_t *) (vals + b->ev_off);
			if (b->qid_off >= 0)
				b->snap_qid = *(const volatile uint64_t *) (vals + b->qid_off);
			if (b->xact_off >= 0)
				b->snap_xact = *(const volatile int64_t *) (vals + b->xact_off);
		}
		else
		{
			memcpy(&b->snap_event, vals + b->ev_off, 4);
			if (b->qid_off >= 0)
				memcpy(&b->snap_qid, vals + b->qid_off, 8);
			if (b->xact_off >= 0)
				memcpy(&b->snap_xact, vals + b->xact_off, 8);
		}
	}
}
