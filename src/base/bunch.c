#include "base/bunch.h"
#include "base/banned.h"

void tm_progress_arrivals(const int64_t *t_usec, size_t n, struct tm_arrivals *out)
{
	size_t first = 0;

	*out = (struct tm_arrivals){.points = n};
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || t_usec[i] - t_usec[first] > TM_BUNCH_WINDOW_USEC) {
			first = i;
			out->instants++;
		}
		if (i - first + 1 > out->largest)
			out->largest = i - first + 1;
	}
	if (n == 0)
		return;
	out->span_usec = t_usec[n - 1] - t_usec[0];
	/* the span cut into slots of the window, from the first arrival on */
	int64_t slots = out->span_usec / TM_BUNCH_WINDOW_USEC + 1, seen = 0, slot = -1;
	for (size_t i = 0; i < n; i++) {
		int64_t k = (t_usec[i] - t_usec[0]) / TM_BUNCH_WINDOW_USEC;
		seen += k != slot;
		slot = k;
	}
	out->continuous = out->instants >= 2 && 10 * seen >= 9 * slots;
	out->supported =
	    out->instants >= 2 && (out->largest <= TM_BUNCH_SMALL ||
	                           TM_BUNCH_SHARE * out->largest <= n || out->continuous);
}

bool tm_progress_bunched(const int64_t *t_usec, size_t n, size_t *largest)
{
	struct tm_arrivals a;

	tm_progress_arrivals(t_usec, n, &a);
	if (largest)
		*largest = a.largest;
	return n >= 2 && !a.supported;
}
