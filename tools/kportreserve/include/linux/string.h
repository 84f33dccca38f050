/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/string.h> of tools/include, and the three functions of the
 * kernel's that parser.c uses and tools/include lacks.
 */
#ifndef _KPR_TOOLS_LINUX_STRING_H
#define _KPR_TOOLS_LINUX_STRING_H

#include_next <linux/string.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

/* From lib/string_helpers.c. */
static inline int match_string(const char * const *array, size_t n,
			       const char *string)
{
	size_t index;

	for (index = 0; index < n && array[index]; index++)
		if (!strcmp(array[index], string))
			return index;
	return -EINVAL;
}

/* From include/linux/string.h. */
static inline size_t str_has_prefix(const char *str, const char *prefix)
{
	size_t len = strlen(prefix);

	return strncmp(str, prefix, len) == 0 ? len : 0;
}

/* From mm/util.c; calloc() as in <linux/slab.h>. */
static inline char *kmemdup_nul(const char *s, size_t len, gfp_t gfp)
{
	char *buf = s ? calloc(1, len + 1) : NULL;

	(void)gfp;
	if (buf)
		memcpy(buf, s, len);
	return buf;
}

#endif /* _KPR_TOOLS_LINUX_STRING_H */
