/*
 * Server tokens.  A write token belongs to one machine (its name is the
 * machine name every run it pushes is filed under); a read token lets a
 * browser or script read the panel API.  Only the SHA-256 of a token is
 * stored (tokens are 256 random bits, so a fast hash is enough); a presented
 * token is hashed and compared against every stored hash in constant time.
 *
 * The hashes live in the store's tokens table (store/server_tables.h).
 */
#ifndef TM_SERVE_AUTH_H
#define TM_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"   /* tm_name_valid, TM_NAME_MAX */
#include "serve/names.h" /* TM_TOKEN_LEN, tm_ct_equal */

struct tm_store;

void tm_sha256(const void *data, size_t len, uint8_t out[32]);

/* Creates the tokens and machines tables if missing.  0 or -1. */
int tm_auth_init(struct tm_store *st);

/* Creates a token of KIND ("write" or "read") for NAME; the clear token is
 * written to OUT (TM_TOKEN_LEN + 1 bytes) and never stored.  Replaces an
 * existing token of that name and kind.  0 or -1 after tm_error. */
int tm_token_add(struct tm_store *st, const char *name, const char *kind,
                 char out[TM_TOKEN_LEN + 1]);
/* 0 removed, 1 no such token, -1 error. */
int tm_token_remove(struct tm_store *st, const char *name, const char *kind);

/* Checks TOKEN for KIND; on success copies the token's name into NAME_OUT
 * (TM_NAME_MAX + 1 bytes).  0 accepted, 1 refused, -1 error.  A write token
 * is also accepted where a read token is asked for. */
int tm_token_check(struct tm_store *st, const char *token, const char *kind, char *name_out);

typedef int (*tm_token_cb)(void *ctx, const char *name, const char *kind,
                           int64_t created_wall_usec);
int tm_token_each(struct tm_store *st, tm_token_cb cb, void *ctx);

#endif
