/*
 * Two threads each hold 200 KiB in 2000-byte blocks, under the 256 KiB a
 * thread keeps to itself before it publishes to the process total: the
 * shim's own peak then misses one of them.  Prints "held", waits for a line
 * on stdin, frees everything, prints "freed", waits for another line.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 100

static pthread_barrier_t held, go;

static void *hold(void *arg)
{
	(void)arg;
	void *b[BLOCKS];
	for (int i = 0; i < BLOCKS; i++)
		b[i] = malloc(2000);
	pthread_barrier_wait(&held);
	pthread_barrier_wait(&go);
	for (int i = 0; i < BLOCKS; i++)
		free(b[i]);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	char line[16];
	pthread_barrier_init(&held, NULL, 3);
	pthread_barrier_init(&go, NULL, 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hold, NULL);
	pthread_barrier_wait(&held);
	printf("held\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	pthread_barrier_wait(&go);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("freed\n");
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) ? 0 : 1;
}
