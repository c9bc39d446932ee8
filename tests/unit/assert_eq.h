/*
 * assert_eq(A, B): A == B for numbers of any arithmetic type, and when it
 * fails cmocka prints both expressions and both values (assert_true prints
 * only "A == B" is false).  Integers compare as integers (signed or
 * unsigned as C's usual conversions make A + B), floating values as long
 * double, exactly, printed with every digit.  Include after <cmocka.h>.
 */
#ifndef TM_TEST_ASSERT_EQ_H
#define TM_TEST_ASSERT_EQ_H

#include <stdint.h>

static inline void tm_assert_eq_s(intmax_t a, intmax_t b, const char *as, const char *bs,
                                  const char *file, int line)
{
	if (a != b) {
		print_error("%s == %s: %jd != %jd\n", as, bs, a, b);
		_fail(file, line);
	}
}

static inline void tm_assert_eq_u(uintmax_t a, uintmax_t b, const char *as, const char *bs,
                                  const char *file, int line)
{
	if (a != b) {
		print_error("%s == %s: %ju != %ju\n", as, bs, a, b);
		_fail(file, line);
	}
}

static inline void tm_assert_eq_f(long double a, long double b, const char *as, const char *bs,
                                  const char *file, int line)
{
	if (!(a == b)) {
		print_error("%s == %s: %.21Lg != %.21Lg\n", as, bs, a, b);
		_fail(file, line);
	}
}

/* clang-format off */
#define assert_eq(a, b)                                                   \
	_Generic((a) + (b),                                               \
	         float: tm_assert_eq_f,                                   \
	         double: tm_assert_eq_f,                                  \
	         long double: tm_assert_eq_f,                             \
	         unsigned int: tm_assert_eq_u,                            \
	         unsigned long: tm_assert_eq_u,                           \
	         unsigned long long: tm_assert_eq_u,                      \
	         default: tm_assert_eq_s)((a), (b), #a, #b, __FILE__, __LINE__)
/* clang-format on */

#endif
