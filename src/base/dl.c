/* A system library loaded when first used (base/dl.h). */
#include <dlfcn.h>
#include <string.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/banned.h"

/* Opens SONAME (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: once loaded it
 * stays mapped, so pointers taken from it stay valid after dlclose).  The
 * handle, or NULL after tm_error saying what needs it (NEEDED_BY). */
static void *dl_open(const char *soname, const char *needed_by)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h)
		tm_error("cannot load %s: %s; %s", soname, dlerror(), needed_by);
	return h;
}

/* dlsym of NAME in H (SONAME's) into the function pointer at FNPTR, of
 * SIZE bytes (a memcpy: no cast of an object pointer to a function
 * pointer).  0, or -1 after tm_error ("SONAME lacks NAME"). */
static int dl_sym(void *h, const char *soname, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(h, name);
	if (!p)
		return tm_error("%s lacks '%s' (too old a version?)", soname, name);
	memcpy(fnptr, &p, size);
	return 0;
}

int tm_dl_load(const char *soname, const char *needed_by, const struct tm_dl_fn *fns, size_t n,
               void *table, size_t table_size)
{
	int rc = 0;

	memset(table, 0, table_size);
	void *h = dl_open(soname, needed_by);
	if (!h)
		return -1;
	for (size_t i = 0; i < n && !rc; i++)
		rc = dl_sym(h, soname, fns[i].name, (char *)table + fns[i].offset, fns[i].size);
	dlclose(h); /* RTLD_NODELETE: it stays mapped, and TABLE's pointers valid */
	return rc;
}
