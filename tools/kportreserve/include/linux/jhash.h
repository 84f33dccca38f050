/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jhash() and jhash_3words() of include/linux/jhash.h: Bob Jenkins'
 * lookup3.c (May 2006, Public Domain), as the kernel has it, so that a
 * path hashes to the same value in user space as in the kernel.
 */
#ifndef _KPR_TOOLS_LINUX_JHASH_H
#define _KPR_TOOLS_LINUX_JHASH_H

#include <string.h>
#include <linux/bitops.h>
#include <linux/types.h>

/*
 * __jhash_mix() and __jhash_final() of the kernel, as functions rather
 * than macros: the same arithmetic on the same three values.
 */
static inline void __kpr_jhash_mix(u32 *a, u32 *b, u32 *c)
{
	*a -= *c;  *a ^= rol32(*c, 4);  *c += *b;
	*b -= *a;  *b ^= rol32(*a, 6);  *a += *c;
	*c -= *b;  *c ^= rol32(*b, 8);  *b += *a;
	*a -= *c;  *a ^= rol32(*c, 16); *c += *b;
	*b -= *a;  *b ^= rol32(*a, 19); *a += *c;
	*c -= *b;  *c ^= rol32(*b, 4);  *b += *a;
}

static inline void __kpr_jhash_final(u32 *a, u32 *b, u32 *c)
{
	*c ^= *b; *c -= rol32(*b, 14);
	*a ^= *c; *a -= rol32(*c, 11);
	*b ^= *a; *b -= rol32(*a, 25);
	*c ^= *b; *c -= rol32(*b, 16);
	*a ^= *c; *a -= rol32(*c, 4);
	*b ^= *a; *b -= rol32(*a, 14);
	*c ^= *b; *c -= rol32(*b, 24);
}

/* An arbitrary initial parameter */
#define JHASH_INITVAL		0xdeadbeef

/* <linux/unaligned/packed_struct.h>: a native-endian load from anywhere. */
static inline u32 __get_unaligned_cpu32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 jhash(const void *key, u32 length, u32 initval)
{
	u32 a, b, c, i;
	const u8 *k = key;

	/* Set up the internal state */
	a = JHASH_INITVAL + length + initval;
	b = a;
	c = a;

	/* All but the last block: affect some 32 bits of (a,b,c) */
	while (length > 12) {
		a += __get_unaligned_cpu32(k);
		b += __get_unaligned_cpu32(k + 4);
		c += __get_unaligned_cpu32(k + 8);
		__kpr_jhash_mix(&a, &b, &c);
		length -= 12;
		k += 12;
	}
	if (!length)
		return c;
	/*
	 * The last block, of 1 to 12 bytes: byte i goes to bits 8 * (i % 4)
	 * of a, b or c, as the cases of the kernel's switch add it.
	 */
	for (i = 0; i < length; i++) {
		u32 byte = (u32)k[i] << (8 * (i % 4));

		if (i < 4)
			a += byte;
		else if (i < 8)
			b += byte;
		else
			c += byte;
	}
	__kpr_jhash_final(&a, &b, &c);
	return c;
}

/* __jhash_nwords - hash exactly 3, 2 or 1 word(s) */
static inline u32 __jhash_nwords(u32 a, u32 b, u32 c, u32 initval)
{
	a += initval;
	b += initval;
	c += initval;

	__kpr_jhash_final(&a, &b, &c);

	return c;
}

static inline u32 jhash_3words(u32 a, u32 b, u32 c, u32 initval)
{
	return __jhash_nwords(a, b, c, initval + JHASH_INITVAL + (3 << 2));
}

#endif /* _KPR_TOOLS_LINUX_JHASH_H */
