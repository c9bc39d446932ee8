/* Rules of `tidemark guard`: the registry, the parser, the evaluation (rule.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "guard/rule.h"
#include "base/banned.h"

static const struct tm_guard_kind_desc kinds[TM_GUARD_KIND_COUNT] = {
#define TM_GUARD_KIND_DESC(e, n, s, x, m) [TM_GUARD_##e] = {n, s, x, m},
    TM_GUARD_KINDS(TM_GUARD_KIND_DESC)
#undef TM_GUARD_KIND_DESC
};

const struct tm_guard_kind_desc *tm_guard_kind_desc(enum tm_guard_kind k)
{
	return k < TM_GUARD_KIND_COUNT ? &kinds[k] : NULL;
}

/* What a rule may start with: the figure compared and its kind. */
static const struct subject {
	const char *name;
	enum tm_guard_kind kind;
	enum tm_metric metric;
} subjects[] = {
    {"anon", TM_GUARD_LEVEL, TM_M_CG_ANON_BYTES},
    {"current", TM_GUARD_LEVEL, TM_M_CG_CURRENT_BYTES},
    {"high_events", TM_GUARD_HIGH_RATE, TM_M_CG_EVENTS_HIGH},
    {"psi_full", TM_GUARD_PSI_FULL, TM_M_CG_PSI_MEM_FULL_USEC},
    {"host_psi_full", TM_GUARD_PSI_FULL, TM_M_HOST_PSI_MEM_FULL_USEC},
    {"jvm_old", TM_GUARD_JVM_OLD, TM_M_JVM_LOG_OLD_AFTER_BYTES},
    {"heap_live", TM_GUARD_HEAP_GROWS, TM_M_HEAP_LIVE_BYTES},
};

struct cursor {
	const char *p;    /* the rule, spaces removed */
	const char *text; /* as given, for messages */
	struct tm_err *err;
};

static int bad(struct cursor *c, const char *what)
{
	return tm_err_set(c->err, 0, "'%s': %s", c->text, what);
}

static bool eat(struct cursor *c, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(c->p, word, n))
		return false;
	c->p += n;
	return true;
}

/* The token up to "for", "x<digit>" or the end, into BUF; -1 when too long. */
static int token(struct cursor *c, char *buf, size_t size)
{
	size_t n = 0;
	while (c->p[n] && strncmp(c->p + n, "for", 3) &&
	       !(c->p[n] == 'x' && isdigit((unsigned char)c->p[n + 1])))
		n++;
	if (n == 0 || n >= size)
		return -1;
	memcpy(buf, c->p, n);
	buf[n] = 0;
	c->p += n;
	return 0;
}

/* A positive finite number at the cursor (no sign, no exponent). */
static int number(struct cursor *c, double *out)
{
	size_t n = strspn(c->p, "0123456789.");
	char buf[32];
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, c->p, n);
	buf[n] = 0;
	char *end;
	double v = strtod(buf, &end);
	if (*end || !isfinite(v) || v <= 0)
		return -1;
	c->p += n;
	*out = v;
	return 0;
}

/* "P%" then what it is a share of (REFS: the words allowed). */
static int share_of(struct cursor *c, struct tm_guard_rule *r, bool ref_needed)
{
	double pct;
	if (number(c, &pct) < 0 || !eat(c, "%"))
		return bad(c, "expected a share such as 90% after '>'");
	if (pct > 1000)
		return bad(c, "a share is at most 1000%");
	r->share = pct / 100;
	if (!ref_needed)
		return 0;
	if (r->kind == TM_GUARD_LEVEL && eat(c, "max"))
		r->ref = TM_GUARD_REF_MAX;
	else if (r->kind == TM_GUARD_LEVEL && eat(c, "high"))
		r->ref = TM_GUARD_REF_HIGH;
	else if (r->kind == TM_GUARD_JVM_OLD && eat(c, "committed"))
		r->ref = TM_GUARD_REF_COMMITTED;
	else if (r->kind == TM_GUARD_JVM_OLD && eat(c, "max"))
		return bad(c, "the store has no old generation maximum; use P%committed "
		              "(the same with -Xms equal to -Xmx) or a size");
	else
		return bad(c, r->kind == TM_GUARD_LEVEL
		                  ? "a share needs max or high after it (90%max)"
		                  : "a share needs committed after it (85%committed)");
	return 0;
}

/* A share of a reference, or a size. */
static int level_value(struct cursor *c, struct tm_guard_rule *r)
{
	size_t n = strspn(c->p, "0123456789.");
	if (c->p[n] == '%')
		return share_of(c, r, true);
	char tok[32];
	r->ref = TM_GUARD_REF_BYTES;
	if (token(c, tok, sizeof(tok)) < 0 || tm_parse_size(tok, &r->bytes) < 0 || r->bytes <= 0 ||
	    r->bytes == INT64_MAX)
		return bad(c, "expected a share (90%max) or a size (2G) after '>'");
	return 0;
}

static int value(struct cursor *c, struct tm_guard_rule *r)
{
	switch (r->kind) {
	case TM_GUARD_LEVEL:
	case TM_GUARD_JVM_OLD:
		return level_value(c, r);
	case TM_GUARD_HIGH_RATE:
		if (number(c, &r->per_sec) < 0 || !eat(c, "/s"))
			return bad(c, "expected a rate such as 5/s after '>'");
		return 0;
	case TM_GUARD_PSI_FULL:
		if (share_of(c, r, false) < 0)
			return -1;
		return r->share > 1 ? bad(c, "a share of time is at most 100%") : 0;
	case TM_GUARD_HEAP_GROWS: /* "grows", read by the caller */
	case TM_GUARD_KIND_COUNT:
		break;
	}
	/* no default: a kind of TM_GUARD_KINDS without its case fails -Wswitch */
	return bad(c, "internal: no value parser");
}

/* " for DUR" and " xN", in that order, each where the kind allows it. */
static int suffixes(struct cursor *c, struct tm_guard_rule *r)
{
	char tok[32];
	if (eat(c, "for")) {
		if (r->kind == TM_GUARD_JVM_OLD)
			return bad(c, "jvm_old counts GCs (x3), not a duration");
		if (token(c, tok, sizeof(tok)) < 0 || tm_parse_duration(tok, &r->for_usec) < 0 ||
		    r->for_usec <= 0)
			return bad(c, "expected a duration such as 30s or 5m after 'for'");
	}
	if (c->p[0] == 'x' && r->kind == TM_GUARD_JVM_OLD) {
		c->p++;
		int64_t n;
		if (tm_parse_int64(c->p, &n) < 0 || n < 1 || n > 1000000)
			return bad(c, "expected a count of GCs from 1 such as x3");
		r->count = n;
		c->p += strlen(c->p);
	}
	if (*c->p)
		return bad(c, r->kind == TM_GUARD_JVM_OLD
		                  ? "unexpected text after the rule (xN ends it)"
		                  : "unexpected text after the rule (for DUR ends it)");
	if (r->kind == TM_GUARD_HEAP_GROWS && !r->for_usec)
		return bad(c, "heap_live grows needs 'for DUR' (heap_live grows for 5m)");
	return 0;
}

static int subject(struct cursor *c, struct tm_guard_rule *r)
{
	const struct subject *best = NULL;
	for (size_t i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++) {
		size_t n = strlen(subjects[i].name);
		if (!strncmp(c->p, subjects[i].name, n) && (!best || n > strlen(best->name)))
			best = &subjects[i];
	}
	/* the name ends there: no letter follows, but for "heap_live grows" */
	if (best) {
		const char *after = c->p + strlen(best->name);
		bool ends = !islower((unsigned char)*after) && *after != '_';
		if (!ends && (best->kind != TM_GUARD_HEAP_GROWS || strncmp(after, "grows", 5)))
			best = NULL;
	}
	if (!best)
		return bad(c,
		           "expected anon, current, high_events, psi_full, host_psi_full, jvm_old "
		           "or heap_live first");
	r->kind = best->kind;
	r->metric = best->metric;
	c->p += strlen(best->name);
	return 0;
}

int tm_guard_rule_parse(const char *text, struct tm_guard_rule *out, struct tm_err *err)
{
	struct tm_guard_rule r = {.ref = TM_GUARD_REF_NONE, .count = 1};
	struct cursor c = {.text = text, .err = err};
	size_t n = 0;
	for (const char *p = text; *p; p++) {
		if (isspace((unsigned char)*p))
			continue;
		if (n + 1 >= sizeof(r.text) || !isprint((unsigned char)*p)) {
			tm_err_set(err, 0, "a rule is at most %d printable characters",
			           TM_GUARD_RULE_TEXT - 1);
			return -1;
		}
		r.text[n++] = *p;
	}
	r.text[n] = 0;
	c.p = r.text;
	if (subject(&c, &r) < 0)
		return -1;
	if (r.kind == TM_GUARD_HEAP_GROWS) {
		if (!eat(&c, "grows"))
			return bad(&c, "expected 'grows' after heap_live (heap_live grows for 5m)");
	} else if (!eat(&c, ">")) {
		return bad(&c, "expected '>' after the figure's name");
	} else if (value(&c, &r) < 0) {
		return -1;
	}
	if (suffixes(&c, &r) < 0)
		return -1;
	*out = r;
	return 0;
}
