/* SPDX-License-Identifier: GPL-2.0 */
/*
 * string_unescape() of lib/string_helpers.c with the two kinds of escape
 * parser.c asks for. The others are left undefined, so that a new use of
 * them fails to build here instead of decoding otherwise than the kernel.
 */
#ifndef _KPR_TOOLS_LINUX_STRING_HELPERS_H
#define _KPR_TOOLS_LINUX_STRING_HELPERS_H

#include <stdint.h>
#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/types.h>

#define UNESCAPE_OCTAL		BIT(1)
#define UNESCAPE_SPECIAL	BIT(3)

static inline bool unescape_octal(char **src, char **dst)
{
	char *p = *dst, *q = *src;
	u8 num;

	if (isodigit(*q) == 0)
		return false;

	num = (*q++) & 7;
	while (num < 32 && isodigit(*q) && (q - *src < 3)) {
		num <<= 3;
		num += (*q++) & 7;
	}
	*p = num;
	*dst += 1;
	*src = q;
	return true;
}

static inline bool unescape_special(char **src, char **dst)
{
	char *p = *dst, *q = *src;

	switch (*q) {
	case '\"':
		*p = '\"';
		break;
	case '\\':
		*p = '\\';
		break;
	case 'a':
		*p = '\a';
		break;
	case 'e':
		*p = '\e';
		break;
	default:
		return false;
	}
	*dst += 1;
	*src += 1;
	return true;
}

static inline int string_unescape(char *src, char *dst, size_t size,
				  unsigned int flags)
{
	char *out = dst;

	if (!size)
		size = SIZE_MAX;

	while (*src && --size) {
		if (src[0] == '\\' && src[1] != '\0' && size > 1) {
			src++;
			size--;

			if (flags & UNESCAPE_OCTAL &&
			    unescape_octal(&src, &out))
				continue;

			if (flags & UNESCAPE_SPECIAL &&
			    unescape_special(&src, &out))
				continue;

			*out++ = '\\';
		}
		*out++ = *src++;
	}
	*out = '\0';

	return out - dst;
}

static inline int string_unescape_inplace(char *buf, unsigned int flags)
{
	return string_unescape(buf, buf, 0, flags);
}

#endif /* _KPR_TOOLS_LINUX_STRING_HELPERS_H */
