/*
 * elf_symbols.h
 *		Find exported data symbols of a PostgreSQL server binary.
 *
 * The parser works on a byte buffer (the caller maps the file), so the unit
 * tests feed it hand-built images. Only 64-bit little-endian ELF is read;
 * anything else is refused with a message.
 */
#ifndef PGWT_TRACER_ELF_SYMBOLS_H
#define PGWT_TRACER_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pgwt_elf_image
{
	const uint8_t *buf;
	size_t		len;
	uint64_t	load_lo;		/* lowest PT_LOAD p_vaddr */
	uint64_t	load_hi;		/* highest PT_LOAD p_vaddr + p_memsz */
	int			is_pie;			/* ET_DYN: addresses are relative */
	/* .dynsym and its string table, as file ranges */
	uint64_t	sym_off;
	uint64_t	sym_count;
	uint64_t	sym_entsize;
	uint64_t	str_off;
	uint64_t	str_size;
} pgwt_elf_image;

/* Validate the headers and locate .dynsym. 0 on success, else -1 + errbuf. */
extern int	pgwt_elf_open(pgwt_elf_image *img, const uint8_t *buf, size_t len,
						  char *errbuf, size_t errlen);

/*
 * Look up a defined symbol by name in .dynsym. 0 and value, size on
 * success, -1 when absent, undefined, or outside the PT_LOAD range.
 */
extern int	pgwt_elf_lookup(const pgwt_elf_image *img, const char *name,
							uint64_t *value, uint64_t *size);

/* Map a file read-only; *len gets its size. NULL + errbuf on failure. */
extern const uint8_t *pgwt_elf_map_file(const char *path, size_t *len,
										char *errbuf, size_t errlen);
extern void pgwt_elf_unmap_file(const uint8_t *buf, size_t len);

#endif
