/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce core services: what the C core of the driver provides to the MR/MTR
 * implementation behind bindings/vroce_abi.h, whichever language that is.
 *
 * Every allocation an MR/MTR implementation makes goes through these
 * functions, so that the core can count allocations and frees per device
 * and inject allocation failures (see struct vroce_mem_stats).
 */
#ifndef _VROCE_CORE_H_
#define _VROCE_CORE_H_

#include <linux/types.h>

struct device;
struct ib_device;
struct ib_umem;
struct vroce_dev;

/**
 * vroce_core_dma_device() - the device DMA is mapped for
 * @dev: the vroce device
 *
 * Context: any context.
 * Return: the HCA's struct device; valid as long as @dev.
 */
struct device *vroce_core_dma_device(struct vroce_dev *dev);

/**
 * vroce_core_zalloc() - allocate zeroed kernel memory for @dev's objects
 * @dev: the vroce device that accounts for the memory
 * @size: bytes, at least 1; large sizes fall back to vmalloc
 *
 * Context: process context, may sleep.
 * Return: the memory, to be freed with vroce_core_free(), or NULL when it
 * cannot be allocated or an injected fault fails this allocation.
 */
void *vroce_core_zalloc(struct vroce_dev *dev, size_t size);

/**
 * vroce_core_free() - free memory from vroce_core_zalloc()
 * @dev: the vroce device the memory was allocated for
 * @ptr: the memory, or NULL (nothing is done)
 *
 * Context: process context, may sleep.
 */
void vroce_core_free(struct vroce_dev *dev, const void *ptr);

/**
 * vroce_core_dma_alloc() - allocate zeroed DMA-coherent memory for the HCA
 * @dev: the vroce device; memory is mapped for its DMA device
 * @size: bytes, at least 1
 * @dma: where the DMA address is returned
 *
 * Context: process context, may sleep.
 * Return: the kernel virtual address, to be freed with
 * vroce_core_dma_free(), or NULL when it cannot be allocated or an injected
 * fault fails this allocation.
 */
void *vroce_core_dma_alloc(struct vroce_dev *dev, size_t size, dma_addr_t *dma);

/**
 * vroce_core_dma_free() - free memory from vroce_core_dma_alloc()
 * @dev: the vroce device the memory was allocated for
 * @size: the size it was allocated with
 * @va: its kernel virtual address, or NULL (nothing is done)
 * @dma: its DMA address
 *
 * Context: process context, may sleep.
 */
void vroce_core_dma_free(struct vroce_dev *dev, size_t size, void *va,
			 dma_addr_t dma);

/**
 * vroce_core_umem_get() - pin a user buffer for the HCA
 * @dev: the vroce device
 * @addr: user virtual address of the buffer
 * @size: bytes
 * @access: IB_ACCESS_* flags
 *
 * Context: process context of the buffer's owner, may sleep.
 * Return: the pinned memory, to be released with vroce_core_umem_release(),
 * or ERR_PTR(-ENOMEM) for an injected fault, or any error of ib_umem_get()
 * unchanged.
 */
struct ib_umem *vroce_core_umem_get(struct vroce_dev *dev, unsigned long addr,
				    size_t size, int access);

/**
 * vroce_core_umem_release() - release memory from vroce_core_umem_get()
 * @dev: the vroce device the memory was pinned for
 * @umem: the pinned memory, or NULL (nothing is done)
 *
 * Context: process context, may sleep.
 */
void vroce_core_umem_release(struct vroce_dev *dev, struct ib_umem *umem);

/**
 * vroce_core_umem_page_size() - best page size to map pinned memory with
 * @umem: pinned memory from vroce_core_umem_get()
 * @min_shift: smallest page shift the HCA supports
 * @max_shift: largest page shift wanted
 * @iova: the address the HCA will use for the start of the memory
 *
 * Context: any context.
 * Return: the largest page size from 2^@min_shift to 2^@max_shift at which
 * every DMA block of @umem and @iova agree in alignment, or 0 if none.
 */
unsigned long vroce_core_umem_page_size(struct ib_umem *umem, u32 min_shift,
					u32 max_shift, u64 iova);

/**
 * vroce_core_umem_block_count() - number of pages of pinned memory
 * @umem: pinned memory from vroce_core_umem_get()
 * @pgsz: page size, from vroce_core_umem_page_size()
 *
 * Context: any context.
 * Return: how many @pgsz pages cover @umem.
 */
u64 vroce_core_umem_block_count(struct ib_umem *umem, unsigned long pgsz);

/**
 * vroce_core_umem_dma_blocks() - DMA addresses of pinned memory's pages
 * @umem: pinned memory from vroce_core_umem_get()
 * @pgsz: page size, from vroce_core_umem_page_size()
 * @pages: where the addresses are written, in buffer order
 * @max: room in @pages
 *
 * Context: process context.
 * Return: the number of addresses written, at most @max.
 */
u64 vroce_core_umem_dma_blocks(struct ib_umem *umem, unsigned long pgsz,
			       dma_addr_t *pages, u64 max);

/**
 * vroce_core_resched() - let other tasks run during a long loop
 *
 * Context: process context, may sleep.
 */
void vroce_core_resched(void);

/**
 * vroce_core_dma_wmb() - order writes to DMA-coherent memory for the device
 *
 * dma_wmb(): a table built before the entry that links it is written.
 *
 * Context: any context.
 */
void vroce_core_dma_wmb(void);

/**
 * vroce_core_warn_mr_leak() - report an MR or window object kept from
 *	being freed
 * @state: its VROCE_MR_STATE_*
 *
 * What vroce_mr_obj_destroy() and vroce_mw_obj_destroy() do for an object
 * the HCA may still hold: a kernel warning (WARN, once per boot for both
 * kinds, with a backtrace; it taints the kernel and honours
 * panic_on_warn), so that both implementations report the driver bug the
 * same way. KUnit may redirect it (a static stub) to count the reports.
 *
 * Context: any context.
 */
void vroce_core_warn_mr_leak(u32 state);

#endif /* _VROCE_CORE_H_ */
