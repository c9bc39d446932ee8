/* libsystemd loaded on first use (sysd/sdlib.h). */
#include "base/dl.h"
#include "sysd/sdlib.h"
#include "base/banned.h"

int tm_sdlib_load(struct tm_sdlib *l)
{
#define TM_X_FN(f) TM_DL_FN(struct tm_sdlib, f)
	static const struct tm_dl_fn fns[] = {TM_SDLIB_FUNCS(TM_X_FN)};
#undef TM_X_FN
	return tm_dl_load(
	    TM_SDLIB_SONAME,
	    "systemd units, their journal and passed sockets need it (Debian: libsystemd0)", fns,
	    sizeof(fns) / sizeof(fns[0]), l, sizeof(*l));
}
