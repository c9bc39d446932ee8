/*
 * A process tree's heap figures combined over its processes
 * (src/heap/heaptree.c): processes one after another, side by side, fork
 * children, and the bound of a tree whose processes overlapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "heap/heaptree.h"
#include "base/banned.h"

#define MIB (1024 * 1024LL)

/* Six processes one after another, each holding 20 MiB (the 49 MiB "exact"
 * peak and 49 MiB allocated of a shell loop in issue 19): the tree's peak is
 * 20 MiB, exact, and what was allocated adds up to 120 MiB, never falling. */
static void test_sequential(void **state)
{
	(void)state;
	struct tm_heap_tree t = {0};
	struct tm_heap_counts total, none = {0};
	int64_t up, proven, last_alloc = 0;
	for (int i = 0; i < 6; i++) {
		struct tm_heap_span sp = {1000 + i * 100, 1000 + i * 100 + 90, 20 * MIB};
		struct tm_heap_counts c = {20 * MIB, 20, 20};
		/* a sample while it lives: its own counts, its span to now */
		struct tm_heap_span alive = {sp.start_usec, sp.start_usec + 50, 20 * MIB};
		tm_heap_tree_figures(&t, &alive, 1, 20 * MIB, &c, &total, &up, &proven);
		assert_int_equal(up, 20 * MIB);
		assert_in_range(total.alloc_bytes, last_alloc, INT64_MAX);
		last_alloc = total.alloc_bytes;
		tm_heap_tree_leave(&t, &sp, &c);
		/* the sample that finds it gone: live 0, allocated kept */
		tm_heap_tree_figures(&t, NULL, 0, 0, &none, &total, &up, &proven);
		assert_in_range(total.alloc_bytes, last_alloc, INT64_MAX);
		last_alloc = total.alloc_bytes;
	}
	assert_int_equal(up, 20 * MIB);
	assert_int_equal(proven, 20 * MIB);
	assert_int_equal(total.alloc_bytes, 120 * MIB);
	assert_int_equal(total.allocs, 120);
	assert_int_equal(total.frees, 120);
	tm_heap_tree_release(&t);
}

/* Two processes side by side, 30 and 10 MiB peaks: the upper bound adds
 * them, the proven figure is what one sample or one process showed. */
static void test_overlap_bound(void **state)
{
	(void)state;
	struct tm_heap_tree t = {0};
	struct tm_heap_counts total, sum = {40 * MIB, 2, 0};
	struct tm_heap_span alive[2] = {{0, 500, 30 * MIB}, {100, 500, 10 * MIB}};
	int64_t up, proven;
	tm_heap_tree_figures(&t, alive, 2, 25 * MIB, &sum, &total, &up, &proven);
	assert_int_equal(up, 40 * MIB);
	assert_int_equal(proven, 30 * MIB);
	/* a third, after both: the bound does not add it to them */
	struct tm_heap_counts c = {0};
	tm_heap_tree_leave(&t, &alive[0], &c);
	tm_heap_tree_leave(&t, &alive[1], &c);
	struct tm_heap_span later = {600, 700, 35 * MIB};
	tm_heap_tree_figures(&t, &later, 1, 35 * MIB, &c, &total, &up, &proven);
	assert_int_equal(up, 40 * MIB);
	assert_int_equal(proven, 35 * MIB);
	tm_heap_tree_release(&t);
}

/* Spans touching at an instant overlap (a bound stays a bound); spans of
 * zero or reversed length count at their start. */
static void test_max_overlap(void **state)
{
	(void)state;
	struct tm_heap_span sp[] = {{0, 10, 5}, {10, 20, 7}, {20, 20, 1}, {30, 25, 3}};
	assert_int_equal(tm_heap_spans_max_overlap(sp, 4), 12);
	assert_int_equal(tm_heap_spans_max_overlap(sp, 0), 0);
}

/* Thousands of short processes in turn: memory stays bounded (the spans
 * fold) and the bound stays above the truth and below the sum. */
static void test_many_fold(void **state)
{
	(void)state;
	struct tm_heap_tree t = {0};
	struct tm_heap_counts total, c = {MIB, 1, 1}, none = {0};
	int64_t up, proven;
	for (int i = 0; i < 5000; i++) {
		struct tm_heap_span sp = {i * 10, i * 10 + 5, MIB + i % 7};
		tm_heap_tree_leave(&t, &sp, &c);
	}
	assert_in_range(t.nspans, 1, 1024);
	struct tm_heap_span alive = {60000, 60001, 2 * MIB};
	tm_heap_tree_figures(&t, &alive, 1, 2 * MIB, &none, &total, &up, &proven);
	assert_int_equal(total.alloc_bytes, 5000 * MIB);
	assert_int_equal(proven, 2 * MIB);
	assert_in_range(up, 2 * MIB, 3 * MIB + 6);
	tm_heap_tree_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequential),
	    cmocka_unit_test(test_overlap_bound),
	    cmocka_unit_test(test_max_overlap),
	    cmocka_unit_test(test_many_fold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
