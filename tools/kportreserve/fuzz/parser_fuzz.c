// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kportreserve policy parser, built from the
 * kernel's own security/kportreserve/parser.c.
 *
 * Each input is parsed whole, in one kpr_parser_feed() as one write()
 * would deliver it, and then split at every position K from 0 to its
 * size: bytes [0, K) in one kpr_parser_feed(), bytes [K, size) in a
 * second. Every split must end as the whole parse does: with the same
 * error, line and message, or with the same ruleset, hence the same
 * canonical text. Whatever parses must also print a canonical text that
 * parses back to the same text. Anything else aborts.
 *
 * The size + 1 split parses of an input run a second copy of parser.c
 * (see Makefile), under ASan and UBSan like the first but without
 * coverage instrumentation: the whole parse steers the fuzzer, the splits
 * run the same code on the same bytes. That copy's functions are renamed
 * split_kpr_*(), and its calloc() and free() are split_calloc() and
 * split_free() below.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sanitizer/asan_interface.h>

#include "parser.h"

typeof(kpr_parser_init) split_kpr_parser_init;
typeof(kpr_parser_feed) split_kpr_parser_feed;
typeof(kpr_parser_finish) split_kpr_parser_finish;
typeof(kpr_parser_destroy) split_kpr_parser_destroy;

/*
 * The split parses allocate from an arena that starts over after each of
 * them. ASan's own allocator, which records a stack trace for every call
 * and keeps what is freed in a quarantine, took most of their time. The
 * arena keeps what ASan checks: a block has poisoned redzones on both
 * sides, is poisoned when freed and stays so until the parse is over, and
 * a double or stray free and a block still allocated when the parse is
 * over abort. One parse of an input of -max_len bytes takes well under
 * 1 MiB; a request that does not fit goes to ASan's calloc().
 */
#define ARENA_SIZE	(8UL << 20)
#define ARENA_ALIGN(n)	(((n) + 15) & ~(size_t)15)
#define BLOCK_LIVE	0x6b70722d6c697665ULL
#define BLOCK_FREED	0x6b70722d66726565ULL

/**
 * struct block - the header of an arena block, also its left redzone
 * @size: the size asked for
 * @magic: BLOCK_LIVE or BLOCK_FREED
 */
struct block {
	size_t size;
	unsigned long long magic;
};

static max_align_t arena_mem[ARENA_SIZE / sizeof(max_align_t)];
static char *const arena = (char *)arena_mem;
static size_t arena_used, arena_live;
static bool arena_poisoned;

/**
 * split_calloc() - calloc() of the split parses
 * @nmemb: number of elements
 * @size: size of an element
 *
 * Return: zeroed memory for @nmemb * @size bytes, or NULL on overflow.
 */
void *split_calloc(size_t nmemb, size_t size)
{
	struct block *b;
	size_t len, need;

	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	len = nmemb * size;
	if (len > ARENA_SIZE / 2)
		return calloc(nmemb, size);
	/* Header, the block, and a right redzone of 16 bytes and 1/16th. */
	need = sizeof(*b) + ARENA_ALIGN(len) + 16 + ARENA_ALIGN(len / 16);
	if (need > ARENA_SIZE - arena_used)
		return calloc(nmemb, size);
	if (!arena_poisoned) {
		ASAN_POISON_MEMORY_REGION(arena, ARENA_SIZE);
		arena_poisoned = true;
	}
	b = (struct block *)(arena + arena_used);
	arena_used += need;
	arena_live++;
	ASAN_UNPOISON_MEMORY_REGION(b, sizeof(*b) + len);
	b->size = len;
	b->magic = BLOCK_LIVE;
	ASAN_POISON_MEMORY_REGION(b, sizeof(*b));
	memset(b + 1, 0, len);
	return b + 1;
}

/**
 * split_free() - free() of the split parses
 * @ptr: what split_calloc() returned, or NULL
 */
void split_free(void *ptr)
{
	struct block *b;

	if (!ptr)
		return;
	if ((char *)ptr < arena || (char *)ptr >= arena + ARENA_SIZE) {
		free(ptr);
		return;
	}
	b = (struct block *)ptr - 1;
	ASAN_UNPOISON_MEMORY_REGION(b, sizeof(*b));
	if (b->magic != BLOCK_LIVE) {
		fprintf(stderr, "split parse frees %p twice or never had it\n",
			ptr);
		abort();
	}
	b->magic = BLOCK_FREED;
	ASAN_POISON_MEMORY_REGION(b, sizeof(*b) + b->size);
	arena_live--;
}

/* After a split parse: it must have freed all it took. */
static void arena_reset(void)
{
	if (arena_live) {
		fprintf(stderr, "split parse leaks %zu blocks\n", arena_live);
		abort();
	}
	arena_used = 0;
}

/**
 * struct text_buf - a buffer for canonical texts, reused from input to input
 * @buf: the bytes
 * @size: allocated size of @buf
 */
struct text_buf {
	char *buf;
	size_t size;
};

/* The canonical text of a ruleset, and of the same text parsed back. */
static struct text_buf text_buf, again_buf;

/**
 * format() - write the canonical text of a ruleset into a reused buffer
 * @rs: the ruleset, canonicalized
 * @tb: the buffer, grown to fit
 * @len: receives the length of the text
 *
 * Return: the text, not NUL-terminated; valid until @tb is used again.
 */
static const char *format(const struct kpr_ruleset *rs, struct text_buf *tb,
			  size_t *len)
{
	*len = kpr_ruleset_format(rs, tb->buf, tb->size);
	if (*len > tb->size || !tb->buf) {
		free(tb->buf);
		tb->size = *len > 4096 ? *len : 4096;
		tb->buf = malloc(tb->size);
		if (!tb->buf)
			abort();
		if (kpr_ruleset_format(rs, tb->buf, tb->size) != *len)
			abort();
	}
	return tb->buf;
}

/**
 * parse_whole() - parse an input fed in one piece
 * @p: a parser, initialized here; the caller destroys it
 * @data: the input
 * @size: its length
 *
 * Return: 0 or the parser's error.
 */
static int parse_whole(struct kpr_parser *p, const char *data, size_t size)
{
	int err;

	kpr_parser_init(p);
	err = kpr_parser_feed(p, data, size);
	if (!err)
		err = kpr_parser_finish(p);
	return err;
}

/**
 * parse_split() - parse an input fed in two pieces
 * @p: a parser, initialized here; the caller destroys it
 * @data: the input
 * @size: its length
 * @split: length of the first piece, from 0 to @size
 *
 * Either piece may be empty: an empty write() must change nothing.
 *
 * Return: 0 or the parser's error.
 */
static int parse_split(struct kpr_parser *p, const char *data, size_t size,
		       size_t split)
{
	int err;

	split_kpr_parser_init(p);
	err = split_kpr_parser_feed(p, data, split);
	if (!err)
		err = split_kpr_parser_feed(p, data + split, size - split);
	if (!err)
		err = split_kpr_parser_finish(p);
	return err;
}

/* A failed parse must say which line is wrong, and what is. */
static void check_failure(const struct kpr_parser *p, int err)
{
	if (err && (p->error != err || !p->error_line || !p->error_msg))
		abort();
}

static bool same_program(const struct kpr_program *a,
			 const struct kpr_program *b)
{
	return a->hash == b->hash && a->id == b->id && a->len == b->len &&
	       a->uid == b->uid && a->gid == b->gid && a->quals == b->quals &&
	       a->kernel == b->kernel && !memcmp(a->path, b->path, a->len + 1);
}

/**
 * same_ruleset() - compare two rulesets field by field
 * @a: a canonicalized ruleset
 * @b: another
 *
 * The fields compared are those the canonical text is made of, and the
 * program numbering the kernel builds its tables from, so this is at least
 * as strict as comparing the texts of kpr_ruleset_format(), without
 * formatting each of the size + 1 splits of an input.
 *
 * Return: true if @a and @b are the same rules of the same programs.
 */
static bool same_ruleset(const struct kpr_ruleset *a,
			 const struct kpr_ruleset *b)
{
	size_t i;

	if (a->nr_rules != b->nr_rules || a->nr_progs != b->nr_progs)
		return false;
	for (i = 0; i < a->nr_rules; i++) {
		const struct kpr_rule *x = &a->rules[i], *y = &b->rules[i];

		if (x->first != y->first || x->last != y->last ||
		    x->protos != y->protos || !same_program(x->prog, y->prog))
			return false;
	}
	return true;
}

static void print_outcome(const char *what, const struct kpr_parser *p,
			  int err)
{
	const char *text;
	size_t len;

	if (err) {
		fprintf(stderr, "%s: error %d at line %u: %s\n", what, err,
			p->error_line, p->error_msg);
		return;
	}
	text = format(&p->rs, &text_buf, &len);
	fprintf(stderr, "%s: %zu rules of %zu programs:\n%.*s", what,
		p->rs.nr_rules, p->rs.nr_progs, (int)len, text);
}

/**
 * check_round_trip() - the canonical text must parse back to itself
 * @rs: a ruleset that parsed
 */
static void check_round_trip(const struct kpr_ruleset *rs)
{
	struct kpr_ruleset again = { 0 };
	const char *text, *text2;
	size_t len, len2;
	unsigned int line;
	const char *msg;

	text = format(rs, &text_buf, &len);
	if (kpr_parse_policy(text, len, &again, &line, &msg)) {
		fprintf(stderr, "canonical text fails at line %u: %s\n%.*s",
			line, msg, (int)len, text);
		abort();
	}
	text2 = format(&again, &again_buf, &len2);
	if (len != len2 || memcmp(text, text2, len) ||
	    again.nr_rules != rs->nr_rules) {
		fprintf(stderr, "canonical text:\n%.*s", (int)len, text);
		fprintf(stderr, "parses back as:\n%.*s", (int)len2, text2);
		abort();
	}
	kpr_ruleset_destroy(&again);
}

/**
 * check_split() - an input split in two must parse as it does whole
 * @data: the input
 * @size: its length
 * @split: where to split it, from 0 to @size
 * @whole: the parser that took the input whole
 * @whole_err: what the whole parse returned
 */
static void check_split(const char *data, size_t size, size_t split,
			const struct kpr_parser *whole, int whole_err)
{
	struct kpr_parser p;
	int err = parse_split(&p, data, size, split);
	bool same;

	check_failure(&p, err);
	if (err != whole_err)
		same = false;
	else if (err)
		same = p.error_line == whole->error_line &&
		       !strcmp(p.error_msg, whole->error_msg);
	else
		same = same_ruleset(&p.rs, &whole->rs);
	if (!same) {
		fprintf(stderr, "split at byte %zu of %zu differs\n", split,
			size);
		print_outcome("whole", whole, whole_err);
		print_outcome("split", &p, err);
		abort();
	}
	split_kpr_parser_destroy(&p);
	arena_reset();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *text = (const char *)data;
	struct kpr_parser whole;
	size_t split;
	int err;

	err = parse_whole(&whole, text, size);
	check_failure(&whole, err);
	if (!err)
		check_round_trip(&whole.rs);
	for (split = 0; split <= size; split++)
		check_split(text, size, split, &whole, err);
	kpr_parser_destroy(&whole);
	return 0;
}
