/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unsigned conversions of lib/kstrtox.c that parser.c uses: an
 * optional '+', digits of @base, an optional newline, nothing else.
 */
#ifndef _KPR_TOOLS_LINUX_KSTRTOX_H
#define _KPR_TOOLS_LINUX_KSTRTOX_H

#include <errno.h>
#include <limits.h>
#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/types.h>

#define KSTRTOX_OVERFLOW	BIT(31)

/*
 * isxdigit() of tools/include reads the kernel's _ctype[], which is in
 * tools/lib/ctype.c, not built here.
 */
static inline bool _kpr_isxdigit(char c)
{
	return isdigit(c) || (_tolower(c) >= 'a' && _tolower(c) <= 'f');
}

static inline const char *_parse_integer_fixup_radix(const char *s,
						     unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' && _kpr_isxdigit(s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

static inline unsigned int _parse_integer(const char *s, unsigned int base,
					  unsigned long long *p)
{
	unsigned long long res = 0;
	unsigned int rv = 0;

	for (;; s++, rv++) {
		unsigned int c = *s, lc = c | 0x20, val;

		if ('0' <= c && c <= '9')
			val = c - '0';
		else if ('a' <= lc && lc <= 'f')
			val = lc - 'a' + 10;
		else
			break;
		if (val >= base)
			break;
		if (res & (~0ULL << 60) && res > (ULLONG_MAX - val) / base)
			rv |= KSTRTOX_OVERFLOW;
		res = res * base + val;
	}
	*p = res;
	return rv;
}

static inline int kstrtoull(const char *s, unsigned int base,
			    unsigned long long *res)
{
	unsigned long long _res;
	unsigned int rv;

	if (s[0] == '+')
		s++;
	s = _parse_integer_fixup_radix(s, &base);
	rv = _parse_integer(s, base, &_res);
	if (rv & KSTRTOX_OVERFLOW)
		return -ERANGE;
	if (rv == 0)
		return -EINVAL;
	s += rv;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = _res;
	return 0;
}

static inline int kstrtouint(const char *s, unsigned int base,
			     unsigned int *res)
{
	unsigned long long tmp;
	int rv = kstrtoull(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (unsigned int)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	return kstrtouint(s, base, res);
}

static inline int kstrtou16(const char *s, unsigned int base, u16 *res)
{
	unsigned long long tmp;
	int rv = kstrtoull(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (u16)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

#endif /* _KPR_TOOLS_LINUX_KSTRTOX_H */
