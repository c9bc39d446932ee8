/*
 * The recorder's options, described once (base/opt.h): `tidemark record`'s
 * command line, `tidemark bench`'s command line and an experiment file's
 * [bench] section all read them from tm_record_options, into a
 * struct tm_record_opts.  An option of the recorder is added here, with
 * the scopes that may set it, and nowhere else.
 */
#ifndef TM_RECORD_OPTIONS_H
#define TM_RECORD_OPTIONS_H

#include <stdbool.h>

#include "base/opt.h"
#include "record/recorder.h"

/* The table; its entries store into a struct tm_record_opts. */
extern const struct tm_opt tm_record_options[];

/*
 * The checks that need only the options (no process, no file): one
 * target when NEED_TARGET, an interval of at least 50ms, --heap-profile
 * needs --heap, --until-progress needs --progress, and so on.  0, or -1
 * after tm_error naming the options.  tm_record_run() checks the same.
 */
int tm_record_opts_check(const struct tm_record_opts *o, bool need_target);

#endif
