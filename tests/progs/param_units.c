/*
 * A workload whose live heap per unit is known exactly, for bench --param:
 * N blocks of K bytes each, held together (each block holds the address of
 * the one before it, so nothing else is allocated per unit), touched, held
 * for HOLD ms, then freed.  "units=N" is printed before the blocks are
 * allocated, so the only other live heap is a constant (stdio's buffer).
 *
 *   param_units --units N --bytes K [--hold-ms MS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "param_units: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 0, k = 1000, hold_ms = 300;
	void *head = NULL;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--units"))
			n = arg_long(argv[i + 1]);
		else if (!strcmp(argv[i], "--bytes"))
			k = arg_long(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold-ms"))
			hold_ms = arg_long(argv[i + 1]);
		else {
			fprintf(stderr, "param_units: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (k < (long)sizeof(void *)) {
		fprintf(stderr, "param_units: --bytes must be at least %zu\n", sizeof(void *));
		return 2;
	}
	printf("units=%ld\n", n);
	fflush(stdout);
	for (long i = 0; i < n; i++) {
		char *b = malloc((size_t)k);
		if (!b)
			abort();
		memset(b, 1, (size_t)k);
		memcpy(b, &head, sizeof(head));
		head = b;
	}
	struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
	while (head) {
		void *next;
		memcpy(&next, head, sizeof(next));
		free(head);
		head = next;
	}
	return 0;
}
