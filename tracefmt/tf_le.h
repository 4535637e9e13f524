/*
 * tf_le.h
 *		Little-endian and LEB128 helpers: the only way the trace format
 *		touches bytes on disk (never a struct written as is).
 *
 * Pure inline functions; the LEB128 reader is bounds-checked and refuses
 * encodings longer than ten bytes or overflowing 64 bits.
 */
#ifndef PGWT_TF_LE_H
#define PGWT_TF_LE_H

#include <stddef.h>
#include <stdint.h>

static inline void
tf_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
tf_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static inline void
tf_put_u64(uint8_t *p, uint64_t v)
{
	tf_put_u32(p, (uint32_t) v);
	tf_put_u32(p + 4, (uint32_t) (v >> 32));
}

static inline uint16_t
tf_get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
tf_get_u32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) |
		((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static inline uint64_t
tf_get_u64(const uint8_t *p)
{
	return (uint64_t) tf_get_u32(p) | ((uint64_t) tf_get_u32(p + 4) << 32);
}

/* Appends v as unsigned LEB128 at p; returns bytes written (1..10). */
static inline size_t
tf_put_leb(uint8_t *p, uint64_t v)
{
	size_t		n = 0;

	while (v >= 0x80)
	{
		p[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t) v;
	return n;
}

/*
 * Reads one LEB128 value from [*pp, end). Returns 0 and advances *pp, or
 * -1 on truncation, more than ten bytes, or bits beyond 64.
 */
static inline int
tf_get_leb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t	v = 0;
	unsigned	shift = 0;

	if (p < end && *p < 0x80)
	{
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	for (;;)
	{
		uint8_t		b;

		if (p >= end)
			return -1;
		b = *p++;
		if (shift == 63 && (b & 0x7e))
			return -1;			/* would overflow 64 bits */
		v |= (uint64_t) (b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return -1;
	}
	*out = v;
	*pp = p;
	return 0;
}

/* Reads one LEB128 value, the common one-byte case inline; returns
 * -PGWT_TF_BAD_PAYLOAD from the calling function when it is invalid. */
#define TF_GET_LEB(pp, end, v) \
	do { \
		if ((pp) < (end) && *(pp) < 0x80) \
			(v) = *(pp)++; \
		else if (tf_get_leb(&(pp), (end), &(v)) < 0) \
			return -PGWT_TF_BAD_PAYLOAD; \
	} while (0)

static inline uint64_t
tf_zigzag(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

static inline int64_t
tf_unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

#endif							/* PGWT_TF_LE_H */
