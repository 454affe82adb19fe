// SPDX-License-Identifier: GPL-2.0
/*
 * vroce host harness: the vroce_core_* services of bindings/vroce_core.h in
 * user space, for c/abi/vroce_mtr.c, and the memory the walker of
 * c/hca/vroce_hca_mtt.c may reach.
 *
 * DMA addresses are host addresses of page-aligned allocations; every page
 * handed out is recorded, so that the walker, like the emulated HCA,
 * reaches only memory that was given to the device. User buffers are made
 * up: a list of DMA segments the test chooses (vroce_host_set_umem()),
 * which the walker never dereferences.
 */

#include <stdio.h>
#include <stdlib.h>

#include "vroce_host_test.h"

/* Pages given to the device, for pfn_valid(): a chained hash set. */
#define PFN_BUCKETS	65536

struct pfn_node {
	unsigned long pfn;
	struct pfn_node *next;
};

static struct pfn_node *pfn_set[PFN_BUCKETS];

static unsigned int pfn_hash(unsigned long pfn)
{
	return (unsigned int)((pfn * 0x9e3779b97f4a7c15ULL) >> 48) % PFN_BUCKETS;
}

static void pfn_add(unsigned long pfn)
{
	struct pfn_node *n = malloc(sizeof(*n));

	if (!n)
		abort();
	n->pfn = pfn;
	n->next = pfn_set[pfn_hash(pfn)];
	pfn_set[pfn_hash(pfn)] = n;
}

static void pfn_del(unsigned long pfn)
{
	struct pfn_node **p = &pfn_set[pfn_hash(pfn)], *n;

	for (; *p; p = &(*p)->next) {
		if ((*p)->pfn == pfn) {
			n = *p;
			*p = n->next;
			free(n);
			return;
		}
	}
	abort();	/* freeing a page that was never given out */
}

bool vroce_host_pfn_valid(unsigned long pfn)
{
	struct pfn_node *n;

	for (n = pfn_set[pfn_hash(pfn)]; n; n = n->next)
		if (n->pfn == pfn)
			return true;
	return false;
}

void vroce_host_warn(const char *file, int line, const char *cond)
{
	fprintf(stderr, "WARN_ON(%s) at %s:%d\n", cond, file, line);
	abort();
}

static bool vroce_host_should_fail(struct vroce_dev *dev)
{
	return dev->fail_nth && !--dev->fail_nth;
}

void *vroce_core_zalloc(struct vroce_dev *dev, size_t size)
{
	void *p;

	if (vroce_host_should_fail(dev))
		return NULL;
	p = calloc(1, size);
	if (p)
		dev->allocs++;
	return p;
}

void vroce_core_free(struct vroce_dev *dev, const void *ptr)
{
	if (!ptr)
		return;
	free((void *)ptr);
	dev->frees++;
}

void *vroce_core_dma_alloc(struct vroce_dev *dev, size_t size, dma_addr_t *dma)
{
	size_t len = ALIGN(size, PAGE_SIZE), align = PAGE_SIZE, i;
	void *p;

	if (!size || vroce_host_should_fail(dev))
		return NULL;
	/* Like dma_alloc_coherent(): aligned to the allocation's page order. */
	while (align < len)
		align <<= 1;
	p = aligned_alloc(align, ALIGN(len, align));
	if (!p)
		return NULL;
	memset(p, 0, len);
	for (i = 0; i < len; i += PAGE_SIZE)
		pfn_add(PHYS_PFN((uintptr_t)p + i));
	*dma = (uintptr_t)p;
	dev->allocs++;
	dev->dma_bytes += size;
	return p;
}

void vroce_core_dma_free(struct vroce_dev *dev, size_t size, void *va,
			 dma_addr_t dma)
{
	size_t len = ALIGN(size, PAGE_SIZE), i;

	if (!va)
		return;
	if (dma != (uintptr_t)va)
		abort();
	for (i = 0; i < len; i += PAGE_SIZE)
		pfn_del(PHYS_PFN((uintptr_t)va + i));
	free(va);
	dev->frees++;
	dev->dma_bytes -= size;
}

struct device *vroce_core_dma_device(struct vroce_dev *dev)
{
	(void)dev;
	return NULL;
}

/* The host's stores are seen in order by the walker (one thread). */
void vroce_core_dma_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void vroce_core_resched(void)
{
}

/* ---- made-up user buffers ---- */

struct ib_umem {
	u64 addr;
	u64 length;
	u64 iova;
	u32 nseg;
	struct vroce_host_seg seg[VROCE_HOST_MAX_SEGS];
};

static struct ib_umem next_umem;
static bool next_umem_set;

void vroce_host_set_umem(u64 addr, const struct vroce_host_seg *seg, u32 nseg)
{
	u64 len = 0;
	u32 i;

	next_umem.addr = addr;
	next_umem.nseg = nseg;
	for (i = 0; i < nseg; i++) {
		next_umem.seg[i] = seg[i];
		len += seg[i].len;
	}
	next_umem.length = len;
	next_umem_set = nseg > 0;
}

struct ib_umem *vroce_core_umem_get(struct vroce_dev *dev, unsigned long addr,
				    size_t size, int access)
{
	struct ib_umem *u;

	(void)access;
	if (vroce_host_should_fail(dev))
		return ERR_PTR(-ENOMEM);
	if (!next_umem_set || addr != next_umem.addr ||
	    size != next_umem.length)
		return ERR_PTR(-EFAULT);
	u = malloc(sizeof(*u));
	if (!u)
		return ERR_PTR(-ENOMEM);
	*u = next_umem;
	dev->allocs++;
	return u;
}

void vroce_core_umem_release(struct vroce_dev *dev, struct ib_umem *umem)
{
	if (!umem)
		return;
	free(umem);
	dev->frees++;
}

/*
 * The largest page size from 2^min_shift to 2^max_shift at which the DMA
 * segments and @iova agree in alignment: where a segment starts, its DMA
 * address and the iova there must agree in the low bits, and every segment
 * but the last must end on a page boundary.
 */
unsigned long vroce_core_umem_page_size(struct ib_umem *umem, u32 min_shift,
					u32 max_shift, u64 iova)
{
	u64 allowed, diff, va = iova;
	u32 i;

	if (min_shift > max_shift || max_shift >= BITS_PER_LONG)
		return 0;
	allowed = GENMASK(max_shift, min_shift);
	/* No page needs to be larger than the span of iovas the buffer has. */
	diff = allowed & GENMASK(63, fls64((iova + umem->length - 1) ^ iova));
	for (i = 0; i < umem->nseg; i++) {
		diff |= umem->seg[i].dma ^ va;
		va += umem->seg[i].len;
		if (i + 1 < umem->nseg)
			diff |= va;
	}
	if (diff)
		allowed &= GENMASK(__ffs64(diff), 0);
	umem->iova = iova;
	return allowed ? 1UL << (fls64(allowed) - 1) : 0;
}

u64 vroce_core_umem_block_count(struct ib_umem *umem, unsigned long pgsz)
{
	return (ALIGN(umem->iova + umem->length, (u64)pgsz) -
		ALIGN_DOWN(umem->iova, (u64)pgsz)) / pgsz;
}

u64 vroce_core_umem_dma_blocks(struct ib_umem *umem, unsigned long pgsz,
			       dma_addr_t *pages, u64 max)
{
	u64 n = 0, a, end;
	u32 i;

	for (i = 0; i < umem->nseg; i++) {
		end = umem->seg[i].dma + umem->seg[i].len;
		for (a = ALIGN_DOWN(umem->seg[i].dma, (u64)pgsz); a < end;
		     a += pgsz) {
			if (n == max)
				return n;
			pages[n++] = a;
		}
	}
	return n;
}
