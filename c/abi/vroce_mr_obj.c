// SPDX-License-Identifier: GPL-2.0
/*
 * vroce: the C implementation of the MR lifecycle of the MR/MTR ABI
 * (bindings/vroce_abi.h): rights, the MR object, its tables and
 * fast-register page list, and its states until the HCA lets go.
 *
 * It calls only the MTR functions of the ABI and the core services
 * (bindings/vroce_core.h), never the command layer or the verbs: the
 * verbs (c/driver/vroce_mr.c) issue the commands and report here.
 */

#include <kunit/visibility.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "../../bindings/vroce_abi.h"
#include "../../bindings/vroce_core.h"
#include "vroce_obj_life.h"

#define VROCE_IB_ACCESS_REMOTE	(VROCE_IB_ACCESS_REMOTE_READ |		\
				 VROCE_IB_ACCESS_REMOTE_WRITE |		\
				 VROCE_IB_ACCESS_REMOTE_ATOMIC)
#define VROCE_IB_ACCESS_KNOWN	(VROCE_IB_ACCESS_LOCAL_WRITE |		\
				 VROCE_IB_ACCESS_REMOTE |		\
				 VROCE_IB_ACCESS_MW_BIND |		\
				 VROCE_IB_ACCESS_OPTIONAL)

/*
 * struct vroce_mr_obj - an MR's lifecycle state
 * @type: VROCE_MR_TYPE_*
 * @life: its state, and the key and handle CREATE_MR returned
 * @rights: VROCE_MR_RIGHT_*
 * @iova: first address
 * @length: bytes
 * @mtr: the pages (USER), the empty table (FRMR) or the sparse one (ODP);
 *	NULL for DMA
 * @pbl: the fast-register page list (DMA-coherent, little-endian), FRMR
 * @pbl_dma: its DMA address
 * @npages: entries in @pbl
 * @max_pages: room in @pbl
 * @ustart: user address of the first page (ODP)
 *
 * The caller serialises calls on one object (bindings/vroce_abi.h,
 * "Concurrency").
 */
struct vroce_mr_obj {
	u32 type;
	struct vroce_obj_life life;
	u32 rights;
	u64 iova;
	u64 length;
	struct vroce_mtr *mtr;
	__le64 *pbl;
	dma_addr_t pbl_dma;
	u32 npages;
	u32 max_pages;
	u64 ustart;
};

static_assert(VROCE_IB_ACCESS_LOCAL_WRITE == IB_ACCESS_LOCAL_WRITE);
static_assert(VROCE_IB_ACCESS_REMOTE_WRITE == IB_ACCESS_REMOTE_WRITE);
static_assert(VROCE_IB_ACCESS_REMOTE_READ == IB_ACCESS_REMOTE_READ);
static_assert(VROCE_IB_ACCESS_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);
static_assert(VROCE_IB_ACCESS_MW_BIND == IB_ACCESS_MW_BIND);
static_assert(VROCE_IB_ACCESS_OPTIONAL == IB_ACCESS_OPTIONAL);
static_assert(VROCE_IB_ACCESS_ON_DEMAND == IB_ACCESS_ON_DEMAND);

int vroce_mr_rights(int access, u32 *rights)
{
	u32 r = 0;

	if (!rights)
		return -EINVAL;
	if (access & ~VROCE_IB_ACCESS_KNOWN)
		return -EOPNOTSUPP;
	/* Remote write or atomic without local write is not a valid MR. */
	if ((access & (VROCE_IB_ACCESS_REMOTE_WRITE |
		       VROCE_IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & VROCE_IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & VROCE_IB_ACCESS_LOCAL_WRITE)
		r |= VROCE_MR_RIGHT_LOCAL_WRITE;
	if (access & VROCE_IB_ACCESS_REMOTE_WRITE)
		r |= VROCE_MR_RIGHT_REMOTE_WRITE;
	if (access & VROCE_IB_ACCESS_REMOTE_READ)
		r |= VROCE_MR_RIGHT_REMOTE_READ;
	if (access & VROCE_IB_ACCESS_REMOTE_ATOMIC)
		r |= VROCE_MR_RIGHT_REMOTE_ATOMIC;
	if (access & VROCE_IB_ACCESS_MW_BIND)
		r |= VROCE_MR_RIGHT_MW_BIND;
	*rights = r;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_rights);

static struct vroce_mr_obj *vroce_mr_obj_alloc(struct vroce_dev *dev, u32 type)
{
	struct vroce_mr_obj *mr = vroce_core_zalloc(dev, sizeof(*mr));

	if (mr) {
		mr->type = type;
		mr->life.state = VROCE_MR_STATE_NEW;
	}
	return mr;
}

/* Free everything of @mr, whatever its state: the callers decide. */
static void vroce_mr_obj_free(struct vroce_dev *dev, struct vroce_mr_obj *mr)
{
	vroce_mtr_destroy(dev, mr->mtr);
	if (mr->pbl)
		vroce_core_dma_free(dev, array_size(mr->max_pages,
						    sizeof(*mr->pbl)),
				    mr->pbl, mr->pbl_dma);
	vroce_core_free(dev, mr);
}

int vroce_mr_obj_create_dma(struct vroce_dev *dev, int access,
			    bool allow_remote, struct vroce_mr_obj **mr)
{
	struct vroce_mr_obj *obj;
	u32 rights;
	int err;

	if (!dev || !mr)
		return -EINVAL;
	err = vroce_mr_rights(access, &rights);
	if (err)
		return err;
	if ((access & VROCE_IB_ACCESS_REMOTE) && !allow_remote)
		return -EOPNOTSUPP;
	/* The HCA binds no window to a DMA MR. */
	if (access & VROCE_IB_ACCESS_MW_BIND)
		return -EOPNOTSUPP;
	obj = vroce_mr_obj_alloc(dev, VROCE_MR_TYPE_DMA);
	if (!obj)
		return -ENOMEM;
	obj->rights = rights;
	obj->iova = 0;
	obj->length = U64_MAX;
	*mr = obj;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_create_dma);

/*
 * A user or ODP object whose MTR create returned @err: handed out with
 * its rights and range, or freed.
 */
static int vroce_mr_obj_user_made(struct vroce_dev *dev,
				  struct vroce_mr_obj *obj,
				  const struct vroce_mr_user_attr *attr,
				  u32 rights, struct vroce_mr_obj **mr, int err)
{
	if (err) {
		vroce_mr_obj_free(dev, obj);
		return err;
	}
	obj->rights = rights;
	obj->iova = attr->iova;
	obj->length = attr->length;
	*mr = obj;
	return 0;
}

int vroce_mr_obj_create_user(struct vroce_dev *dev,
			     const struct vroce_mr_user_attr *attr,
			     struct ib_udata *udata, struct vroce_mr_obj **mr)
{
	struct vroce_buf_attr battr = {
		.region_count = 1,
		.page_shift = VROCE_MTR_MAX_PAGE_SHIFT,
		.adaptive = true,
	};
	/* The MTR pins user memory when given user data; a kernel caller has none. */
	struct ib_udata kudata = {};
	struct vroce_mr_obj *obj;
	u32 rights;
	u64 end;
	int err;

	if (!dev || !attr || !mr)
		return -EINVAL;
	if (!attr->length || attr->length > attr->max_length ||
	    check_add_overflow(attr->iova, attr->length - 1, &end))
		return -EINVAL;
	err = vroce_mr_rights(attr->access, &rights);
	if (err)
		return err;

	obj = vroce_mr_obj_alloc(dev, VROCE_MR_TYPE_USER);
	if (!obj)
		return -ENOMEM;
	battr.region[0].size = attr->length;
	battr.user_access = attr->access;
	battr.iova = attr->iova;
	err = vroce_mtr_create(dev, &obj->mtr, &battr, PAGE_SHIFT,
			       udata ?: &kudata, attr->start);
	return vroce_mr_obj_user_made(dev, obj, attr, rights, mr, err);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_create_user);

int vroce_mr_obj_create_odp(struct vroce_dev *dev,
			    const struct vroce_mr_user_attr *attr,
			    struct vroce_mr_obj **mr)
{
	struct vroce_buf_attr battr = {
		.region_count = 1,
		.page_shift = PAGE_SHIFT,
		.mtt_only = true,
		.adaptive = true,
		.sparse = true,
	};
	struct vroce_mr_obj *obj;
	u64 end, uend;
	u32 rights;
	int err;

	if (!dev || !attr || !mr)
		return -EINVAL;
	if (!attr->length || attr->length > attr->max_length ||
	    check_add_overflow(attr->iova, attr->length - 1, &end) ||
	    check_add_overflow(attr->start, attr->length - 1, &end) ||
	    end > U64_MAX - PAGE_SIZE ||
	    offset_in_page(attr->start ^ attr->iova) ||
	    !(attr->access & VROCE_IB_ACCESS_ON_DEMAND))
		return -EINVAL;
	err = vroce_mr_rights(attr->access & ~VROCE_IB_ACCESS_ON_DEMAND,
			      &rights);
	if (err)
		return err;

	obj = vroce_mr_obj_alloc(dev, VROCE_MR_TYPE_ODP);
	if (!obj)
		return -ENOMEM;
	obj->ustart = round_down(attr->start, PAGE_SIZE);
	uend = round_up(end + 1, PAGE_SIZE);
	battr.region[0].size = uend - obj->ustart;
	err = vroce_mtr_create(dev, &obj->mtr, &battr, PAGE_SHIFT, NULL, 0);
	return vroce_mr_obj_user_made(dev, obj, attr, rights, mr, err);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_create_odp);

/* Pages [@first, @end) of @mr as a range. */
static void vroce_mr_odp_span(const struct vroce_mr_obj *mr, u64 first,
			      u64 end, struct vroce_mr_odp_range *range)
{
	range->first = first;
	range->count = end - first;
	range->user_addr = mr->ustart + (first << PAGE_SHIFT);
	range->user_len = range->count << PAGE_SHIFT;
}

int vroce_mr_obj_odp_fault(const struct vroce_mr_obj *mr, u64 iova, u64 len,
			   bool ahead, struct vroce_mr_odp_range *range)
{
	u64 win = ahead ? VROCE_MR_ODP_FAULT_PAGES : 1, off, first, end;

	if (mr->type != VROCE_MR_TYPE_ODP || !len || !range ||
	    iova < mr->iova || iova - mr->iova >= mr->length ||
	    len > mr->length - (iova - mr->iova))
		return -EINVAL;
	/* Byte offset from the start of the MR's first page. */
	off = offset_in_page(mr->iova) + (iova - mr->iova);
	first = round_down(off >> PAGE_SHIFT, win);
	end = round_up(((off + len - 1) >> PAGE_SHIFT) + 1, win);
	vroce_mr_odp_span(mr, first,
			  min(end, vroce_mtr_page_count(mr->mtr)), range);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_odp_fault);

int vroce_mr_obj_odp_map(struct vroce_dev *dev, struct vroce_mr_obj *mr,
			 const struct vroce_mr_odp_range *range,
			 const dma_addr_t *pages)
{
	if (mr->type != VROCE_MR_TYPE_ODP || !range || !pages || !range->count)
		return -EINVAL;
	return vroce_mtr_map_range(dev, mr->mtr, range->first, pages,
				   range->count);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_odp_map);

s64 vroce_mr_obj_odp_invalidate(struct vroce_dev *dev, struct vroce_mr_obj *mr,
				u64 start, u64 end,
				struct vroce_mr_odp_range *range)
{
	u64 pages, uend, first, last;

	if (mr->type != VROCE_MR_TYPE_ODP || end <= start || !range)
		return -EINVAL;
	pages = vroce_mtr_page_count(mr->mtr);
	uend = mr->ustart + (pages << PAGE_SHIFT);
	*range = (struct vroce_mr_odp_range) {};
	if (end <= mr->ustart || start >= uend)
		return 0;
	first = (max(start, mr->ustart) - mr->ustart) >> PAGE_SHIFT;
	last = (min(end, uend) - 1 - mr->ustart) >> PAGE_SHIFT;
	vroce_mr_odp_span(mr, first, last + 1, range);
	return vroce_mtr_unmap_range(dev, mr->mtr, first, range->count);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_odp_invalidate);

int vroce_mr_obj_create_frmr(struct vroce_dev *dev, u32 max_pages, u32 limit,
			     struct vroce_mr_obj **mr)
{
	/*
	 * Never direct (hop 0): the HCA learns the table's root BA now, and
	 * a direct MTR's root is its first page, known only once mapped.
	 */
	struct vroce_buf_attr battr = {
		.region = { { (u64)max_pages << VROCE_MR_FRMR_PAGE_SHIFT,
			      max_pages <= SZ_4K / VROCE_MTR_BA_BYTES ? 1 : 2 } },
		.region_count = 1,
		.page_shift = VROCE_MR_FRMR_PAGE_SHIFT,
		.mtt_only = true,
	};
	struct vroce_mr_obj *obj;
	int err;

	if (!dev || !mr || !max_pages || max_pages > limit)
		return -EINVAL;
	obj = vroce_mr_obj_alloc(dev, VROCE_MR_TYPE_FRMR);
	if (!obj)
		return -ENOMEM;
	obj->max_pages = max_pages;
	obj->pbl = vroce_core_dma_alloc(dev, array_size(max_pages,
							sizeof(*obj->pbl)),
					&obj->pbl_dma);
	if (!obj->pbl) {
		vroce_mr_obj_free(dev, obj);
		return -ENOMEM;
	}
	err = vroce_mtr_create(dev, &obj->mtr, &battr,
			       VROCE_MR_FRMR_PAGE_SHIFT, NULL, 0);
	if (err) {
		vroce_mr_obj_free(dev, obj);
		return err;
	}
	*mr = obj;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_create_frmr);

int vroce_mr_obj_describe(const struct vroce_mr_obj *mr, u32 pdn,
			  struct vroce_mr_desc *desc)
{
	if (!mr || !desc || mr->life.state != VROCE_MR_STATE_NEW)
		return -EINVAL;
	*desc = (struct vroce_mr_desc) {
		.pdn = pdn,
		.access = mr->rights,
		.kind = mr->type,
		.iova = mr->iova,
		.length = mr->length,
		.mtr = mr->mtr,
	};
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_describe);

int vroce_mr_obj_registered(struct vroce_mr_obj *mr, u32 key, u32 handle)
{
	return vroce_obj_entered(&mr->life, key, handle);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_registered);

bool vroce_mr_obj_create_failed(struct vroce_mr_obj *mr, int err)
{
	/* A DMA MR has no tables the HCA could walk: nothing to keep. */
	return vroce_obj_create_failed(&mr->life, err, !!mr->mtr);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_create_failed);

int vroce_mr_obj_parked(struct vroce_mr_obj *mr)
{
	return vroce_obj_parked(&mr->life);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_parked);

int vroce_mr_obj_released(struct vroce_mr_obj *mr, bool hca_reset)
{
	return vroce_obj_released(&mr->life, hca_reset);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_released);

void vroce_mr_obj_info(const struct vroce_mr_obj *mr,
		       struct vroce_mr_info *info)
{
	*info = (struct vroce_mr_info) {
		.type = mr->type,
		.state = mr->life.state,
		.key = mr->life.key,
		.handle = mr->life.handle,
		.iova = mr->iova,
		.length = mr->length,
		.mtr = mr->mtr,
		.pbl_dma = mr->pbl ? mr->pbl_dma : 0,
		.npages = mr->npages,
		.max_pages = mr->max_pages,
	};
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_info);

int vroce_mr_obj_pages_reset(struct vroce_mr_obj *mr)
{
	if (mr->type != VROCE_MR_TYPE_FRMR)
		return -EINVAL;
	mr->npages = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_pages_reset);

int vroce_mr_obj_page_add(struct vroce_mr_obj *mr, u64 dma)
{
	if (mr->type != VROCE_MR_TYPE_FRMR ||
	    (dma & (BIT_ULL(VROCE_MR_FRMR_PAGE_SHIFT) - 1)))
		return -EINVAL;
	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pbl[mr->npages++] = cpu_to_le64(dma);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_page_add);

int vroce_mr_obj_page(const struct vroce_mr_obj *mr, u32 index, u64 *dma)
{
	if (mr->type != VROCE_MR_TYPE_FRMR || index >= mr->npages || !dma)
		return -EINVAL;
	*dma = le64_to_cpu(mr->pbl[index]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_page);

void vroce_mr_obj_destroy(struct vroce_dev *dev, struct vroce_mr_obj *mr)
{
	if (!mr)
		return;
	if (!vroce_obj_may_free(&mr->life)) {
		vroce_core_warn_mr_leak(mr->life.state);
		return;
	}
	vroce_mr_obj_free(dev, mr);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_mr_obj_destroy);
