/*
 * The server's own tables in the store (docs/push-protocol.md):
 *   tokens(id, name, kind 'write'|'read', hash (64 hex), created_wall_usec,
 *          UNIQUE(name, kind)): only a token's hash is kept (serve/http/auth.c
 *          makes and checks tokens);
 *   machines(name, first_push_wall_usec, last_push_wall_usec, last_addr,
 *            batches, samples): who pushed, when and how much.
 * Writes go into the store's current batch (tm_store_commit() ends it).
 */
#ifndef TM_STORE_SERVER_TABLES_H
#define TM_STORE_SERVER_TABLES_H

#include <stdint.h>

struct tm_store;

/* Creates the tables if needed.  0, or -1 after tm_error. */
int tm_server_tables_init(struct tm_store *st);

/* Stores HASH for the token NAME of KIND ("write" or "read", checked by
 * the caller), replacing one of that name and kind.  0 or -1. */
int tm_store_token_put(struct tm_store *st, const char *name, const char *kind, const char *hash,
                       int64_t created_wall_usec);
/* 0 removed, 1 no such token, -1 error. */
int tm_store_token_delete(struct tm_store *st, const char *name, const char *kind);

/* One stored token; the strings are valid during the call only. */
typedef int (*tm_token_row_cb)(void *ctx, const char *name, const char *kind, const char *hash,
                               int64_t created_wall_usec);
/* Every token, by name then kind.  A callback returning non-zero stops the
 * walk and is returned; else 0, or -1 after tm_error. */
int tm_store_each_token(struct tm_store *st, tm_token_row_cb cb, void *ctx);

/* Records a batch of SAMPLES samples pushed by machine NAME from PEER (an
 * address, or NULL) at NOW_WALL_USEC.  0 or -1. */
int tm_store_machine_pushed(struct tm_store *st, const char *name, const char *peer,
                            int64_t samples, int64_t now_wall_usec);

struct tm_machine_row {
	const char *name, *last_addr; /* valid during the call only */
	int64_t first_push_wall_usec, last_push_wall_usec, batches, samples;
};
typedef int (*tm_machine_cb)(void *ctx, const struct tm_machine_row *m);
/* Every machine that pushed, by name.  A store without the table (a
 * collector's own) has none: 0.  Callback and errors as above. */
int tm_store_each_machine(struct tm_store *st, tm_machine_cb cb, void *ctx);

#endif
