/*
 * fuzz_elf.c
 *		libFuzzer target for the ELF reader (tracer/elf_symbols.c): the
 *		input is the whole image, copied into a buffer of exactly its size
 *		so ASan sees any read past it.
 *
 * Properties beyond "no crash, no sanitizer report": an accepted image's
 * .dynsym and .dynstr lie inside the buffer and its PT_LOAD range does
 * not wrap; a symbol found lies inside that range. The names looked up
 * are the two the sampler needs, the empty name, and names taken from
 * the image's own string table (so matches happen).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/elf_symbols.h"

static void
fz_lookup(const pgwt_elf_image *img, const char *name)
{
	uint64_t	value = 0,
				size = 0;

	if (pgwt_elf_lookup(img, name, &value, &size) == 0 &&
		(value < img->load_lo || value >= img->load_hi ||
		 size > img->load_hi - value))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	uint8_t    *buf = malloc(n ? n : 1);
	pgwt_elf_image img;
	char		err[128];

	if (!buf)
		return 0;
	memcpy(buf, d, n);
	err[0] = '\0';
	if (pgwt_elf_open(&img, buf, n, err, sizeof(err)) == 0)
	{
		uint64_t	off;
		int			k;

		if (img.sym_off > n || img.sym_count * img.sym_entsize > n - img.sym_off ||
			img.str_off > n || img.str_size > n - img.str_off || img.load_lo > img.load_hi)
			__builtin_trap();
		fz_lookup(&img, "my_wait_event_info");
		fz_lookup(&img, "MyBEEntry");
		fz_lookup(&img, "");
		/* the first few names of .dynstr, when they are terminated in it */
		off = 1;
		for (k = 0; k < 4 && off < img.str_size; k++)
		{
			const char *s = (const char *) buf + img.str_off + off;
			size_t		len = strnlen(s, img.str_size - off);

			if (len == img.str_size - off)
				break;
			fz_lookup(&img, s);
			off += len + 1;
		}
	}
	else if (err[0] == '\0')
		__builtin_trap();
	free(buf);
	return 0;
}
