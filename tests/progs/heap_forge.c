/*
 * heap_forge PATH PID PEAK_BYTES [KEEP_TAG [STATE]]: writes at PATH what a
 * hostile local user would plant in /dev/shm: a well-formed heap region
 * (include/tidemark-heap.h) claiming PID, with PEAK_BYTES live and peak,
 * and optionally a recorder's keep tag and a state (1: exited).  A test of
 * tidemark's refusal to believe it (tests/e2e/record_hostile.sh).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tidemark-heap.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: heap_forge PATH PID PEAK_BYTES [KEEP_TAG [STATE]]\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || ftruncate(fd, sizeof(struct tmh_region))) {
		perror(argv[1]);
		return 1;
	}
	struct tmh_region *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	int64_t peak = strtoll(argv[3], NULL, 10);
	r->version = TMH_VERSION;
	r->header_bytes = (uint32_t)offsetof(struct tmh_region, retired);
	r->total_bytes = sizeof(*r);
	r->pid = atoi(argv[2]);
	r->nslots = TMH_SLOTS;
	r->nclasses = TMH_CLASSES;
	r->max_depth = TMH_MAX_DEPTH;
	r->nstacks = TMH_STACKS;
	r->nlive = TMH_LIVE;
	r->maps_bytes = TMH_MAPS_BYTES;
	r->retired.alloc_bytes = peak;
	r->retired.hist[10] = 1;
	r->peak_bytes = peak;
	r->keep_tag = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
	r->state = argc > 5 ? (uint32_t)atoi(argv[5]) : TMH_RUNNING;
	r->exit_wall_usec = r->state == TMH_EXITED ? 1 : 0;
	r->magic = TMH_MAGIC;
	munmap(r, sizeof(*r));
	close(fd);
	return 0;
}
