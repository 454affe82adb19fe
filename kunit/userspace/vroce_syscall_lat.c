// SPDX-License-Identifier: GPL-2.0
/*
 * The floor under make bench's latency table (issue 31): what this kernel
 * charges for the two things a vroce round trip cannot avoid on the
 * emulated HCA, whose send doorbell is a system call: one system call
 * (getppid(), the cheapest, 100,000 times) and one hand-over of the CPU
 * between two processes (a pipe ping-pong, 10,000 round trips: each way
 * a write() that wakes a reader blocked in read(), as a lent post wakes
 * a poster waiting in its hand-off). Prints
 * "syscall <ns per call> pipe <us one way>", one way being half a round
 * trip as perftest's latency is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	const unsigned long calls = 100000, trips = 10000;
	int ping[2], pong[2];
	double t0, sys_ns, pipe_us;
	unsigned long i;
	char c = 0;
	pid_t pid;

	t0 = now();
	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	sys_ns = (now() - t0) / calls * 1e9;

	if (pipe(ping) || pipe(pong))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		for (i = 0; i < trips; i++)
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now();
	for (i = 0; i < trips; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pipe_us = (now() - t0) / trips / 2 * 1e6;
	waitpid(pid, NULL, 0);
	printf("syscall %.0f pipe %.1f\n", sys_ns, pipe_us);
	return 0;
}
