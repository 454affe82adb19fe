// SPDX-License-Identifier: GPL-2.0
/*
 * vroce rings (c/driver/vroce_ring.h): creating and freeing the rings the
 * driver shares with the HCA, and describing an MTR to the HCA. The rings
 * of CQs and QPs whose DESTROY the HCA did not confirm are parked by
 * c/driver/vroce_zombie.c.
 */

#include <linux/overflow.h>
#include <linux/stddef.h>

#include "vroce.h"
#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"

static_assert(offsetof(struct vroce_cqe, owner) == VROCE_CQE_SIZE - 1);
static_assert(offsetof(struct vroce_eqe, owner) == VROCE_EQE_SIZE - 1);

/**
 * vroce_ring_create() - a ring for the HCA: a kernel-buffer MTR
 * @vdev: the device
 * @r: the ring to set up
 * @log2: entries = 2^@log2
 * @entry_size: bytes per entry, a power of two up to PAGE_SIZE
 * @hopnum: table levels in front of the pages; 0 lets the MTR choose the
 *	fewest that fit
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOMEM, or an error of vroce_mtr_create().
 */
int vroce_ring_create(struct vroce_dev *vdev, struct vroce_ring *r,
		      u32 log2, u32 entry_size, u32 hopnum)
{
	struct vroce_buf_attr attr = {
		.region = { { (u64)entry_size << log2, hopnum } },
		.region_count = 1,
		.page_shift = PAGE_SHIFT,
		.adaptive = !hopnum,
	};
	u32 i, npages = DIV_ROUND_UP((u64)entry_size << log2, PAGE_SIZE);
	int err;

	if (WARN_ON_ONCE(!is_power_of_2(entry_size) || entry_size > PAGE_SIZE))
		return -EINVAL;
	r->log2 = log2;
	r->entry_shift = ilog2(entry_size);
	r->page = vroce_core_zalloc(vdev, array_size(npages, sizeof(*r->page)));
	if (!r->page)
		return -ENOMEM;
	err = vroce_mtr_create(vdev, &r->mtr, &attr, PAGE_SHIFT, NULL, 0);
	if (err) {
		vroce_core_free(vdev, r->page);
		r->page = NULL;
		return err;
	}
	for (i = 0; i < npages; i++)
		r->page[i] = vroce_mtr_buf_kva(r->mtr, (u64)i << PAGE_SHIFT);
	return 0;
}

/**
 * vroce_ring_create_user() - a ring in the calling process's memory, for
 *	the HCA: a user-buffer MTR (issue 31, mapped rings)
 * @vdev: the device
 * @r: the ring to set up; it has no kernel address (@r->page NULL): the
 *	kernel never reads or writes its entries
 * @log2: entries = 2^@log2
 * @entry_size: bytes per entry, a power of two up to PAGE_SIZE
 * @udata: the uverbs command's data (the process whose memory it is)
 * @addr: the ring's address in the process, page aligned, writable for
 *	2^@log2 * @entry_size bytes, or the whole page when that is less
 *
 * Context: process context, may sleep.
 * Return: 0; an error of vroce_mtr_create() (-EFAULT for memory not
 * mapped writable, -EINVAL for a length that is not whole pages, -ENOMEM).
 */
int vroce_ring_create_user(struct vroce_dev *vdev, struct vroce_ring *r,
			   u32 log2, u32 entry_size, struct ib_udata *udata,
			   u64 addr)
{
	struct vroce_buf_attr attr = {
		/* A power of two: less than a page is the page. */
		.region = { { max_t(u64, (u64)entry_size << log2, PAGE_SIZE),
			      0 } },
		.region_count = 1,
		.page_shift = PAGE_SHIFT,
		/* The HCA writes CQEs, and marks SRQ WQEs it took. */
		.user_access = IB_ACCESS_LOCAL_WRITE,
		.adaptive = true,
		.iova = addr,
	};

	if (WARN_ON_ONCE(!is_power_of_2(entry_size) || entry_size > PAGE_SIZE))
		return -EINVAL;
	r->log2 = log2;
	r->entry_shift = ilog2(entry_size);
	r->page = NULL;
	return vroce_mtr_create(vdev, &r->mtr, &attr, PAGE_SHIFT, udata, addr);
}

/**
 * vroce_ring_destroy() - free a ring the HCA no longer uses
 * @vdev: the device
 * @r: the ring; nothing is done if it was never created
 *
 * Context: process context, may sleep.
 */
void vroce_ring_destroy(struct vroce_dev *vdev, struct vroce_ring *r)
{
	if (!r->mtr)
		return;
	vroce_mtr_destroy(vdev, r->mtr);
	vroce_core_free(vdev, r->page);
	r->mtr = NULL;
	r->page = NULL;
}

/**
 * vroce_ring_mtt() - an MTR as the HCA is told of it
 * @mtr: an MTR whose pages are region 0 (a ring, or an MR's table)
 * @mtt: filled with its root, page shifts, hop number and page count
 *
 * The one place that turns an MTR's layout into what the HCA's commands
 * and ring registers take.
 *
 * Context: any context.
 */
void vroce_ring_mtt(const struct vroce_mtr *mtr, struct vroce_hw_mtt *mtt)
{
	struct vroce_mtr_region rgn;

	vroce_mtr_region(mtr, 0, &rgn);
	mtt->root_ba = vroce_mtr_root_ba(mtr);
	mtt->ba_pg_shift = vroce_mtr_ba_page_shift(mtr);
	mtt->buf_pg_shift = vroce_mtr_buf_page_shift(mtr);
	mtt->hopnum = rgn.hopnum;
	mtt->page_count = vroce_mtr_page_count(mtr);
}
