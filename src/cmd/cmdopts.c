/* The options every command with a store shares: -o/--db (cmds.h). */
#include <stddef.h>
#include <stdio.h>

#include "base/opt.h"
#include "cmd/cmds.h"
#include "base/banned.h"

/* --db PATH: handed to the command's context (borrowed from argv). */
static int parse_db(void *field, const char *value, struct tm_err *err)
{
	if (!*value)
		return tm_err_set(err, 0, "'': expected a file name");
	tm_cmd_set_db(field, value);
	return 0;
}

const struct tm_opt tm_cmd_db_options[] = {
    {.flag = "db",
     .short_name = 'o',
     .scopes = TM_OPT_RECORD | TM_OPT_BENCH | TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .parse = parse_db,
     .metavar = "PATH",
     .help = "the store (default $" TM_DB_ENV " or ./" TM_DB_DEFAULT ")"},
    {.type = TM_OPT_END},
};
