// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's min() and max() check their arguments' types as the kernel's
 * do (vroce_host.h). Built with -fsyntax-only by 'make minmax': as it is it
 * must compile; with -DVROCE_MINMAX_BAD=n (1 to 4) each must not.
 */
#include "vroce_host.h"

int vroce_minmax_check(int i, unsigned int u, long l, u64 q, u8 b, u16 h);

int vroce_minmax_check(int i, unsigned int u, long l, u64 q, u8 b, u16 h)
{
	int n = 0;

	/* Accepted: same signedness, whatever the width. */
	n += min(u, q) == 0;
	n += max(i, l) == 0;
	/* Accepted: an unsigned value and a non-negative signed constant. */
	n += min(q, 4096) == 0;
	/* Accepted: unsigned char and short are promoted to int. */
	n += min(b, i) == 0;
	n += max(h, u) == 0;
	/* Accepted: min_t() converts first. */
	n += min_t(u64, i, q) == 0;
	/* Each argument is evaluated once. */
	n += min(i++, l) == 0;
#if VROCE_MINMAX_BAD == 1
	n += min(i, u);		/* signed and unsigned */
#elif VROCE_MINMAX_BAD == 2
	n += max(l, q);		/* signed and unsigned, 64 bits */
#elif VROCE_MINMAX_BAD == 3
	n += min(q, -1);	/* unsigned and a negative constant */
#elif VROCE_MINMAX_BAD == 4
	n += max(u, (long)l);	/* unsigned and signed, wider */
#endif
	return n;
}
