/* libdw loaded on first use (heap/dwlib.h). */
#include "base/dl.h"
#include "heap/dwlib.h"
#include "base/banned.h"

int tm_dwlib_load(struct tm_dwlib *l)
{
#define TM_X_FN(f) TM_DL_FN(struct tm_dwlib, f)
	static const struct tm_dl_fn fns[] = {TM_DWLIB_FUNCS(TM_X_FN)};
#undef TM_X_FN
	return tm_dl_load(TM_DWLIB_SONAME, "symbolizing a heap profile needs it (Debian: libdw1)",
	                  fns, sizeof(fns) / sizeof(fns[0]), l, sizeof(*l));
}
