/*
 * A system library loaded when first used, not linked: libsystemd
 * (sysd/sdlib) and libdw (heap/dwlib), so that a plain `record` maps
 * neither (issue 23: their pages were 1.3 MiB of its RSS).  Each keeps its
 * list of functions; these two calls are what loading any of them shares.
 */
#ifndef TM_BASE_DL_H
#define TM_BASE_DL_H

#include <stddef.h>

/* Opens SONAME (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: once loaded it
 * stays mapped, so pointers taken from it stay valid after dlclose).  The
 * handle, or NULL after tm_error saying what needs it (NEEDED_BY, "systemd
 * units ... need it (Debian: libsystemd0)"). */
void *tm_dl_open(const char *soname, const char *needed_by);

/* dlsym of NAME in H (SONAME's) into the function pointer at FNPTR, of
 * SIZE bytes (a memcpy: no cast of an object pointer to a function
 * pointer).  0, or -1 after tm_error ("SONAME lacks NAME"). */
int tm_dl_sym(void *h, const char *soname, const char *name, void *fnptr, size_t size);

#endif
