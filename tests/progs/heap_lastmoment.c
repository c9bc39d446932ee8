/*
 * Sleeps ARGV[1] ms, then allocates, touches and frees 100 MiB at once and
 * exits: what it did after the recorder's last sample is only in the
 * counters it leaves at exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	usleep(argc > 1 ? (useconds_t)atoi(argv[1]) * 1000 : 0);
	char *volatile p = malloc(100 << 20);
	if (!p)
		return 1;
	memset(p, 1, 100 << 20);
	free(p);
	return 0;
}
