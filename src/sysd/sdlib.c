/* libsystemd loaded on first use (sysd/sdlib.h). */
#include <dlfcn.h>
#include <string.h>

#include "base/error.h"
#include "sysd/sdlib.h"
#include "base/banned.h"

/* dlsym into a function pointer without a cast the compiler frowns on. */
static int sym(void *h, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(h, name);

	if (!p)
		return tm_error("%s lacks '%s' (systemd too old?)", TM_SDLIB_SONAME, name);
	memcpy(fnptr, &p, size);
	return 0;
}

int tm_sdlib_load(struct tm_sdlib *l)
{
	void *h;

	memset(l, 0, sizeof(*l));
	h = dlopen(TM_SDLIB_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h)
		return tm_error("cannot load %s: %s; systemd units, their journal and passed "
		                "sockets need it (Debian: libsystemd0)",
		                TM_SDLIB_SONAME, dlerror());
#define TM_SDLIB_SYM(f)                                                                            \
	if (sym(h, #f, &l->f, sizeof(l->f))) {                                                     \
		dlclose(h);                                                                        \
		return -1;                                                                         \
	}
	TM_SDLIB_FUNCS(TM_SDLIB_SYM)
#undef TM_SDLIB_SYM
	/* NODELETE: the library stays mapped, and L's pointers valid, after this */
	dlclose(h);
	return 0;
}
