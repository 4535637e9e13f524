/*
 * test_elf.c
 *		ELF .dynsym parsing on hand-built images, including truncated and
 *		corrupted ones, and on the real server binary when installed.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/elf_symbols.h"
#include "unit.h"

/* A tiny ELF64 image: 2 PT_LOAD, sections [null, .dynstr, .dynsym]. */
#define IMG_SIZE 1024
static uint8_t img[IMG_SIZE];

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static const char strtab[] = "\0my_wait_event_info\0MyBEEntry\0undef_sym\0";

static void
build_image(void)
{
	uint8_t    *ph,
			   *sh,
			   *sym;
	const uint64_t phoff = 64,
				shoff = 256,
				stroff = 512,
				symoff = 640;

	memset(img, 0, sizeof(img));
	memcpy(img, ELFMAG, SELFMAG);
	img[EI_CLASS] = ELFCLASS64;
	img[EI_DATA] = ELFDATA2LSB;
	img[EI_VERSION] = EV_CURRENT;
	put16(img + 16, ET_DYN);
	put16(img + 18, EM_X86_64);
	put64(img + 32, phoff);
	put64(img + 40, shoff);
	put16(img + 52, 64);
	put16(img + 54, 56);
	put16(img + 56, 2);
	put16(img + 58, 64);
	put16(img + 60, 3);
	/* PT_LOAD 1: vaddr 0x1000, memsz 0x2000; PT_LOAD 2: vaddr 0x5000, memsz 0x3000 */
	ph = img + phoff;
	put32(ph, PT_LOAD);
	put64(ph + 16, 0x1000);
	put64(ph + 40, 0x2000);
	ph += 56;
	put32(ph, PT_LOAD);
	put64(ph + 16, 0x5000);
	put64(ph + 40, 0x3000);
	/* section 1: .dynstr */
	memcpy(img + stroff, strtab, sizeof(strtab));
	sh = img + shoff + 64;
	put32(sh + 4, SHT_STRTAB);
	put64(sh + 24, stroff);
	put64(sh + 32, sizeof(strtab));
	/* section 2: .dynsym, link 1, 4 entries (first is null) */
	sh = img + shoff + 128;
	put32(sh + 4, SHT_DYNSYM);
	put64(sh + 24, symoff);
	put64(sh + 32, 4 * 24);
	put32(sh + 40, 1);
	put64(sh + 56, 24);
	sym = img + symoff + 24;
	put32(sym, 1);				/* my_wait_event_info */
	put16(sym + 6, 26);
	put64(sym + 8, 0x6ec8);
	put64(sym + 16, 8);
	sym += 24;
	put32(sym, 20);				/* MyBEEntry */
	put16(sym + 6, 28);
	put64(sym + 8, 0x7828);
	put64(sym + 16, 8);
	sym += 24;
	put32(sym, 30);				/* undef_sym: SHN_UNDEF */
	put16(sym + 6, SHN_UNDEF);
}

static void
elf_finds_symbols(void)
{
	pgwt_elf_image im;
	char		err[128];
	uint64_t	v = 0,
				sz = 0;

	build_image();
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == 0);
	UNIT_CHECK(im.is_pie == 1);
	UNIT_CHECK(im.load_lo == 0x1000);
	UNIT_CHECK(im.load_hi == 0x8000);
	UNIT_CHECK(pgwt_elf_lookup(&im, "my_wait_event_info", &v, &sz) == 0);
	UNIT_CHECK(v == 0x6ec8 && sz == 8);
	UNIT_CHECK(pgwt_elf_lookup(&im, "MyBEEntry", &v, NULL) == 0);
	UNIT_CHECK(v == 0x7828);
}

static void
elf_missing_and_undefined(void)
{
	pgwt_elf_image im;
	char		err[128];
	uint64_t	v;

	build_image();
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == 0);
	UNIT_CHECK(pgwt_elf_lookup(&im, "MyProc", &v, NULL) == -1);
	UNIT_CHECK(pgwt_elf_lookup(&im, "undef_sym", &v, NULL) == -1);
	/* a prefix of a real name is not a match */
	UNIT_CHECK(pgwt_elf_lookup(&im, "my_wait", &v, NULL) == -1);
}

static void
elf_rejects_bad_images(void)
{
	pgwt_elf_image im;
	char		err[128];

	build_image();
	UNIT_CHECK(pgwt_elf_open(&im, img, 32, err, sizeof(err)) == -1);
	img[0] = 'X';
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == -1);
	UNIT_CHECK(strstr(err, "not an ELF") != NULL);
	build_image();
	img[EI_CLASS] = ELFCLASS32;
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == -1);
	build_image();
	/* section headers beyond the end of the file */
	put64(img + 40, IMG_SIZE - 10);
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == -1);
	build_image();
	/* .dynsym size pointing past the end */
	put64(img + 256 + 128 + 32, 1000 * 24);
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == -1);
	build_image();
	/* a name offset past .dynstr is skipped, not read */
	put32(img + 640 + 24, 5000);
	UNIT_CHECK(pgwt_elf_open(&im, img, sizeof(img), err, sizeof(err)) == 0);
	{
		uint64_t	v;

		UNIT_CHECK(pgwt_elf_lookup(&im, "my_wait_event_info", &v, NULL) == -1);
	}
	/* truncation at every length never crashes (ASan watches reads) */
	build_image();
	for (size_t len = 0; len < IMG_SIZE; len += 7)
	{
		uint8_t    *copy = malloc(len ? len : 1);
		uint64_t	v;

		memcpy(copy, img, len);
		if (pgwt_elf_open(&im, copy, len, err, sizeof(err)) == 0)
			(void) pgwt_elf_lookup(&im, "MyBEEntry", &v, NULL);
		free(copy);
	}
}

/* The real Debian binary, when installed: the symbols must be there. */
static void
elf_real_pg15_binary(void)
{
	const char *path = "/usr/lib/postgresql/15/bin/postgres";
	size_t		len;
	char		err[256];
	const uint8_t *buf = pgwt_elf_map_file(path, &len, err, sizeof(err));
	pgwt_elf_image im;
	uint64_t	v1,
				v2;

	if (!buf)
	{
		printf("SKIP elf_real_pg15_binary: %s not installed\n", path);
		unit_current_failed = 1;	/* suppress PASS */
		return;
	}
	UNIT_CHECK(pgwt_elf_open(&im, buf, len, err, sizeof(err)) == 0);
	UNIT_CHECK(im.is_pie);
	UNIT_CHECK(pgwt_elf_lookup(&im, "my_wait_event_info", &v1, NULL) == 0);
	UNIT_CHECK(pgwt_elf_lookup(&im, "MyBEEntry", &v2, NULL) == 0);
	UNIT_CHECK(v1 >= im.load_lo && v1 < im.load_hi);
	UNIT_CHECK(v2 >= im.load_lo && v2 < im.load_hi);
	pgwt_elf_unmap_file(buf, len);
}

void
run_elf_tests(void)
{
	UNIT_RUN(elf_finds_symbols);
	UNIT_RUN(elf_missing_and_undefined);
	UNIT_RUN(elf_rejects_bad_images);
	UNIT_RUN(elf_real_pg15_binary);
}
