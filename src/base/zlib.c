/* zlib loaded on first use (base/zlib.h). */
#include "base/dl.h"
#include "base/zlib.h"
#include "base/banned.h"

int tm_zlib_load(struct tm_zlib *z)
{
#define TM_X_FN(f) TM_DL_FN(struct tm_zlib, f)
	static const struct tm_dl_fn fns[] = {TM_ZLIB_FUNCS(TM_X_FN)};
#undef TM_X_FN
	return tm_dl_load(TM_ZLIB_SONAME, "gzip files need it (Debian: zlib1g)", fns,
	                  sizeof(fns) / sizeof(fns[0]), z, sizeof(*z));
}
