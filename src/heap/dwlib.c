/* libdw loaded on first use (heap/dwlib.h). */
#include <dlfcn.h>
#include <string.h>

#include "base/dl.h"
#include "heap/dwlib.h"
#include "base/banned.h"

int tm_dwlib_load(struct tm_dwlib *l)
{
	int rc = 0;
	memset(l, 0, sizeof(*l));
	void *h =
	    tm_dl_open(TM_DWLIB_SONAME, "symbolizing a heap profile needs it (Debian: libdw1)");
	if (!h)
		return -1;
#define TM_X_SYM(f) rc = rc ? rc : tm_dl_sym(h, TM_DWLIB_SONAME, #f, &l->f, sizeof(l->f));
	TM_DWLIB_FUNCS(TM_X_SYM)
#undef TM_X_SYM
	dlclose(h); /* RTLD_NODELETE: it stays mapped, and L's pointers valid */
	return rc;
}
