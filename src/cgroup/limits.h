/*
 * Checks on memory limits before a run is given them.  A memory.max (v1
 * memory.limit_in_bytes) or memory.high under TM_LIMIT_FLOOR_BYTES leaves no
 * room to start any program: the kernel charges a new process's page
 * tables, kernel stack and first pages to its cgroup, and the command dies
 * before it runs ("killed (signal 9)" for 0 or 1K).  Measured on x86-64
 * with 4 KiB pages: a static program that only returns needs 128 KiB (it is
 * killed at 96 KiB), a shell 256 KiB; larger pages need more.
 */
#ifndef TM_CG_LIMITS_H
#define TM_CG_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#define TM_LIMIT_FLOOR_BYTES (128 * 1024)

/* 0 when BYTES is TM_LIMIT_UNSET (-1), "max" (INT64_MAX) or at least
 * TM_LIMIT_FLOOR_BYTES; otherwise -1 after tm_error naming WHAT (the option
 * or key, e.g. "--memory-max"), the value and the reason. */
int tm_limit_check(const char *what, int64_t bytes);

/* The same check for an option table (base/opt.h, the `check` of an
 * entry): 0, or -1 with ERR->msg ("1024 bytes is below 128 KiB, the least any
 * program can start in (...)"). */
struct tm_err;
int tm_limit_floor_why(int64_t bytes, struct tm_err *err);

#endif
