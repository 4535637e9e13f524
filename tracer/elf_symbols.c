/*
 * elf_symbols.c
 *		Minimal ELF64 reader: PT_LOAD range and .dynsym lookup.
 *
 * Debian's postgres binary is stripped but keeps .dynsym, which exports the
 * globals the sampler needs (my_wait_event_info, MyBEEntry). Every offset
 * read from the file is bounds-checked against the buffer, so a truncated or
 * hostile file yields an error, never an out-of-range read; a PT_LOAD range
 * that wraps is refused, and so is a symbol outside the loaded range (the
 * tracer reads the postmaster's memory there). Fields are read
 * through little-endian helpers rather than by casting to <elf.h> structs,
 * which keeps the code independent of the buffer's alignment.
 */
#include "tracer/elf_symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint16_t
elf_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t
elf_u32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static uint64_t
elf_u64(const uint8_t *p)
{
	return (uint64_t) elf_u32(p) | ((uint64_t) elf_u32(p + 4) << 32);
}

/* True when [off, off+n) lies inside a buffer of len bytes. */
static int
elf_in_range(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

int
pgwt_elf_open(pgwt_elf_image *img, const uint8_t *buf, size_t len,
			  char *errbuf, size_t errlen)
{
	uint16_t	type,
				phentsize,
				phnum,
				shentsize,
				shnum;
	uint64_t	phoff,
				shoff;
	int			nload = 0;

	memset(img, 0, sizeof(*img));
	img->buf = buf;
	img->len = len;

	if (len < 64 || memcmp(buf, ELFMAG, SELFMAG) != 0)
	{
		snprintf(errbuf, errlen, "not an ELF file");
		return -1;
	}
	if (buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB)
	{
		snprintf(errbuf, errlen, "only 64-bit little-endian ELF is supported");
		return -1;
	}
	type = elf_u16(buf + 16);
	if (type != ET_DYN && type != ET_EXEC)
	{
		snprintf(errbuf, errlen, "ELF type %u is not an executable", type);
		return -1;
	}
	img->is_pie = (type == ET_DYN);
	phoff = elf_u64(buf + 32);
	shoff = elf_u64(buf + 40);
	phentsize = elf_u16(buf + 54);
	phnum = elf_u16(buf + 56);
	shentsize = elf_u16(buf + 58);
	shnum = elf_u16(buf + 60);

	if (phentsize < 56 || !elf_in_range(phoff, (uint64_t) phentsize * phnum, len))
	{
		snprintf(errbuf, errlen, "program headers out of range");
		return -1;
	}
	for (uint16_t i = 0; i < phnum; i++)
	{
		const uint8_t *ph = buf + phoff + (uint64_t) i * phentsize;
		uint64_t	vaddr,
					memsz;

		if (elf_u32(ph) != PT_LOAD)
			continue;
		vaddr = elf_u64(ph + 16);
		memsz = elf_u64(ph + 40);
		if (memsz > UINT64_MAX - vaddr)
		{
			snprintf(errbuf, errlen, "PT_LOAD segment wraps the address space");
			return -1;
		}
		if (nload == 0 || vaddr < img->load_lo)
			img->load_lo = vaddr;
		if (nload == 0 || vaddr + memsz > img->load_hi)
			img->load_hi = vaddr + memsz;
		nload++;
	}
	if (nload == 0)
	{
		snprintf(errbuf, errlen, "no PT_LOAD segment");
		return -1;
	}

	if (shnum == 0 || shentsize < 64 ||
		!elf_in_range(shoff, (uint64_t) shentsize * shnum, len))
	{
		snprintf(errbuf, errlen, "section headers missing or out of range");
		return -1;
	}
	for (uint16_t i = 0; i < shnum; i++)
	{
		const uint8_t *sh = buf + shoff + (uint64_t) i * shentsize;
		uint32_t	link;
		const uint8_t *strsh;

		if (elf_u32(sh + 4) != SHT_DYNSYM)
			continue;
		img->sym_off = elf_u64(sh + 24);
		img->sym_entsize = elf_u64(sh + 56);
		link = elf_u32(sh + 40);
		if (img->sym_entsize < 24 || link >= shnum)
		{
			snprintf(errbuf, errlen, "malformed .dynsym header");
			return -1;
		}
		img->sym_count = elf_u64(sh + 32) / img->sym_entsize;
		if (!elf_in_range(img->sym_off, img->sym_count * img->sym_entsize, len))
		{
			snprintf(errbuf, errlen, ".dynsym out of range");
			return -1;
		}
		strsh = buf + shoff + (uint64_t) link * shentsize;
		img->str_off = elf_u64(strsh + 24);
		img->str_size = elf_u64(strsh + 32);
		if (!elf_in_range(img->str_off, img->str_size, len))
		{
			snprintf(errbuf, errlen, ".dynstr out of range");
			return -1;
		}
		return 0;
	}
	snprintf(errbuf, errlen, "no .dynsym section");
	return -1;
}

int
pgwt_elf_lookup(const pgwt_elf_image *img, const char *name,
				uint64_t *value, uint64_t *size)
{
	size_t		namelen = strlen(name);

	for (uint64_t i = 0; i < img->sym_count; i++)
	{
		const uint8_t *sym = img->buf + img->sym_off + i * img->sym_entsize;
		uint32_t	st_name = elf_u32(sym);
		uint16_t	shndx = elf_u16(sym + 6);
		const char *s;
		uint64_t	v,
					sz;

		/* The name and its terminator must lie inside .dynstr. */
		if (st_name >= img->str_size || namelen >= img->str_size - st_name)
			continue;
		s = (const char *) img->buf + img->str_off + st_name;
		if (memcmp(s, name, namelen + 1) != 0)
			continue;
		if (shndx == SHN_UNDEF)
			return -1;
		/* the tracer reads memory there: it must lie in the image */
		v = elf_u64(sym + 8);
		sz = elf_u64(sym + 16);
		if (v < img->load_lo || v >= img->load_hi || sz > img->load_hi - v)
			return -1;
		*value = v;
		if (size)
			*size = sz;
		return 0;
	}
	return -1;
}

const uint8_t *
pgwt_elf_map_file(const char *path, size_t *len, char *errbuf, size_t errlen)
{
	int			fd;
	struct stat st;
	void	   *p;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
	{
		snprintf(errbuf, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || st.st_size <= 0)
	{
		snprintf(errbuf, errlen, "cannot stat %s", path);
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
	{
		snprintf(errbuf, errlen, "cannot map %s: %s", path, strerror(errno));
		return NULL;
	}
	*len = (size_t) st.st_size;
	return p;
}

void
pgwt_elf_unmap_file(const uint8_t *buf, size_t len)
{
	if (buf)
		munmap((void *) buf, len);
}
