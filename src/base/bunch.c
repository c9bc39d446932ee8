#include "base/bunch.h"
#include "base/banned.h"

bool tm_progress_bunched(const int64_t *t_usec, size_t n, size_t *largest)
{
	size_t best = n ? 1 : 0, lo = 0;

	/* two pointers: the window [lo, hi] spans at most the bunch window */
	for (size_t hi = 0; hi < n; hi++) {
		while (t_usec[hi] - t_usec[lo] > TM_BUNCH_WINDOW_USEC)
			lo++;
		if (hi - lo + 1 > best)
			best = hi - lo + 1;
	}
	if (largest)
		*largest = best;
	return n >= 2 && 2 * best > n;
}
