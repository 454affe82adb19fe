// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's memcpy bandwidth, for make bench's throughput table
 * (issue 31: 64 KiB bandwidth of vroce0 against what the CPU copies):
 * copies of SIZE bytes (argument, default 65536) between two 64 MiB
 * buffers, cycling through them so that the copies miss the caches as
 * RDMA transfers of the benchmark do, for about a second. Prints
 * "memcpy <size> <MB/s>" (MB = 10^6 bytes, as perftest's MB/sec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AREA	(64UL << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
	unsigned long n = 0, slots;
	char *src, *dst;
	double t0, t;

	if (!size || size > AREA) {
		fprintf(stderr, "usage: %s [size, 1 to %lu]\n", argv[0], AREA);
		return 2;
	}
	src = malloc(AREA);
	dst = malloc(AREA);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, AREA);
	memset(dst, 0xa5, AREA);
	slots = AREA / size;
	t0 = now();
	do {
		memcpy(dst + (n % slots) * size, src + ((n * 7) % slots) * size,
		       size);
		n++;
	} while ((n & 255) || (t = now()) - t0 < 1.0);
	/* Keep the copies: the result depends on the destination. */
	if (dst[(n - 1) % slots * size] != 0x5a)
		return 1;
	printf("memcpy %zu %.0f\n", size, n * (double)size / (t - t0) / 1e6);
	free(src);
	free(dst);
	return 0;
}
