/*
 * systemctl run as a program (TIDEMARK_SYSTEMCTL overrides its path, for
 * tests), the directories systemd reads a unit's drop-ins from, and a
 * drop-in's lines and file.  What starts, stops and reloads units is here;
 * sysd/unit.h only asks about them.  Used by bench --unit (bench/unit.h).
 */
#ifndef TM_SYSD_SYSTEMCTL_H
#define TM_SYSD_SYSTEMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The systemctl to run: $TIDEMARK_SYSTEMCTL, else "systemctl" on PATH. */
const char *tm_systemctl_path(void);

/* Runs systemctl with ARGS (NULL-terminated, at most 6); its stdout into
 * OUT (SIZE bytes, the last newline cut) when OUT, else to /dev/null; its
 * stdin from /dev/null.  Its exit status, or -1 when it could not be run. */
int tm_systemctl(char *out, size_t size, const char *const *args);

/* tm_systemctl(NULL, 0, ARGS) with its stderr to /dev/null (reset-failed
 * of a unit that has nothing to reset says so); its exit status. */
int tm_systemctl_quiet(const char *const *args);

/* systemctl VERB UNIT (UNIT may be NULL).  0, or -1 after tm_error. */
int tm_systemctl_verb(const char *verb, const char *unit);

/* systemctl show -P PROP UNIT into OUT (SIZE bytes).  0, or -1 after
 * tm_error. */
int tm_systemctl_show(const char *unit, const char *prop, char *out, size_t size);

/* The directories systemd reads a unit's drop-ins from, NAME.d/ in each
 * (NULL-terminated; static). */
const char *const *tm_sysd_unit_dirs(void);

/* An Environment="NAME=VALUE" line into F, VALUE quoted and escaped as
 * systemd reads it (%, " and \).  false when VALUE holds what a unit file
 * cannot carry (a newline): the line is then not valid. */
bool tm_sysd_put_env(FILE *f, const char *name, const char *value);

/* TEXT into PATH, through PATH.tmp and a rename (mode 0644).  0, or -1
 * after tm_error. */
int tm_sysd_write_atomic(const char *path, const char *text);

#endif
