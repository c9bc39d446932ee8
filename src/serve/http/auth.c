/* Tokens: creation, hashing at rest, constant-time checks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/http/auth.h"
#include "store/server_tables.h"
#include "store/store.h"
#include "base/banned.h"

static bool kind_valid(const char *kind)
{
	return !strcmp(kind, "write") || !strcmp(kind, "read");
}

int tm_auth_init(struct tm_store *st)
{
	return tm_server_tables_init(st);
}

static void hex(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = 0;
}

static void token_hash(const char *token, char out[65])
{
	uint8_t d[32];

	tm_sha256(token, strlen(token), d);
	hex(d, 32, out);
}

int tm_token_add(struct tm_store *st, const char *name, const char *kind,
                 char out[TM_TOKEN_LEN + 1])
{
	uint8_t raw[32];
	char hash[65];

	if (!tm_name_valid(name))
		return tm_error("invalid token name '%s' (1-64 of A-Z a-z 0-9 . _ -)", name);
	if (!kind_valid(kind))
		return tm_error("invalid token kind '%s'", kind);
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return tm_error("cannot get random bytes: %s", strerror(errno));
	memcpy(out, "tm_", 3);
	hex(raw, 32, out + 3);
	token_hash(out, hash);
	if (tm_store_token_put(st, name, kind, hash, tm_now_wall_usec()) < 0)
		return -1;
	return tm_store_commit(st);
}

int tm_token_remove(struct tm_store *st, const char *name, const char *kind)
{
	int rc = tm_store_token_delete(st, name, kind);

	if (tm_store_commit(st) < 0)
		return -1;
	return rc;
}

/* Every token is compared, so the time taken does not say which matched. */
struct check {
	char want[65];
	const char *kind;
	char *name_out;
	int found;
};

static int check_one(void *ctx, const char *name, const char *kind, const char *hash,
                     int64_t created_wall_usec)
{
	struct check *c = ctx;
	bool kind_ok = kind && (!strcmp(kind, c->kind) || !strcmp(kind, "write"));

	(void)created_wall_usec;
	if (hash && strlen(hash) == 64 && tm_ct_equal(hash, c->want, 64) && kind_ok && !c->found) {
		snprintf(c->name_out, TM_NAME_MAX + 1, "%s", name ? name : "");
		c->found = 1;
	}
	return 0;
}

int tm_token_check(struct tm_store *st, const char *token, const char *kind, char *name_out)
{
	struct check c = {.kind = kind, .name_out = name_out};

	if (!token || strlen(token) != TM_TOKEN_LEN)
		return 1;
	token_hash(token, c.want);
	if (tm_store_each_token(st, check_one, &c) < 0)
		return -1;
	return c.found ? 0 : 1;
}

struct each {
	tm_token_cb cb;
	void *ctx;
};

static int each_one(void *ctx, const char *name, const char *kind, const char *hash,
                    int64_t created_wall_usec)
{
	struct each *e = ctx;

	(void)hash;
	return e->cb(e->ctx, name, kind, created_wall_usec);
}

int tm_token_each(struct tm_store *st, tm_token_cb cb, void *ctx)
{
	struct each e = {cb, ctx};

	return tm_store_each_token(st, each_one, &e);
}
