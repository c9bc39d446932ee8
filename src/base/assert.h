/*
 * Assertions of invariants, by level (mimalloc's mi_assert levels are the
 * model): what must hold if the code is right, never what input may break
 * (input is checked and reported: base/error.h).
 *
 *   TM_DEBUG 0  release: both compile to nothing (the expression is not
 *               evaluated; it must have no side effect)
 *   TM_DEBUG 1  tm_assert checks (cheap: an index in range, a cursor
 *               inside its buffer)
 *   TM_DEBUG 2  tm_assert_expensive checks too (a walk over an array)
 *
 * The Makefile builds the ASan library, the unit tests and the fuzzers with
 * TM_DEBUG=2; the tool and libraries that are installed with none.  A
 * failed assertion prints "tidemark: BUG at FILE:LINE: FUNC: assertion
 * 'X' failed" to stderr (tm_bug) and aborts: a programmer error, never a user's.
 */
#ifndef TM_ASSERT_H
#define TM_ASSERT_H

#ifndef TM_DEBUG
#define TM_DEBUG 0
#endif

/* Prints the failed assertion EXPR at FILE:LINE in FUNC and aborts. */
void tm_assert_fail(const char *expr, const char *file, int line, const char *func)
    __attribute__((noreturn));

/* The TM_DEBUG the library was compiled with (a test of an assertion
 * skips, saying why, when it is 0). */
int tm_assert_level(void);

#if TM_DEBUG >= 1
#define tm_assert(x) ((x) ? (void)0 : tm_assert_fail(#x, __FILE__, __LINE__, __func__))
#else
#define tm_assert(x) ((void)sizeof(!(x)))
#endif

#if TM_DEBUG >= 2
#define tm_assert_expensive(x) tm_assert(x)
#else
#define tm_assert_expensive(x) ((void)sizeof(!(x)))
#endif

#endif
