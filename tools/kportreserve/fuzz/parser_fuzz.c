// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kportreserve policy parser, built from the
 * kernel's own security/kportreserve/parser.c.
 *
 * Each input is fed in two pieces (split where its first byte says), as
 * write() calls would deliver it. Whatever parses must print a canonical
 * text that parses back to the same text; anything else aborts.
 */

#include <stdio.h>
#include <stdlib.h>

#include "parser.h"

static char *format(const struct kpr_ruleset *rs, size_t *len)
{
	char *text;

	*len = kpr_ruleset_format(rs, NULL, 0);
	text = malloc(*len + 1);
	if (!text)
		abort();
	if (kpr_ruleset_format(rs, text, *len) != *len)
		abort();
	text[*len] = '\0';
	return text;
}

static void check_round_trip(const struct kpr_ruleset *rs)
{
	struct kpr_ruleset again = { 0 };
	size_t len, len2;
	char *text = format(rs, &len), *text2;
	unsigned int line;
	const char *msg;

	if (kpr_parse_policy(text, len, &again, &line, &msg)) {
		fprintf(stderr, "canonical text fails at line %u: %s\n%s",
			line, msg, text);
		abort();
	}
	text2 = format(&again, &len2);
	if (len != len2 || memcmp(text, text2, len) || again.nr_rules != rs->nr_rules)
		abort();
	free(text);
	free(text2);
	kpr_ruleset_destroy(&again);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	size_t split = size ? data[0] % (size + 1) : 0;
	struct kpr_parser p;
	struct kpr_ruleset rs;
	int err;

	kpr_parser_init(&p);
	err = kpr_parser_feed(&p, (const char *)data, split);
	if (!err)
		err = kpr_parser_feed(&p, (const char *)data + split,
				      size - split);
	if (!err)
		err = kpr_parser_finish(&p);
	if (err) {
		if (!p.error_msg || !p.error_line)
			abort();
	} else {
		kpr_parser_take(&p, &rs);
		check_round_trip(&rs);
		kpr_ruleset_destroy(&rs);
	}
	kpr_parser_destroy(&p);
	return 0;
}
