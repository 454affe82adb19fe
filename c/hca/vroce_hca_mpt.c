// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: memory protection and translation.
 *
 * The MPT (one entry per MR: state, key tag and generation, PD, rights,
 * range and tables) and the PD table; the CREATE_MR and DESTROY_MR
 * commands; the translation engine, which moves bytes through an MR after
 * checking key, PD, bounds and rights (vroce_hca_mr_access()); and fast
 * registration: REG_MR loads a page list into an MR's table, LOCAL_INV and
 * SEND_WITH_INV invalidate it. The command processor (hca->wire_lock held for
 * writing) and the data path engines (held for reading, several at once)
 * call in here (the *_locked() functions; an engine's take the lock of
 * the MPT entry they use, and for a memory window its MR's too); the
 * KUnit suites and debugfs (mr_read, reg_frmr) through the functions that
 * read-lock it.
 *
 * Calls: c/hca/vroce_hca_core.c (fault injection), c/hca/vroce_hca_mtt.c
 * (the table walker).
 */

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "vroce_hca_priv.h"

#define VROCE_HCA_MR_READ_MAX		SZ_1M
#define VROCE_HCA_LINE_MAX		128	/* a debugfs command line */

/* ---- the tables ---- */

/**
 * vroce_hca_mpt_alloc() - allocate the MPT and the PD table of a new HCA
 * @hca: the HCA
 *
 * Every MPT entry may be handed out (vroce_hca_set_max_mr() limits that).
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int vroce_hca_mpt_alloc(struct vroce_hca *hca)
{
	u32 i;

	for (i = 0; i < VROCE_HCA_MPT_LOCKS; i++)
		mutex_init(&hca->mpt_lock[i]);
	hca->mpt = vroce_hca_inject() ? NULL :
		   kvcalloc(VROCE_HCA_MAX_MR, sizeof(*hca->mpt), GFP_KERNEL);
	if (!hca->mpt)
		return -ENOMEM;
	hca->max_mr = VROCE_HCA_MAX_MR;
	hca->pd_map = vroce_hca_inject() ? NULL :
		      bitmap_zalloc(VROCE_HCA_MAX_PD, GFP_KERNEL);
	if (!hca->pd_map) {
		kvfree(hca->mpt);
		return -ENOMEM;
	}
	return 0;
}

/**
 * vroce_hca_mpt_free() - free what vroce_hca_mpt_alloc() allocated
 * @hca: the HCA
 */
void vroce_hca_mpt_free(struct vroce_hca *hca)
{
	u32 i;

	bitmap_free(hca->pd_map);
	kvfree(hca->mpt);
	for (i = 0; i < VROCE_HCA_MPT_LOCKS; i++)
		mutex_destroy(&hca->mpt_lock[i]);
}

/**
 * vroce_hca_mpt_reset() - forget every MR and PD
 * @hca: the HCA
 *
 * Context: @hca->wire_lock held.
 */
void vroce_hca_mpt_reset(struct vroce_hca *hca)
{
	u32 i;

	lockdep_assert_held(hca->wire_lock);
	memset(hca->mpt, 0, VROCE_HCA_MAX_MR * sizeof(*hca->mpt));
	/* Generations start anywhere: keys do not repeat across resets. */
	for (i = 0; i < VROCE_HCA_MAX_MR; i++) {
		hca->mpt[i].gen = get_random_u8();
		hca->mpt[i].kgen = hca->mpt[i].gen;
	}
	bitmap_zero(hca->pd_map, VROCE_HCA_MAX_PD);
	vroce_hca_odp_mr_gone(hca, U32_MAX);
}

/* ---- protection domains ---- */

/**
 * vroce_hca_pd_valid() - whether a protection domain exists
 * @hca: the HCA
 * @pdn: the PD number, as a command gives it
 *
 * Context: @hca->wire_lock held.
 * Return: true when @pdn was created and not destroyed.
 */
bool vroce_hca_pd_valid(struct vroce_hca *hca, u32 pdn)
{
	return pdn < VROCE_HCA_MAX_PD && test_bit(pdn, hca->pd_map);
}

/**
 * vroce_hca_pd_has_mr() - whether an MR still belongs to a protection domain
 * @hca: the HCA
 * @pdn: the PD
 *
 * Context: @hca->wire_lock held.
 * Return: true when some MPT entry in use belongs to @pdn.
 */
bool vroce_hca_pd_has_mr(struct vroce_hca *hca, u32 pdn)
{
	u32 i;

	for (i = 0; i < VROCE_HCA_MAX_MR; i++)
		if (hca->mpt[i].state != VROCE_HCA_MR_FREE &&
		    hca->mpt[i].pdn == pdn)
			return true;
	return false;
}

/* ---- the translation engine ---- */

/* Rights an MR may carry: known bits; remote write or atomic need local write. */
static bool vroce_hca_access_valid(u32 access)
{
	if (access & ~VROCE_ACC_MASK)
		return false;
	return !(access & (VROCE_ACC_REMOTE_WRITE | VROCE_ACC_REMOTE_ATOMIC)) ||
	       (access & VROCE_ACC_LOCAL_WRITE);
}

/*
 * The lock of the MPT entry @key names. The engines of several QPs use
 * the MPT at once: each takes the lock of the one entry it uses, checks
 * and uses it, and lets go; commands change entries with every engine out
 * (the wire's lock held for writing). NULL when @key names no entry.
 */
static struct mutex *vroce_hca_mpt_lock(struct vroce_hca *hca, u32 key)
{
	u32 index = FIELD_GET(VROCE_KEY_INDEX, key);

	if (index >= VROCE_HCA_MAX_MR)
		return NULL;
	return &hca->mpt_lock[index % VROCE_HCA_MPT_LOCKS];
}

/* The MR in slot @index created with generation @gen (a handle), or NULL. */
static struct vroce_hca_mpt *vroce_hca_mpt_get(struct vroce_hca *hca,
					       u32 index, u32 gen)
{
	if (index >= VROCE_HCA_MAX_MR ||
	    hca->mpt[index].state == VROCE_HCA_MR_FREE ||
	    hca->mpt[index].gen != gen)
		return NULL;
	return &hca->mpt[index];
}

/* The MR @key names, whatever its state, or NULL: tag not checked. */
static struct vroce_hca_mpt *vroce_hca_mpt_slot(struct vroce_hca *hca, u32 key)
{
	u32 index = FIELD_GET(VROCE_KEY_INDEX, key);

	if (index >= VROCE_HCA_MAX_MR ||
	    hca->mpt[index].state == VROCE_HCA_MR_FREE ||
	    hca->mpt[index].kgen != FIELD_GET(VROCE_KEY_GEN, key))
		return NULL;
	return &hca->mpt[index];
}

/* The MR @key is the full key of: index, generation and tag match. */
static struct vroce_hca_mpt *vroce_hca_mpt_of(struct vroce_hca *hca, u32 key)
{
	struct vroce_hca_mpt *mr = vroce_hca_mpt_slot(hca, key);

	if (!mr || mr->tag != FIELD_GET(VROCE_KEY_TAG, key))
		return NULL;
	return mr;
}

/* Copy @len bytes between @buf and bus address @dma, page by page. */
static int vroce_hca_copy(struct vroce_hca *hca, u64 dma, void *buf, u64 len,
			  bool write)
{
	while (len) {
		u64 chunk = min_t(u64, len, PAGE_SIZE - offset_in_page(dma));
		void *p = vroce_hca_dma_to_virt(vroce_hca_dev(hca), dma, chunk);

		if (!p)
			return -EFAULT;
		if (write)
			memcpy(p, buf, chunk);
		else
			memcpy(buf, p, chunk);
		buf += chunk;
		dma += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * A translation of @mr for QP @qpn failed with @err at @iova, @len bytes
 * to go: for an empty entry of an ODP MR, a page fault (issue 33); else
 * the tables lead nowhere.
 */
static int vroce_hca_mr_miss(struct vroce_hca *hca,
			     const struct vroce_hca_mpt *mr, u32 qpn, int err,
			     u64 iova, u64 len, bool write)
{
	if (err == -ENOENT && mr->kind == VROCE_MR_KIND_ODP)
		return vroce_hca_odp_fault(hca, mr, qpn, iova, len, write);
	return -EFAULT;
}

static int vroce_hca_mr_copy(struct vroce_hca *hca,
			     const struct vroce_hca_mpt *mr, u32 qpn, u64 iova,
			     void *buf, u64 len, bool write)
{
	const struct vroce_hca_mtt *mtt = &mr->mtt;
	u64 pgmask = BIT_ULL(mtt->buf_pg_shift) - 1;
	u64 off, chunk, addr;
	int err;

	if (mr->kind == VROCE_MR_KIND_DMA)
		return vroce_hca_copy(hca, iova, buf, len, write);

	/* Byte offset from the start of the MR's first page. */
	off = (mr->iova & pgmask) + (iova - mr->iova);
	while (len) {
		chunk = min(len, BIT_ULL(mtt->buf_pg_shift) - (off & pgmask));
		err = vroce_hca_mtt_translate(vroce_hca_dev(hca), mtt,
					      off >> mtt->buf_pg_shift, &addr,
					      NULL);
		if (err)
			return vroce_hca_mr_miss(hca, mr, qpn, err, iova,
						 len, write);
		err = vroce_hca_copy(hca, addr + (off & pgmask), buf, chunk,
				     write);
		if (err)
			return err;
		buf += chunk;
		off += chunk;
		iova += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * What an access holds of the MPT: the lock of the entry its key names
 * and, through a memory window, the lock of the bound MR's entry, taken
 * in address order (engines of several QPs run at once).
 */
struct vroce_hca_hold {
	struct mutex *lock[2];	/* held, in address order; NULL: none */
};

static void vroce_hca_hold2(struct vroce_hca_hold *h, struct mutex *a,
			    struct mutex *b)
{
	if (a == b || !b)
		b = NULL;
	else if (!a || b < a)
		swap(a, b);
	h->lock[0] = a;
	h->lock[1] = b;
	if (a)
		mutex_lock(a);
	if (b)
		mutex_lock_nested(b, SINGLE_DEPTH_NESTING);
}

static void vroce_hca_unhold(struct vroce_hca_hold *h)
{
	if (h->lock[1])
		mutex_unlock(h->lock[1]);
	if (h->lock[0])
		mutex_unlock(h->lock[0]);
	h->lock[0] = NULL;
	h->lock[1] = NULL;
}

/* [@iova, @iova + @len) lies inside what @e covers. */
static bool vroce_hca_in_range(const struct vroce_hca_mpt *e, u64 iova,
			       u64 len)
{
	u64 end;

	return iova >= e->iova && !check_add_overflow(iova, len, &end) &&
	       end - e->iova <= e->length;
}

/* An MR (not a window) of @pdn granting @access over the range, or why not. */
static int vroce_hca_mr_check(const struct vroce_hca_mpt *mr, u32 pdn,
			      bool unpriv, u64 iova, u64 len, u32 access)
{
	if ((pdn != VROCE_HCA_ANY_PD && pdn != mr->pdn) ||
	    (unpriv && mr->kind == VROCE_MR_KIND_DMA))
		return -VROCE_HCA_EPD;
	if (!vroce_hca_in_range(mr, iova, len))
		return -VROCE_HCA_EBOUNDS;
	if ((access & mr->access) != access)
		return -VROCE_HCA_EACCESS;
	return 0;
}

/*
 * A window used as an R_Key (IBTA 10.6.7): bound, of @pdn, for type 2
 * bound to @qpn, its range holding the access and its rights granting it.
 * An L_Key, or a local access, never names a window.
 */
static int vroce_hca_mw_check(const struct vroce_hca_mpt *mw, u32 pdn,
			      u32 qpn, u64 iova, u64 len, u32 access)
{
	if (mw->state != VROCE_HCA_MR_VALID || !(access & VROCE_ACC_MW_MASK) ||
	    (access & ~VROCE_ACC_MW_MASK))
		return -VROCE_HCA_EKEY;
	if ((pdn != VROCE_HCA_ANY_PD && pdn != mw->pdn) ||
	    (mw->mw_type == VROCE_MW_TYPE_2 && qpn != VROCE_HCA_ANY_QP &&
	     qpn != mw->mw_qpn))
		return -VROCE_HCA_EPD;
	if (!vroce_hca_in_range(mw, iova, len))
		return -VROCE_HCA_EBOUNDS;
	if ((access & mw->access) != access)
		return -VROCE_HCA_EACCESS;
	return 0;
}

/*
 * The MR a window's access goes through: still the MR the bind checked
 * (its full key), in the window's PD, the range inside it, and local
 * write for what writes (C10-74, checked again: a rereg may have taken
 * it away). The MR's own remote rights do not matter: the window's do.
 */
static int vroce_hca_mw_mr_check(struct vroce_hca *hca,
				 const struct vroce_hca_mpt *mw,
				 struct vroce_hca_mpt **mrp, u64 iova,
				 u64 len, u32 access)
{
	struct vroce_hca_mpt *mr = vroce_hca_mpt_of(hca, mw->mw_mr_key);

	if (!mr || mr->state != VROCE_HCA_MR_VALID ||
	    mr->kind == VROCE_MR_KIND_DMA || mr->kind == VROCE_HCA_KIND_MW)
		return -VROCE_HCA_EKEY;
	if (mr->pdn != mw->pdn)
		return -VROCE_HCA_EPD;
	if (!vroce_hca_in_range(mr, iova, len))
		return -VROCE_HCA_EBOUNDS;
	if ((access & (VROCE_ACC_REMOTE_WRITE | VROCE_ACC_REMOTE_ATOMIC)) &&
	    !(mr->access & VROCE_ACC_LOCAL_WRITE))
		return -VROCE_HCA_EACCESS;
	*mrp = mr;
	return 0;
}

/*
 * Look @key up for an access of @len bytes at @iova needing @access (with
 * VROCE_HCA_ACC_UNPRIV for a process's key), by a QP of @pdn numbered
 * @qpn, and hold what it uses: the MR to translate through, every check
 * passed, or NULL with *@err set and nothing held. A window's entry is
 * read under its lock, then both its lock and its MR's are taken in order
 * and the window read again: still bound to that MR, it grants the access
 * if it did.
 */
static struct vroce_hca_mpt *vroce_hca_hold_mr(struct vroce_hca *hca, u32 key,
					       u32 pdn, u32 qpn, u64 iova,
					       u64 len, u32 access,
					       struct vroce_hca_hold *h,
					       int *err)
{
	struct mutex *lock = vroce_hca_mpt_lock(hca, key);
	bool unpriv = access & VROCE_HCA_ACC_UNPRIV;
	struct vroce_hca_mpt *e, *mr = NULL;
	u32 mr_key, tries;

	lockdep_assert_held(hca->wire_lock);
	h->lock[0] = NULL;
	h->lock[1] = NULL;
	*err = -VROCE_HCA_EKEY;
	if (!lock)
		return NULL;
	access &= ~VROCE_HCA_ACC_UNPRIV;
	vroce_hca_hold2(h, lock, NULL);
	e = vroce_hca_mpt_of(hca, key);
	if (!e || e->state == VROCE_HCA_MR_FREE)
		goto fail;
	if (e->kind != VROCE_HCA_KIND_MW) {
		if (e->state != VROCE_HCA_MR_VALID)
			goto fail;
		*err = vroce_hca_mr_check(e, pdn, unpriv, iova, len, access);
		if (*err)
			goto fail;
		return e;
	}

	/*
	 * A window: both locks, then the window again. A bind on another
	 * engine between the two looks may have moved it to another MR:
	 * look again (a bound number of times; a window rebound faster
	 * than that fails the access, as an access racing an unbind may).
	 */
	for (tries = 0; tries < 4; tries++) {
		*err = vroce_hca_mw_check(e, pdn, qpn, iova, len, access);
		if (*err)
			goto fail;
		mr_key = e->mw_mr_key;
		vroce_hca_unhold(h);
		vroce_hca_hold2(h, lock, vroce_hca_mpt_lock(hca, mr_key));
		*err = -VROCE_HCA_EKEY;
		if (vroce_hca_mpt_of(hca, key) != e ||
		    e->kind != VROCE_HCA_KIND_MW)
			goto fail;
		if (e->mw_mr_key != mr_key)
			continue;
		*err = vroce_hca_mw_check(e, pdn, qpn, iova, len, access);
		if (!*err)
			*err = vroce_hca_mw_mr_check(hca, e, &mr, iova, len,
						     access);
		if (!*err)
			return mr;
		goto fail;
	}
fail:
	vroce_hca_unhold(h);
	return NULL;
}

/**
 * vroce_hca_mr_check_locked() - whether an access would pass the key checks
 * @hca: the HCA
 * @key: as for vroce_hca_mr_access_locked()
 * @pdn: ...
 * @qpn: ...
 * @iova: ...
 * @len: ...
 * @access: ...
 *
 * The key, PD, QP, range and rights of the whole access, before any of it
 * is made (issue 34: a READ's responses leave only for a range that is
 * the MR's). Page faults are found when the memory is reached.
 *
 * Context: as for vroce_hca_mr_access_locked().
 * Return: 0, or as vroce_hca_mr_access().
 */
int vroce_hca_mr_check_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			      u32 qpn, u64 iova, u64 len, u32 access)
{
	struct vroce_hca_hold h;
	int err;

	if (!vroce_hca_hold_mr(hca, key, pdn, qpn, iova, len, access, &h,
			       &err))
		return err;
	vroce_hca_unhold(&h);
	return 0;
}

/**
 * vroce_hca_mr_access_locked() - vroce_hca_mr_access() for the HCA itself
 * @hca: the HCA
 * @key: the MR's lkey or rkey, or a memory window's rkey
 * @pdn: the protection domain asking, or VROCE_HCA_ANY_PD
 * @qpn: the QP asking (a type 2 window's must match), or VROCE_HCA_ANY_QP
 * @iova: where in the MR
 * @buf: kernel buffer to copy from (write) or to (read)
 * @len: bytes
 * @access: VROCE_ACC_* rights the operation needs; a local read needs none;
 *	with VROCE_HCA_ACC_UNPRIV (a key from a process's WQE) a DMA MR
 *	refuses as another PD's does. Only a remote access (a VROCE_ACC_REMOTE_*
 *	right) goes through a window.
 * @write: store into the MR rather than load from it
 *
 * Context: @hca->wire_lock held (the data path engine: for reading); takes the
 * entry's lock, and for a window its MR's too.
 * Return: as vroce_hca_mr_access().
 */
int vroce_hca_mr_access_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			       u32 qpn, u64 iova, void *buf, u64 len,
			       u32 access, bool write)
{
	struct vroce_hca_hold h;
	struct vroce_hca_mpt *mr;
	int err;

	mr = vroce_hca_hold_mr(hca, key, pdn, qpn, iova, len, access, &h, &err);
	if (!mr)
		return err;
	err = vroce_hca_mr_copy(hca, mr, qpn, iova, buf, len, write);
	vroce_hca_unhold(&h);
	return err;
}

/**
 * vroce_hca_mr_access() - the translation engine: move bytes through an MR
 * @hca: the HCA
 * @key: the MR's lkey or rkey
 * @pdn: the protection domain asking, or VROCE_HCA_ANY_PD
 * @iova: where in the MR
 * @buf: kernel buffer to copy from (write) or to (read)
 * @len: bytes
 * @access: VROCE_ACC_* rights the operation needs; a local read needs none
 * @write: store into the MR rather than load from it
 *
 * Context: process context, may sleep.
 * Return: 0, or -VROCE_HCA_EKEY, -VROCE_HCA_EPD, -VROCE_HCA_EBOUNDS,
 * -VROCE_HCA_EACCESS, or -EFAULT when the MR's tables lead nowhere.
 */
int vroce_hca_mr_access(struct vroce_hca *hca, u32 key, u32 pdn, u64 iova,
			void *buf, u64 len, u32 access, bool write)
{
	int err;

	down_read(hca->wire_lock);
	err = vroce_hca_mr_access_locked(hca, key, pdn, VROCE_HCA_ANY_QP, iova,
					 buf, len, access, write);
	up_read(hca->wire_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_mr_access);

/* The bus address of byte @iova of @mr, which is inside it. */
static int vroce_hca_mr_dma(struct vroce_hca *hca,
			    const struct vroce_hca_mpt *mr, u32 qpn, u64 iova,
			    u64 *dma)
{
	const struct vroce_hca_mtt *mtt = &mr->mtt;
	u64 pgmask = BIT_ULL(mtt->buf_pg_shift) - 1;
	u64 off, addr;
	int err;

	if (mr->kind == VROCE_MR_KIND_DMA) {
		*dma = iova;
		return 0;
	}
	off = (mr->iova & pgmask) + (iova - mr->iova);
	err = vroce_hca_mtt_translate(vroce_hca_dev(hca), mtt,
				      off >> mtt->buf_pg_shift, &addr, NULL);
	if (err)	/* an atomic's 8 bytes: stored */
		return vroce_hca_mr_miss(hca, mr, qpn, err, iova, 8, true);
	*dma = addr + (off & pgmask);
	return 0;
}

/*
 * One atomic on the 8 bytes at @p: a CPU atomic instruction on the
 * kernel's mapping of the target, so that it is atomic against every
 * other atomic of any HCA on the wire, and against the CPU's (the device
 * reports IB_ATOMIC_GLOB).
 */
static u64 vroce_hca_atomic_op(u64 *p, u8 opcode, u64 cmp_add, u64 swap)
{
	atomic64_t *v = (atomic64_t *)p;

	switch (opcode) {
	case VROCE_WQE_ATOMIC_CMP_SWP:
		return atomic64_cmpxchg(v, cmp_add, swap);
	case VROCE_WQE_ATOMIC_FETCH_ADD:
		return atomic64_fetch_add(cmp_add, v);
	default:	/* VROCE_WQE_ATOMIC_WRITE */
		return atomic64_xchg(v, swap);
	}
}

/**
 * vroce_hca_mr_atomic_locked() - an atomic on 8 bytes of an MR
 * @hca: the HCA whose MR it is
 * @key: the MR's or a memory window's rkey
 * @pdn: the protection domain asking
 * @qpn: the QP asking (a type 2 window's must match)
 * @iova: the target, 8-byte aligned
 * @access: the right the MR must grant: VROCE_ACC_REMOTE_ATOMIC, or
 *	VROCE_ACC_REMOTE_WRITE for ATOMIC_WRITE; with VROCE_HCA_ACC_UNPRIV
 *	a DMA MR refuses (-VROCE_HCA_EPD)
 * @opcode: VROCE_WQE_ATOMIC_CMP_SWP, _FETCH_ADD or _WRITE
 * @cmp_add: the compare operand or the addend
 * @swap: the value swapped in, or stored by ATOMIC_WRITE
 * @orig: the target's value before, on success
 *
 * The key is checked as vroce_hca_mr_access_locked() checks it; the
 * operation itself is one 64-bit atomic instruction on the target.
 *
 * Context: @hca->wire_lock held for reading (the data path engine); takes
 * the entry's lock, and for a window its MR's too.
 * Return: 0, or as vroce_hca_mr_access(); -EFAULT also for a misaligned
 * @iova.
 */
int vroce_hca_mr_atomic_locked(struct vroce_hca *hca, u32 key, u32 pdn,
			       u32 qpn, u64 iova, u32 access, u8 opcode,
			       u64 cmp_add, u64 swap, u64 *orig)
{
	struct vroce_hca_hold h;
	struct vroce_hca_mpt *mr;
	u64 dma;
	u64 *p;
	int err;

	if (!IS_ALIGNED(iova, sizeof(u64)))
		return -EFAULT;
	mr = vroce_hca_hold_mr(hca, key, pdn, qpn, iova, sizeof(u64), access,
			       &h, &err);
	if (!mr)
		return err;
	/* Aligned, the 8 bytes never cross a page of any size. */
	/* A page fault (issue 33) keeps its error. */
	err = vroce_hca_mr_dma(hca, mr, qpn, iova, &dma);
	if (!err) {
		p = vroce_hca_dma_to_virt(vroce_hca_dev(hca), dma, sizeof(u64));
		if (p && IS_ALIGNED((unsigned long)p, sizeof(u64)))
			*orig = vroce_hca_atomic_op(p, opcode, cmp_add, swap);
		else
			err = -EFAULT;
	}
	vroce_hca_unhold(&h);
	return err;
}

/**
 * vroce_hca_frmr_register() - what the HCA does for a REG_MR work request
 * @hca: the HCA
 * @key: the key to register under: the MR's MPT index and generation, and
 *	the tag the consumer chose (ib_update_fast_reg_key())
 * @pdn: the protection domain of the queue pair posting it
 * @iova: first address of the MR
 * @length: bytes
 * @access: VROCE_ACC_* rights
 * @pbl: DMA address of the page list (struct vroce_wqe_reg)
 * @npages: pages in the list
 *
 * The fast-register MR must exist, be free (not registered) and belong to
 * @pdn; the list must fit its table and the range the listed pages. The
 * pages are copied into the MR's table now, so the MR's translation
 * changes only here. The data path engine does the same
 * (vroce_hca_frmr_register_locked()) when it executes the work request.
 *
 * Context: process context, may sleep.
 * Return: 0, or -VROCE_HCA_EKEY (no such fast-register MR, or already
 * registered), -VROCE_HCA_EPD, -VROCE_HCA_EBOUNDS (more pages than the
 * table holds, or a range beyond the listed pages), -VROCE_HCA_EACCESS
 * (unknown rights, or remote write or atomic without local write), or
 * -EFAULT when the list or the table cannot be reached, or a page
 * address is not aligned.
 */
int vroce_hca_frmr_register(struct vroce_hca *hca, u32 key, u32 pdn, u64 iova,
			    u64 length, u32 access, u64 pbl, u32 npages)
{
	int err;

	down_read(hca->wire_lock);
	err = vroce_hca_frmr_register_locked(hca, key, pdn, iova, length,
					     access, pbl, npages);
	up_read(hca->wire_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_frmr_register);

/*
 * Copy the page list into @mr's table, in one pass: @mr is not registered
 * (nothing translates through it), and a later REG_MR rewrites every entry
 * its range can reach, so a list that fails part way leaves nothing
 * reachable behind. The list is read a host page at a time and written a
 * bottom table at a time, as a burst.
 */
static int vroce_hca_frmr_load(struct vroce_hca *hca, struct vroce_hca_mpt *mr,
			       u64 pbl, u32 npages)
{
	const __le64 *src;
	u32 i, n;
	int got;

	if (!IS_ALIGNED(pbl, sizeof(*src)))
		return -EFAULT;
	for (i = 0; i < npages; i += got) {
		u64 at = pbl + (u64)i * sizeof(*src);

		n = min_t(u64, npages - i,
			  (PAGE_SIZE - offset_in_page(at)) / sizeof(*src));
		src = vroce_hca_dma_to_virt(vroce_hca_dev(hca), at,
					    n * sizeof(*src));
		if (!src)
			return -EFAULT;
		got = vroce_hca_mtt_store_run(vroce_hca_dev(hca), &mr->mtt, i,
					      src, n);
		if (got <= 0)
			return -EFAULT;
	}
	return 0;
}

/**
 * vroce_hca_frmr_register_locked() - vroce_hca_frmr_register() for the HCA
 *	itself
 * @hca: the HCA
 * @key: the key to register under
 * @pdn: the protection domain of the queue pair posting it
 * @iova: first address of the MR
 * @length: bytes
 * @access: VROCE_ACC_* rights
 * @pbl: DMA address of the page list
 * @npages: pages in the list
 *
 * Context: @hca->wire_lock held (the data path engine: for reading); takes the
 * entry's lock.
 * Return: as vroce_hca_frmr_register().
 */
int vroce_hca_frmr_register_locked(struct vroce_hca *hca, u32 key, u32 pdn,
				   u64 iova, u64 length, u32 access, u64 pbl,
				   u32 npages)
{
	struct mutex *lock = vroce_hca_mpt_lock(hca, key);
	struct vroce_hca_mpt *mr;
	u64 span;
	int err = 0;

	lockdep_assert_held(hca->wire_lock);
	if (!lock)
		return -VROCE_HCA_EKEY;
	mutex_lock(lock);
	/* The consumer picks the tag; index and generation must match. */
	mr = vroce_hca_mpt_slot(hca, key);
	if (!mr || mr->kind != VROCE_MR_KIND_FRMR ||
	    mr->state != VROCE_HCA_MR_FRMR_INVALID)
		err = -VROCE_HCA_EKEY;
	else if (mr->pdn != pdn)
		err = -VROCE_HCA_EPD;
	else if (!vroce_hca_access_valid(access))
		err = -VROCE_HCA_EACCESS;
	else if (!npages || npages > mr->mtt.region[0].count ||
		 check_add_overflow(iova & (BIT_ULL(VROCE_FRMR_PAGE_SHIFT) - 1),
				    length, &span) ||
		 span > (u64)npages << VROCE_FRMR_PAGE_SHIFT)
		err = -VROCE_HCA_EBOUNDS;
	else
		err = vroce_hca_frmr_load(hca, mr, pbl, npages);
	if (!err) {
		mr->tag = FIELD_GET(VROCE_KEY_TAG, key);
		mr->iova = iova;
		mr->length = length;
		mr->access = access;
		mr->state = VROCE_HCA_MR_VALID;
	}
	mutex_unlock(lock);
	return err;
}

/* A window's range bound to nothing: no rights, no bytes, no MR. */
static void vroce_hca_mw_clear(struct vroce_hca_mpt *mw)
{
	mw->access = 0;
	mw->iova = 0;
	mw->length = 0;
	mw->mw_mr_key = 0;
}

/* A type 2 window bound to nothing; its key names it still. */
static void vroce_hca_mw_unbind(struct vroce_hca_mpt *mw)
{
	mw->state = VROCE_HCA_MW_UNBOUND;
	vroce_hca_mw_clear(mw);
	mw->mw_qpn = 0;
}

/*
 * Invalidate the entry @key names for a QP of @pdn numbered @qpn (remote:
 * the QP that received a SEND_INV; VROCE_HCA_ANY_QP for a LOCAL_INV): a
 * registered fast-register MR, which only a privileged QP may invalidate,
 * or a bound type 2 window (IBTA o10-37.2.26: a type 1 window is
 * invalidated by a zero-length bind instead), which for a SEND_INV must
 * be bound to the receiving QP.
 */
static int vroce_hca_invalidate(struct vroce_hca *hca, u32 key, u32 pdn,
				u32 qpn, bool unpriv)
{
	struct mutex *lock = vroce_hca_mpt_lock(hca, key);
	struct vroce_hca_mpt *e;
	int err = 0;

	lockdep_assert_held(hca->wire_lock);
	if (!lock)
		return -VROCE_HCA_EKEY;
	mutex_lock(lock);
	e = vroce_hca_mpt_of(hca, key);
	if (e && e->kind == VROCE_HCA_KIND_MW) {
		if (e->mw_type != VROCE_MW_TYPE_2 ||
		    e->state != VROCE_HCA_MR_VALID)
			err = -VROCE_HCA_EKEY;
		else if ((pdn != VROCE_HCA_ANY_PD && pdn != e->pdn) ||
			 (qpn != VROCE_HCA_ANY_QP && qpn != e->mw_qpn))
			err = -VROCE_HCA_EPD;
		else
			vroce_hca_mw_unbind(e);
	} else if (!e || e->kind != VROCE_MR_KIND_FRMR ||
		   e->state != VROCE_HCA_MR_VALID) {
		err = -VROCE_HCA_EKEY;
	} else if (unpriv ||
		   (pdn != VROCE_HCA_ANY_PD && pdn != e->pdn)) {
		err = -VROCE_HCA_EPD;
	} else {
		e->state = VROCE_HCA_MR_FRMR_INVALID;
	}
	mutex_unlock(lock);
	return err;
}

/**
 * vroce_hca_frmr_invalidate() - what the HCA does for a LOCAL_INV, any PD
 * @hca: the HCA
 * @key: the registered fast-register MR's key, or a bound type 2 window's
 *
 * The data path checks the PD too (vroce_hca_key_invalidate_locked()).
 *
 * Context: process context, may sleep.
 * Return: 0, or -VROCE_HCA_EKEY when @key is neither.
 */
int vroce_hca_frmr_invalidate(struct vroce_hca *hca, u32 key)
{
	int err;

	down_read(hca->wire_lock);
	err = vroce_hca_invalidate(hca, key, VROCE_HCA_ANY_PD, VROCE_HCA_ANY_QP,
				   false);
	up_read(hca->wire_lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_frmr_invalidate);

/**
 * vroce_hca_key_invalidate_locked() - LOCAL_INV or SEND_WITH_INV at the
 *	HCA: invalidate a fast-register MR or unbind a type 2 memory window
 * @hca: the HCA
 * @key: the MR's or the window's key
 * @qp: the QP invalidating: the poster of a LOCAL_INV, the receiver of a
 *	SEND_WITH_INV
 * @remote: a SEND_WITH_INV: a window must be bound to @qp (type 2B)
 *
 * The entry must belong to @qp's PD. A process's QP (unprivileged, or with
 * a doorbell record) may invalidate its windows by LOCAL_INV, never a
 * fast-register MR: those are the kernel's (and the MR cache's).
 *
 * Context: @hca->wire_lock held (the data path engine: for reading); takes the
 * entry's lock.
 * Return: 0, -VROCE_HCA_EKEY when @key is not a registered fast-register
 * MR or a bound type 2 window, or -VROCE_HCA_EPD when it belongs to another
 * PD or QP, or @qp may not invalidate it.
 */
int vroce_hca_key_invalidate_locked(struct vroce_hca *hca, u32 key,
				    const struct vroce_hca_qp *qp, bool remote)
{
	return vroce_hca_invalidate(hca, key, qp->pdn,
				    remote ? qp->qpn : VROCE_HCA_ANY_QP,
				    !remote && (qp->unpriv || qp->dbrec));
}

/* ---- memory windows ---- */

/*
 * Unbind every window bound to the MR @mr_key (a full key), or with @qpn
 * not 0 every type 2 window bound to that QP: a type 2 window goes free, a
 * type 1 window stays valid with zero length. Commands run with no engine
 * in, so no entry lock is needed.
 */
static void vroce_hca_mw_unbind_all(struct vroce_hca *hca, u32 mr_key, u32 qpn)
{
	struct vroce_hca_mpt *e;
	u32 i;

	lockdep_assert_held_write(hca->wire_lock);
	for (i = 0; i < VROCE_HCA_MAX_MR; i++) {
		e = &hca->mpt[i];
		if (e->kind != VROCE_HCA_KIND_MW ||
		    e->state != VROCE_HCA_MR_VALID ||
		    (qpn ? e->mw_type != VROCE_MW_TYPE_2 || e->mw_qpn != qpn :
			   !e->length || e->mw_mr_key != mr_key))
			continue;
		if (e->mw_type == VROCE_MW_TYPE_2)
			vroce_hca_mw_unbind(e);
		else
			vroce_hca_mw_clear(e);
	}
}

/**
 * vroce_hca_mw_qp_gone() - DESTROY_QP: unbind the type 2 windows bound to
 *	a QP (IBTA: they go with it)
 * @hca: the HCA
 * @qpn: the QP
 *
 * A later QP under the same number does not inherit them.
 *
 * Context: the command processor, @hca->wire_lock held for writing.
 */
void vroce_hca_mw_qp_gone(struct vroce_hca *hca, u32 qpn)
{
	vroce_hca_mw_unbind_all(hca, 0, qpn);
}

/* The BIND_MW rules for @mw, @mr (NULL: none named) and @qp: 0 or why not. */
static int vroce_hca_mw_bind_check(const struct vroce_hca_mpt *mw,
				   const struct vroce_hca_mpt *mr,
				   const struct vroce_hca_qp *qp, u64 iova,
				   u64 len, u32 access)
{
	if (mw->pdn != qp->pdn)				/* C10-72 */
		return -VROCE_HCA_EPD;
	if (access & ~VROCE_ACC_MASK)
		return -VROCE_HCA_EACCESS;
	if (mw->mw_type == VROCE_MW_TYPE_2 &&
	    (mw->state != VROCE_HCA_MW_UNBOUND || !len))	/* o10-37.2.30, .40 */
		return -VROCE_HCA_EKEY;
	if (mw->mw_type == VROCE_MW_TYPE_1 && !len)	/* unbind: no MR */
		return 0;
	if (!mr || mr->state != VROCE_HCA_MR_VALID ||
	    mr->kind == VROCE_MR_KIND_DMA || mr->kind == VROCE_HCA_KIND_MW)
		return -VROCE_HCA_EKEY;
	if (mr->pdn != mw->pdn)
		return -VROCE_HCA_EPD;
	if (!(mr->access & VROCE_ACC_MW_BIND) ||	/* C10-73 */
	    ((access & (VROCE_ACC_REMOTE_WRITE | VROCE_ACC_REMOTE_ATOMIC)) &&
	     !(mr->access & VROCE_ACC_LOCAL_WRITE)))	/* C10-74 */
		return -VROCE_HCA_EACCESS;
	if (!vroce_hca_in_range(mr, iova, len))		/* C10-75 */
		return -VROCE_HCA_EBOUNDS;
	return 0;
}

/**
 * vroce_hca_mw_bind_locked() - a BIND_MW work request at the HCA
 * @hca: the HCA
 * @qp: the QP posting it (RC or UC)
 * @wqe: the HCA's copy of the WQE
 *
 * Binds the window @wqe->fr_key names (index and generation; the tag is
 * the consumer's new one) to the range and rights the WQE gives, over the
 * MR @wqe->bind.mr_key names (its full key); a type 2 window to @qp as
 * well. A zero-length bind of a type 1 window unbinds it. Both entries are
 * locked, in order, while the rules are checked and the window changes.
 *
 * Context: @hca->wire_lock held for reading (the data path engine).
 * Return: VROCE_CQE_OK, or VROCE_CQE_MW_BIND_ERR when a rule refuses it
 * (the window is then unchanged).
 */
u8 vroce_hca_mw_bind_locked(struct vroce_hca *hca,
			    const struct vroce_hca_qp *qp,
			    const struct vroce_send_wqe *wqe)
{
	u32 key = le32_to_cpu(wqe->fr_key), mr_key = le32_to_cpu(wqe->bind.mr_key);
	u32 access = le32_to_cpu(wqe->fr_access);
	u64 iova = le64_to_cpu(wqe->fr_iova), len = le64_to_cpu(wqe->fr_length);
	struct mutex *lock = vroce_hca_mpt_lock(hca, key);
	struct vroce_hca_mpt *mw, *mr;
	struct vroce_hca_hold h;
	int err;

	lockdep_assert_held(hca->wire_lock);
	if (!lock)
		return VROCE_CQE_MW_BIND_ERR;
	vroce_hca_hold2(&h, lock, vroce_hca_mpt_lock(hca, mr_key));
	/* The consumer picks the tag; index and generation must match. */
	mw = vroce_hca_mpt_slot(hca, key);
	mr = vroce_hca_mpt_of(hca, mr_key);
	if (!mw || mw->kind != VROCE_HCA_KIND_MW)
		err = -VROCE_HCA_EKEY;
	else
		err = vroce_hca_mw_bind_check(mw, mr, qp, iova, len, access);
	if (!err) {
		mw->tag = FIELD_GET(VROCE_KEY_TAG, key);
		if (!len) {
			vroce_hca_mw_clear(mw);
		} else {
			mw->access = access & VROCE_ACC_MW_MASK;
			mw->iova = iova;
			mw->length = len;
			mw->mw_mr_key = mr_key;
		}
		if (mw->mw_type == VROCE_MW_TYPE_2)
			mw->mw_qpn = qp->qpn;
		mw->state = VROCE_HCA_MR_VALID;
	}
	vroce_hca_unhold(&h);
	return err ? VROCE_CQE_MW_BIND_ERR : VROCE_CQE_OK;
}

/* ---- MR commands ---- */

/* The full key of entry @e: its key generation, index and tag. */
static u32 vroce_hca_mpt_key(const struct vroce_hca *hca,
			     const struct vroce_hca_mpt *e)
{
	return FIELD_PREP(VROCE_KEY_GEN, e->kgen) |
	       FIELD_PREP(VROCE_KEY_INDEX, e - hca->mpt) |
	       FIELD_PREP(VROCE_KEY_TAG, e->tag);
}

/* Free an entry; the slot keeps its generation, so its keys stay dead. */
static void vroce_hca_mpt_clear(struct vroce_hca_mpt *e)
{
	u8 gen = e->kgen;

	memset(e, 0, sizeof(*e));
	e->gen = gen;
	e->kgen = gen;
}

/* The MR a handle names, or NULL. */
static struct vroce_hca_mpt *vroce_hca_mpt_of_handle(struct vroce_hca *hca,
						     u32 handle)
{
	if (handle & ~(VROCE_MR_HANDLE_INDEX | VROCE_MR_HANDLE_GEN))
		return NULL;
	return vroce_hca_mpt_get(hca, FIELD_GET(VROCE_MR_HANDLE_INDEX, handle),
				 FIELD_GET(VROCE_MR_HANDLE_GEN, handle));
}

/* Check an MR's table description and turn it into a translation. */
static bool vroce_hca_mr_mtt(const struct vroce_cmd_create_mr *cmd,
			     struct vroce_hca_mtt *mtt, u64 length, u64 iova)
{
	u32 cfg = le32_to_cpu(cmd->cfg);
	u64 pages = le64_to_cpu(cmd->page_count), span;

	mtt->root_ba = le64_to_cpu(cmd->root_ba);
	mtt->ba_pg_shift = FIELD_GET(VROCE_MTT_BA_PG_SHIFT, cfg);
	mtt->buf_pg_shift = FIELD_GET(VROCE_MTT_BUF_PG_SHIFT, cfg);
	mtt->region_count = 1;
	mtt->region[0].offset = 0;
	mtt->region[0].count = pages;
	mtt->region[0].hopnum = FIELD_GET(VROCE_MTT_HOPNUM, cfg);

	if (!pages || mtt->buf_pg_shift < 12 || mtt->buf_pg_shift > 30 ||
	    mtt->ba_pg_shift < 12 || mtt->ba_pg_shift > 21)
		return false;
	/* The MR, from the offset of its iova in the first page, must fit. */
	if (pages > U64_MAX >> mtt->buf_pg_shift ||
	    check_add_overflow(iova & (BIT_ULL(mtt->buf_pg_shift) - 1), length,
			       &span))
		return false;
	return span <= pages << mtt->buf_pg_shift;
}

/*
 * A free MPT slot, chosen at random: a key tells nothing of the next one.
 * Returns hca->max_mr when the MPT is full.
 */
static u32 vroce_hca_mpt_pick(struct vroce_hca *hca)
{
	u32 start = get_random_u32_below(hca->max_mr), i, index;

	for (i = 0; i < hca->max_mr; i++) {
		index = start + i;
		if (index >= hca->max_mr)
			index -= hca->max_mr;
		if (hca->mpt[index].state == VROCE_HCA_MR_FREE)
			return index;
	}
	return hca->max_mr;
}

/**
 * vroce_hca_create_mr() - CREATE_MR: an MPT entry, and the MR's key
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the key and the handle go
 *
 * A DMA MR spans all of memory; an MTT MR translates through the tables
 * @cmd describes; a fast-register MR gets a table that REG_MR work
 * requests fill, and translates nothing until then. The slot is picked at
 * random and its generation moves on.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD), BAD_PARAM (rights, kind, length or
 * tables) or NO_RESOURCE (the MPT is full).
 */
u16 vroce_hca_create_mr(struct vroce_hca *hca,
			const struct vroce_cmd_create_mr *cmd,
			struct vroce_resp_create_mr *resp)
{
	u32 pdn = le32_to_cpu(cmd->pdn), kind = le32_to_cpu(cmd->kind);
	u64 length = le64_to_cpu(cmd->length), iova = le64_to_cpu(cmd->iova);
	struct vroce_hca_mpt entry = {}, *slot;
	u64 end;
	u32 index;

	if (!vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	entry.access = le32_to_cpu(cmd->access);
	if (!vroce_hca_access_valid(entry.access))
		return VROCE_CMD_BAD_PARAM;

	switch (kind) {
	case VROCE_MR_KIND_DMA:
		if (iova || length != U64_MAX)
			return VROCE_CMD_BAD_PARAM;
		break;
	case VROCE_MR_KIND_MTT:
	case VROCE_MR_KIND_ODP:
		if (!length || length > VROCE_HCA_MAX_MR_SIZE ||
		    check_add_overflow(iova, length - 1, &end) ||
		    !vroce_hca_mr_mtt(cmd, &entry.mtt, length, iova))
			return VROCE_CMD_BAD_PARAM;
		/* ODP: tables whose empty entries fault, never direct. */
		if (kind == VROCE_MR_KIND_ODP &&
		    (!(hca->caps & VROCE_CAP_ODP) ||
		     !entry.mtt.region[0].hopnum))
			return VROCE_CMD_BAD_PARAM;
		break;
	case VROCE_MR_KIND_FRMR:
		if (le64_to_cpu(cmd->page_count) > VROCE_HCA_MAX_FRMR_PAGES ||
		    !vroce_hca_mr_mtt(cmd, &entry.mtt, 0, 0) ||
		    entry.mtt.buf_pg_shift != VROCE_FRMR_PAGE_SHIFT ||
		    !entry.mtt.region[0].hopnum)
			return VROCE_CMD_BAD_PARAM;
		break;
	default:
		return VROCE_CMD_BAD_PARAM;
	}

	index = vroce_hca_mpt_pick(hca);
	if (index == hca->max_mr)
		return VROCE_CMD_NO_RESOURCE;
	slot = &hca->mpt[index];

	entry.state = kind == VROCE_MR_KIND_FRMR ? VROCE_HCA_MR_FRMR_INVALID :
						  VROCE_HCA_MR_VALID;
	/*
	 * The generation moves on at every use of the slot, so none of the
	 * slot's last 255 keys works again, whatever tag a consumer picks.
	 */
	entry.gen = slot->kgen + 1;
	entry.kgen = entry.gen;
	entry.tag = get_random_u8();
	entry.pdn = pdn;
	entry.kind = kind;
	entry.iova = iova;
	entry.length = length;
	*slot = entry;
	resp->key = cpu_to_le32(vroce_hca_mpt_key(hca, slot));
	resp->handle = cpu_to_le32(FIELD_PREP(VROCE_MR_HANDLE_GEN, entry.gen) |
				   FIELD_PREP(VROCE_MR_HANDLE_INDEX, index));
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_destroy_mr() - DESTROY_MR: free an MPT entry
 * @hca: the HCA
 * @cmd: the request, naming the MR by the handle CREATE_MR returned
 *
 * The slot keeps its generation, so none of its keys works again.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK or BAD_HANDLE.
 */
u16 vroce_hca_destroy_mr(struct vroce_hca *hca,
			 const struct vroce_cmd_destroy_mr *cmd)
{
	u32 handle = le32_to_cpu(cmd->handle);
	struct vroce_hca_mpt *mr;

	mr = vroce_hca_mpt_of_handle(hca, handle);
	if (!mr || mr->kind == VROCE_HCA_KIND_MW)
		return VROCE_CMD_BAD_HANDLE;
	if (mr->kind == VROCE_MR_KIND_ODP)
		vroce_hca_odp_mr_gone(hca, handle);
	vroce_hca_mpt_clear(mr);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_alloc_mw() - ALLOC_MW: an MPT entry for a memory window
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the key and the handle go
 *
 * The slot is picked and its generation moves on as for CREATE_MR. A
 * type 1 window is valid and bound to nothing (zero length: its key
 * reaches no byte); a type 2 one is unbound until a BIND_MW binds it.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (PD), BAD_PARAM (type) or NO_RESOURCE
 * (the MPT is full).
 */
u16 vroce_hca_alloc_mw(struct vroce_hca *hca,
		       const struct vroce_cmd_alloc_mw *cmd,
		       struct vroce_resp_alloc_mw *resp)
{
	u32 pdn = le32_to_cpu(cmd->pdn), type = le32_to_cpu(cmd->type);
	struct vroce_hca_mpt *slot;
	u32 index;
	u8 gen;

	if (!vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (type != VROCE_MW_TYPE_1 && type != VROCE_MW_TYPE_2)
		return VROCE_CMD_BAD_PARAM;
	index = vroce_hca_mpt_pick(hca);
	if (index == hca->max_mr)
		return VROCE_CMD_NO_RESOURCE;
	slot = &hca->mpt[index];
	gen = slot->kgen + 1;
	memset(slot, 0, sizeof(*slot));
	slot->gen = gen;
	slot->kgen = gen;
	slot->tag = get_random_u8();
	slot->pdn = pdn;
	slot->kind = VROCE_HCA_KIND_MW;
	slot->mw_type = type;
	slot->state = type == VROCE_MW_TYPE_1 ? VROCE_HCA_MR_VALID :
						VROCE_HCA_MW_UNBOUND;
	resp->key = cpu_to_le32(vroce_hca_mpt_key(hca, slot));
	resp->handle = cpu_to_le32(FIELD_PREP(VROCE_MR_HANDLE_GEN, gen) |
				   FIELD_PREP(VROCE_MR_HANDLE_INDEX, index));
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_dealloc_mw() - DEALLOC_MW: free a window's MPT entry
 * @hca: the HCA
 * @cmd: the request, naming the window by the handle ALLOC_MW returned
 *
 * Bound or not, the window is gone when this returns (the data path runs
 * with no command in); the slot keeps its generation, so none of its keys
 * works again.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK or BAD_HANDLE (no such window).
 */
u16 vroce_hca_dealloc_mw(struct vroce_hca *hca,
			 const struct vroce_cmd_dealloc_mw *cmd)
{
	struct vroce_hca_mpt *mw = vroce_hca_mpt_of_handle(hca,
						le32_to_cpu(cmd->handle));

	if (!mw || mw->kind != VROCE_HCA_KIND_MW)
		return VROCE_CMD_BAD_HANDLE;
	vroce_hca_mpt_clear(mw);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_enable_mr() - ENABLE_MR: an idle fast-register entry becomes a
 *	user MR under a new key
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the key goes
 *
 * The page list is copied into the entry's table, as for REG_MR; the key
 * generation moves on and the tag changes, so no key the entry had before
 * works again.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (MR or PD), or BAD_PARAM (an entry that
 * is not an idle fast-register MR, rights, a range beyond the listed pages
 * or more pages than the table holds, or a list the HCA cannot read).
 */
u16 vroce_hca_enable_mr(struct vroce_hca *hca,
			const struct vroce_cmd_enable_mr *cmd,
			struct vroce_resp_enable_mr *resp)
{
	struct vroce_hca_mpt *mr = vroce_hca_mpt_of_handle(hca,
						le32_to_cpu(cmd->handle));
	u32 pdn = le32_to_cpu(cmd->pdn), access = le32_to_cpu(cmd->access);
	u32 npages = le32_to_cpu(cmd->npages);
	u64 iova = le64_to_cpu(cmd->iova), length = le64_to_cpu(cmd->length);
	u64 span, end;
	u8 tag;

	if (!mr)
		return VROCE_CMD_BAD_HANDLE;
	if (!vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (mr->kind != VROCE_MR_KIND_FRMR ||
	    mr->state != VROCE_HCA_MR_FRMR_INVALID ||
	    !vroce_hca_access_valid(access) || !length ||
	    length > VROCE_HCA_MAX_MR_SIZE ||
	    check_add_overflow(iova, length - 1, &end) ||
	    !npages || npages > mr->mtt.region[0].count ||
	    check_add_overflow(iova & (BIT_ULL(VROCE_FRMR_PAGE_SHIFT) - 1),
			       length, &span) ||
	    span > (u64)npages << VROCE_FRMR_PAGE_SHIFT ||
	    vroce_hca_frmr_load(hca, mr, le64_to_cpu(cmd->pbl), npages))
		return VROCE_CMD_BAD_PARAM;

	mr->kgen++;
	do {
		tag = get_random_u8();
	} while (tag == mr->tag);
	mr->tag = tag;
	mr->enabled = true;
	mr->kind = VROCE_MR_KIND_MTT;
	mr->pdn = pdn;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->state = VROCE_HCA_MR_VALID;
	resp->key = cpu_to_le32(vroce_hca_mpt_key(hca, mr));
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_revoke_mr() - REVOKE_MR: an MR ENABLE_MR made stops
 *	translating and waits, idle, under the driver's PD
 * @hca: the HCA
 * @cmd: the request
 *
 * Commands and the data path run under @hca->wire_lock: once this returns, no
 * work request reaches the MR's pages.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (MR or PD) or BAD_PARAM (not an MR
 * that ENABLE_MR made).
 */
u16 vroce_hca_revoke_mr(struct vroce_hca *hca,
			const struct vroce_cmd_revoke_mr *cmd)
{
	struct vroce_hca_mpt *mr = vroce_hca_mpt_of_handle(hca,
						le32_to_cpu(cmd->handle));
	u32 pdn = le32_to_cpu(cmd->pdn);

	if (!mr || !vroce_hca_pd_valid(hca, pdn))
		return VROCE_CMD_BAD_HANDLE;
	if (!mr->enabled)
		return VROCE_CMD_BAD_PARAM;
	mr->enabled = false;
	mr->kind = VROCE_MR_KIND_FRMR;
	mr->state = VROCE_HCA_MR_FRMR_INVALID;
	mr->pdn = pdn;
	mr->access = 0;
	mr->iova = 0;
	mr->length = 0;
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_rereg_mr() - REREG_MR: change an MTT MR's PD, rights and/or
 *	translation in place
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the key goes (unchanged)
 *
 * Everything asked for is checked before anything changes, so a refused
 * command leaves the entry as it was. The key (index, generation, tag)
 * stays: hns' rereg modifies its MPT entry under the same key too. The
 * data path runs with no command in (@hca->wire_lock held for writing
 * here), so a work request sees the entry before or after, never between.
 *
 * Context: the command processor, @hca->wire_lock held.
 * Return: VROCE_CMD_OK, BAD_HANDLE (MR or new PD) or BAD_PARAM (no or
 * unknown flags, an entry that is not a registered MTT MR, a translation
 * change of an MR of ENABLE_MR, rights, or a range or table CREATE_MR
 * would refuse).
 */
u16 vroce_hca_rereg_mr(struct vroce_hca *hca,
		       const struct vroce_cmd_rereg_mr *cmd,
		       struct vroce_resp_rereg_mr *resp)
{
	struct vroce_hca_mpt *mr = vroce_hca_mpt_of_handle(hca,
						le32_to_cpu(cmd->handle));
	u32 flags = le32_to_cpu(cmd->flags);
	struct vroce_cmd_create_mr trans = {
		.cfg = cmd->cfg,
		.root_ba = cmd->root_ba,
		.page_count = cmd->page_count,
	};
	struct vroce_hca_mpt entry;
	u32 key;
	u64 end;

	if (!mr)
		return VROCE_CMD_BAD_HANDLE;
	/* An MR of ENABLE_MR keeps its table: the page list loads it. */
	if (!flags || (flags & ~VROCE_REREG_MASK) ||
	    mr->kind != VROCE_MR_KIND_MTT || mr->state != VROCE_HCA_MR_VALID ||
	    (mr->enabled && (flags & VROCE_REREG_TRANS)))
		return VROCE_CMD_BAD_PARAM;
	entry = *mr;
	if (flags & VROCE_REREG_PD) {
		entry.pdn = le32_to_cpu(cmd->pdn);
		if (!vroce_hca_pd_valid(hca, entry.pdn))
			return VROCE_CMD_BAD_HANDLE;
	}
	if (flags & VROCE_REREG_ACCESS) {
		entry.access = le32_to_cpu(cmd->access);
		if (!vroce_hca_access_valid(entry.access))
			return VROCE_CMD_BAD_PARAM;
	}
	if (flags & VROCE_REREG_TRANS) {
		entry.iova = le64_to_cpu(cmd->iova);
		entry.length = le64_to_cpu(cmd->length);
		if (!entry.length || entry.length > VROCE_HCA_MAX_MR_SIZE ||
		    check_add_overflow(entry.iova, entry.length - 1, &end) ||
		    !vroce_hca_mr_mtt(&trans, &entry.mtt, entry.length,
				      entry.iova))
			return VROCE_CMD_BAD_PARAM;
	}
	/*
	 * The windows bound to it were bound to its old PD, pages and rights
	 * (issue 30): unbound, not carried over, whatever changes (a rereg
	 * is a deregistration and a registration; a PD change and back must
	 * not bring them back either).
	 */
	key = vroce_hca_mpt_key(hca, mr);	/* a rereg keeps it */
	vroce_hca_mw_unbind_all(hca, key, 0);
	*mr = entry;
	resp->key = cpu_to_le32(key);
	return VROCE_CMD_OK;
}

/**
 * vroce_hca_set_max_mr() - size the MPT, as firmware would configure it
 * @hca: the HCA
 * @max_mr: entries, 1 to VROCE_HCA_MAX_MR (clamped); only entries below
 *	it are handed out from now on, and QUERY_DEVICE reports it
 *
 * For tests that need the MPT full or a slot reused.
 *
 * Context: process context.
 */
void vroce_hca_set_max_mr(struct vroce_hca *hca, u32 max_mr)
{
	down_write(hca->wire_lock);
	hca->max_mr = clamp_t(u32, max_mr, 1, VROCE_HCA_MAX_MR);
	up_write(hca->wire_lock);
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_max_mr);

/**
 * vroce_hca_set_free_mr() - size the MPT so that @free more MRs fit
 * @hca: the HCA
 * @free: entries new MRs may take; 0 is taken as 1
 *
 * As vroce_hca_set_max_mr(), cut where @free entries below the cut are
 * free: entries taken before, wherever they lie, do not count. For tests
 * that fill the MPT with MRs of their own.
 *
 * Context: process context.
 * Return: the free entries below the cut: @free (1 for 0), or fewer when
 * the whole MPT has fewer.
 */
u32 vroce_hca_set_free_mr(struct vroce_hca *hca, u32 free)
{
	u32 i, n = 0;

	free = max(free, 1U);
	down_write(hca->wire_lock);
	for (i = 0; i < VROCE_HCA_MAX_MR && n < free; i++)
		n += hca->mpt[i].state == VROCE_HCA_MR_FREE;
	hca->max_mr = i;
	up_write(hca->wire_lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vroce_hca_set_free_mr);

/* ---- debugfs ---- */

/*
 * One open mr_read file: the bytes the last request read. Writes and reads
 * on one file may run at the same time (threads sharing it, pwrite and
 * pread): @lock keeps @buf alive while it is read and replaced.
 */
struct vroce_hca_mr_read {
	struct vroce_hca *hca;
	struct mutex lock;	/* protects buf, len */
	void *buf;
	size_t len;
};

static int vroce_hca_mr_read_open(struct inode *inode, struct file *file)
{
	struct vroce_hca_mr_read *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	r->hca = inode->i_private;
	file->private_data = r;
	return 0;
}

static int vroce_hca_mr_read_release(struct inode *inode, struct file *file)
{
	struct vroce_hca_mr_read *r = file->private_data;

	kvfree(r->buf);
	mutex_destroy(&r->lock);
	kfree(r);
	return 0;
}

static ssize_t vroce_hca_mr_read_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	struct vroce_hca_mr_read *r = file->private_data;
	u64 iova, len;
	char *line;
	void *buf;
	int err, n;
	u32 key;

	if (count > VROCE_HCA_LINE_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	n = sscanf(line, "%x %llx %llu", &key, &iova, &len);
	kfree(line);
	if (n != 3 || !len || len > VROCE_HCA_MR_READ_MAX)
		return -EINVAL;

	buf = kvzalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = vroce_hca_mr_access(r->hca, key, VROCE_HCA_ANY_PD, iova, buf, len,
				  0, false);
	if (err) {
		kvfree(buf);
		return err;
	}
	mutex_lock(&r->lock);
	swap(r->buf, buf);
	r->len = len;
	mutex_unlock(&r->lock);
	kvfree(buf);
	return count;
}

static ssize_t vroce_hca_mr_read_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct vroce_hca_mr_read *r = file->private_data;
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, r->buf, r->len);
	mutex_unlock(&r->lock);
	return ret;
}

static const struct file_operations vroce_hca_mr_read_fops = {
	.owner = THIS_MODULE,
	.open = vroce_hca_mr_read_open,
	.release = vroce_hca_mr_read_release,
	.write = vroce_hca_mr_read_write,
	.read = vroce_hca_mr_read_read,
	.llseek = default_llseek,
};

/* "reg_frmr": carry out a REG_MR work request, as the data path does. */
static ssize_t vroce_hca_reg_frmr_write(struct file *file,
					const char __user *ubuf, size_t count,
					loff_t *ppos)
{
	struct vroce_hca *hca = file->private_data;
	u32 key, pdn, access, npages;
	u64 iova, len, pbl;
	char *line;
	int err, n;

	if (count > VROCE_HCA_LINE_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	n = sscanf(line, "%x %u %llx %llu %x %llx %u", &key, &pdn, &iova, &len,
		   &access, &pbl, &npages);
	kfree(line);
	if (n != 7)
		return -EINVAL;
	err = vroce_hca_frmr_register(hca, key, pdn, iova, len, access, pbl,
				      npages);
	return err ?: count;
}

static const struct file_operations vroce_hca_reg_frmr_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vroce_hca_reg_frmr_write,
	.llseek = default_llseek,
};

/**
 * vroce_hca_mpt_debugfs_init() - the MPT's debugfs files: mr_read, reg_frmr
 * @hca: the HCA
 * @dir: the HCA's debugfs directory
 */
void vroce_hca_mpt_debugfs_init(struct vroce_hca *hca, struct dentry *dir)
{
	debugfs_create_file("mr_read", 0600, dir, hca, &vroce_hca_mr_read_fops);
	debugfs_create_file("reg_frmr", 0200, dir, hca,
			    &vroce_hca_reg_frmr_fops);
}
