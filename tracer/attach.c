/*
 * attach.c
 *		Symbol lookup in the postmaster's binary and load-base discovery.
 *
 * The binary is opened through /proc/PID/exe, so it is the file actually
 * running even if the package was upgraded underneath; the load base comes
 * from the postmaster's maps, matched on the exact path /proc/PID/exe
 * names. The version check is against PG_VERSION of the data directory:
 * tracer/pg_layout.c says which pointer each major reads through (before 13
 * and after the newest version we tested the layout may have moved, so
 * both are refused), and a major without a generated wait-event name table
 * (14, 16: ids move between majors, docs/VERSIONS.md) is refused too.
 *
 * Also the two ways to read the server's memory: process_vm_readv, and a
 * read-only view of its shared memory segment mapped into our own address
 * space (the sampler's steady path: values by plain loads).
 */
#include "tracer/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "analysis/wait_event.h"
#include "tracer/elf_symbols.h"
#include "tracer/proc_maps.h"
#include "tracer/read_plan.h"

int
pgwt_remote_read(int pid, uint64_t addr, void *out, size_t len)
{
	struct iovec l = {out, len};
	struct iovec r = {(void *) (uintptr_t) addr, len};
	ssize_t		n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n == (ssize_t) len)
		return 0;
	if (n >= 0)
		errno = EFAULT;
	return -1;
}

int
pgwt_shm_view_open(pgwt_shm_view *v, int pid, uint64_t lo, uint64_t hi)
{
	char		path[64];
	char	   *maps;
	uint64_t	start,
				end,
				pgoff,
				page = (uint64_t) sysconf(_SC_PAGESIZE);
	uint64_t	mlo,
				mhi;
	struct stat st;
	void	   *p;
	int			fd;

	pgwt_shm_view_close(v);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = pgwt_read_text_file(path, NULL);
	if (!maps)
		return -1;
	if (pgwt_plan_find_shared(maps, lo, hi, &start, &end, &pgoff) != 0)
	{
		free(maps);
		return -1;
	}
	free(maps);
	snprintf(v->path, sizeof(v->path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	fd = open(v->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
	{
		close(fd);
		return -1;
	}
	/* only the pages asked for (a huge-page segment maps whole) */
	mlo = lo & ~(page - 1);
	mhi = (hi + page - 1) & ~(page - 1);
	if ((uint64_t) st.st_blksize > page)
	{
		mlo = start;
		mhi = end;
	}
	p = mmap(NULL, mhi - mlo, PROT_READ, MAP_SHARED, fd, (off_t) (pgoff + (mlo - start)));
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	v->base = p;
	v->len = mhi - mlo;
	v->lo = mlo;
	v->hi = mhi;
	v->dev = st.st_dev;
	v->ino = st.st_ino;
	return 0;
}

void
pgwt_shm_view_close(pgwt_shm_view *v)
{
	if (v->base)
		munmap((void *) v->base, v->len);
	v->base = NULL;
	v->lo = v->hi = 0;
}

int
pgwt_shm_view_current(const pgwt_shm_view *v)
{
	struct stat st;

	return v->base && stat(v->path, &st) == 0 && st.st_ino == v->ino && st.st_dev == v->dev;
}

int
pgwt_attach_resolve(const pgwt_cluster *c, pgwt_attach *a,
					char *errbuf, size_t errlen)
{
	char		path[64];
	const uint8_t *buf;
	size_t		len;
	pgwt_elf_image img;
	char	   *maps;
	uint64_t	base,
				wait_sym,
				be_sym;
	int			rc = -1;

	memset(a, 0, sizeof(*a));
	a->pg_major = c->pg_major;
	a->qid_offset = -1;
	a->xact_offset = -1;
	if (pgwt_pg_layout_of(c->pg_major, &a->layout, errbuf, errlen) != 0)
		return -1;
	if (!pgwt_names_have_table(c->pg_major))
	{
		snprintf(errbuf, errlen,
				 "PostgreSQL %d is not supported by the tracer: no wait-event name table for it "
				 "(ids move between majors; tables exist for 13, 15, 17, 18: docs/VERSIONS.md)",
				 c->pg_major);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", c->pid);
	buf = pgwt_elf_map_file(path, &len, errbuf, errlen);
	if (!buf)
		return -1;
	if (pgwt_elf_open(&img, buf, len, errbuf, errlen) != 0)
		goto out;
	if (pgwt_elf_lookup(&img, a->layout.pointer_sym, &wait_sym, NULL) != 0)
	{
		snprintf(errbuf, errlen, "%s: symbol %s not exported: cannot read wait events of this server",
				 c->exe, a->layout.pointer_sym);
		goto out;
	}
	if (pgwt_elf_lookup(&img, "MyBEEntry", &be_sym, NULL) != 0)
		be_sym = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	maps = pgwt_read_text_file(path, NULL);
	if (!maps)
	{
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!img.is_pie)
		base = img.load_lo & ~(uint64_t) 0xfff;
	else if (pgwt_maps_find_base(maps, c->exe, &base) != 0)
	{
		free(maps);
		snprintf(errbuf, errlen, "%s: no mapping of %s", path, c->exe);
		goto out;
	}
	free(maps);
	a->wait_var = pgwt_runtime_addr(wait_sym, img.load_lo, base);
	a->be_var = be_sym ? pgwt_runtime_addr(be_sym, img.load_lo, base) : 0;
	a->image_lo = pgwt_runtime_addr(img.load_lo, img.load_lo, base);
	a->image_hi = pgwt_runtime_addr(img.load_hi, img.load_lo, base);

	/* The postmaster's own pointer must be readable and point at its dummy. */
	{
		uint64_t	ptr;

		if (pgwt_remote_read(c->pid, a->wait_var, &ptr, sizeof(ptr)) != 0)
		{
			snprintf(errbuf, errlen, "cannot read postmaster %d memory: %s (root or CAP_SYS_PTRACE needed)",
					 c->pid, strerror(errno));
			goto out;
		}
		/* 14+: its dummy in the binary; 13: MyProc, NULL in the postmaster */
		if (a->layout.dummy_in_image ? (ptr < a->image_lo || ptr >= a->image_hi) : ptr != 0)
		{
			snprintf(errbuf, errlen, "postmaster %d: %s is not what PostgreSQL %d keeps there: unexpected layout",
					 c->pid, a->layout.pointer_sym, c->pg_major);
			goto out;
		}
	}
	rc = 0;
out:
	pgwt_elf_unmap_file(buf, len);
	return rc;
}
