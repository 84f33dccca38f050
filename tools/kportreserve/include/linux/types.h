/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the kernel headers parser.c includes, in the
 * manner of the kernel's tools/include: just what parser.c uses, with the
 * kernel's semantics, so that kportreserve(8) and the fuzzer build
 * security/kportreserve/parser.c unchanged. Where a header of the same
 * name exists in the system's uapi headers (linux-libc-dev), which libc
 * headers may pull in, it is included first.
 */
#ifndef _KPR_TOOLS_LINUX_TYPES_H
#define _KPR_TOOLS_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef unsigned int gfp_t;

#endif /* _KPR_TOOLS_LINUX_TYPES_H */
