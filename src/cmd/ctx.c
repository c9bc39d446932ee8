/* The store of a command: its path (--db, the environment, the default),
 * opened once in the way the command table allows (cmds.h). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cmd/cmds.h"
#include "store/store.h"
#include "base/banned.h"

void tm_cmd_set_db(struct tm_cmd_ctx *ctx, const char *path)
{
	ctx->db_opt = path;
}

const char *tm_cmd_db_path(const struct tm_cmd_ctx *ctx)
{
	const char *env = ctx->db_env ? getenv(ctx->db_env) : NULL;

	if (ctx->db_opt)
		return ctx->db_opt;
	return env && *env ? env : ctx->db_default;
}

const char *tm_cmd_db_nondefault(const struct tm_cmd_ctx *ctx)
{
	const char *path = tm_cmd_db_path(ctx);

	return strcmp(path, ctx->db_default) ? path : NULL;
}

struct tm_store *tm_cmd_store(struct tm_cmd_ctx *ctx, enum tm_cmd_store access)
{
	const char *path = tm_cmd_db_path(ctx);
	int rc;

	if (access == TM_CMD_NO_STORE || access > ctx->store)
		TM_BUG("'%s' asked for a store the command table does not give it", ctx->name);
	if (ctx->st) {
		if (access > ctx->opened)
			TM_BUG("'%s' asked to write a store it opened read-only", ctx->name);
		return ctx->st;
	}
	rc = access == TM_CMD_WRITE ? tm_store_open(path, &ctx->st)
	                            : tm_store_open_readonly(path, &ctx->st);
	if (rc) {
		ctx->st = NULL;
		return NULL;
	}
	ctx->opened = access;
	return ctx->st;
}

void tm_cmd_close(struct tm_cmd_ctx *ctx)
{
	tm_store_close(ctx->st);
	ctx->st = NULL;
}
