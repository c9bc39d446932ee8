/* libsystemd loaded on first use (sysd/sdlib.h). */
#include <dlfcn.h>
#include <string.h>

#include "base/dl.h"
#include "sysd/sdlib.h"
#include "base/banned.h"

int tm_sdlib_load(struct tm_sdlib *l)
{
	int rc = 0;
	memset(l, 0, sizeof(*l));
	void *h = tm_dl_open(
	    TM_SDLIB_SONAME,
	    "systemd units, their journal and passed sockets need it (Debian: libsystemd0)");
	if (!h)
		return -1;
#define TM_X_SYM(f) rc = rc ? rc : tm_dl_sym(h, TM_SDLIB_SONAME, #f, &l->f, sizeof(l->f));
	TM_SDLIB_FUNCS(TM_X_SYM)
#undef TM_X_SYM
	dlclose(h); /* RTLD_NODELETE: it stays mapped, and L's pointers valid */
	return rc;
}
