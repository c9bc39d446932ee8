/* libdw loaded on first use (heap/dwlib.h). */
#include <dlfcn.h>
#include <string.h>

#include "base/error.h"
#include "heap/dwlib.h"
#include "base/banned.h"

/* dlsym into a function pointer without a cast the compiler frowns on. */
static int sym(void *h, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(h, name);

	if (!p)
		return tm_error("%s lacks '%s' (elfutils too old?)", TM_DWLIB_SONAME, name);
	memcpy(fnptr, &p, size);
	return 0;
}

int tm_dwlib_load(struct tm_dwlib *l)
{
	void *h;

	memset(l, 0, sizeof(*l));
	h = dlopen(TM_DWLIB_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h)
		return tm_error("cannot load %s: %s; symbolizing a heap profile needs it "
		                "(Debian: libdw1)",
		                TM_DWLIB_SONAME, dlerror());
#define TM_DWLIB_SYM(f)                                                                            \
	if (sym(h, #f, &l->f, sizeof(l->f))) {                                                     \
		dlclose(h);                                                                        \
		return -1;                                                                         \
	}
	TM_DWLIB_FUNCS(TM_DWLIB_SYM)
#undef TM_DWLIB_SYM
	/* NODELETE: the library stays mapped, and L's pointers valid, after this */
	dlclose(h);
	return 0;
}
