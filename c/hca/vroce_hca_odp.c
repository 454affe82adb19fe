// SPDX-License-Identifier: GPL-2.0
/*
 * vroce emulated HCA: page faults of on-demand paging MRs (issue 33).
 *
 * An MR of kind VROCE_MR_KIND_ODP translates through tables whose entries
 * the driver writes as pages become present and empties when they go.
 * The translation engine (c/hca/vroce_hca_mpt.c) reaching an empty entry
 * calls vroce_hca_odp_fault(): the fault takes one of the HCA's fault
 * slots and writes a VROCE_EQE_PAGE_FAULT event naming it, and the work
 * request that needed the page waits (vroce_hca_odp_wait(), the
 * requester's send queue, whichever end the MR is at) and runs again when
 * a fault is resumed or after VROCE_PAGE_FAULT_RETRY_MS. The driver reads
 * the slot (QUERY_PAGE_FAULT), writes the entries, and ends the fault
 * (RESUME_PAGE_FAULT): resolved, or failed, when the next access the
 * slot covers fails as a protection error, once. FENCE is the driver's
 * proof, after it emptied entries, that no access through them is in
 * flight: every command runs with the wire's lock held for writing, so
 * with no engine inside.
 *
 * Calls: c/hca/vroce_hca_comp.c (events, waking the waiters).
 */

#include <linux/bitfield.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "vroce_hca_priv.h"

/* A fault the driver has not ended within this long is raised again. */
#define VROCE_HCA_PF_STALE	HZ
/* Faults one MR may have pending at once. */
#define VROCE_HCA_PF_PER_MR	4

/* A slot ended and left alone this long is free again. */
static bool vroce_hca_pf_stale(const struct vroce_hca_pf *s)
{
	return time_after(jiffies, s->since + VROCE_HCA_PF_STALE);
}

/*
 * @s covers byte @iova of the MR @handle names; a failed one only for the
 * QP whose access raised it, and only for a while.
 */
static bool vroce_hca_pf_covers(const struct vroce_hca_pf *s, u32 handle,
				u32 qpn, u64 iova)
{
	if (s->state == VROCE_HCA_PF_FREE || s->handle != handle ||
	    iova < s->iova || iova - s->iova >= s->len)
		return false;
	return s->state != VROCE_HCA_PF_FAILED ||
	       (s->qpn == qpn && !vroce_hca_pf_stale(s));
}

/* A slot that may be taken: free, or failed long ago (nobody came). */
static bool vroce_hca_pf_free(const struct vroce_hca_pf *s)
{
	return s->state == VROCE_HCA_PF_FREE ||
	       (s->state == VROCE_HCA_PF_FAILED && vroce_hca_pf_stale(s));
}

/**
 * vroce_hca_odp_fault() - an access met a page an ODP MR has no entry for
 * @hca: the MR's HCA
 * @mr: the MR, of kind VROCE_MR_KIND_ODP, its entry's lock held
 * @qpn: the QP of @hca whose access it is (the requester's for its own
 *	SGEs, the responder's for a remote access)
 * @iova: the first address the access needs that has no entry
 * @len: bytes from @iova it needs, at least 1
 * @write: the access stores
 *
 * A fault slot covering @iova that the driver failed for this QP's
 * access ends here: the access fails, and the slot is free again. One
 * still pending is raised again when stale (its event may have been
 * lost). Otherwise a free slot takes the fault and an event names it;
 * with none free, or VROCE_HCA_PF_PER_MR slots pending for the MR
 * already (an MR whose faults never end holds few), the access just
 * waits. A failed slot not yet met counts as pending for its MR.
 *
 * Context: an engine, @hca->wire_lock held for reading; takes pf_lock.
 * Return: -VROCE_HCA_EPAGE (the access must wait and run again), or
 * -VROCE_HCA_EACCESS (the driver could not make the page present).
 */
int vroce_hca_odp_fault(struct vroce_hca *hca, const struct vroce_hca_mpt *mr,
			u32 qpn, u64 iova, u64 len, bool write)
{
	u32 handle = FIELD_PREP(VROCE_MR_HANDLE_GEN, mr->gen) |
		     FIELD_PREP(VROCE_MR_HANDLE_INDEX, mr - hca->mpt);
	struct vroce_hca_pf *s, *take = NULL;
	u32 i, raise = U32_MAX, mine = 0;
	int err = -VROCE_HCA_EPAGE;

	spin_lock(&hca->pf_lock);
	for (i = 0; i < VROCE_PAGE_FAULT_SLOTS; i++) {
		s = &hca->pf[i];
		if (vroce_hca_pf_covers(s, handle, qpn, iova)) {
			if (s->state == VROCE_HCA_PF_FAILED) {
				s->state = VROCE_HCA_PF_FREE;
				err = -VROCE_HCA_EACCESS;
			} else if (vroce_hca_pf_stale(s)) {
				s->since = jiffies;
				raise = i;
			}
			goto out;
		}
		/* Failed ones too, until they expire or are met. */
		if (s->state != VROCE_HCA_PF_FREE && s->handle == handle &&
		    !vroce_hca_pf_free(s))
			mine++;
		if (!take && vroce_hca_pf_free(s))
			take = s;
	}
	if (take && mine < VROCE_HCA_PF_PER_MR) {
		*take = (struct vroce_hca_pf) {
			.state = VROCE_HCA_PF_PENDING,
			.write = write,
			.qpn = qpn,
			.handle = handle,
			.iova = iova,
			.len = len,
			.since = jiffies,
		};
		raise = take - hca->pf;
	}
out:
	spin_unlock(&hca->pf_lock);
	if (raise != U32_MAX) {
		vroce_hca_count(hca, VROCE_CNT_PAGE_FAULTS, 1);
		vroce_hca_eq_post(hca, VROCE_EQE_PAGE_FAULT, raise);
	}
	return err;
}

/**
 * vroce_hca_odp_mr_gone() - an MR's faults end with it
 * @hca: the HCA
 * @handle: the MR's handle, or U32_MAX for every MR (a reset)
 *
 * Context: the command processor or a reset, @hca->wire_lock held.
 */
void vroce_hca_odp_mr_gone(struct vroce_hca *hca, u32 handle)
{
	u32 i;

	lockdep_assert_held(hca->wire_lock);
	spin_lock(&hca->pf_lock);
	for (i = 0; i < VROCE_PAGE_FAULT_SLOTS; i++)
		if (handle == U32_MAX || hca->pf[i].handle == handle)
			hca->pf[i].state = VROCE_HCA_PF_FREE;
	spin_unlock(&hca->pf_lock);
}

/**
 * vroce_hca_query_page_fault() - QUERY_PAGE_FAULT: what a fault slot holds
 * @hca: the HCA
 * @cmd: the request
 * @resp: where the fault goes
 *
 * Context: the command processor, @hca->wire_lock held for writing.
 * Return: VROCE_CMD_OK, BAD_PARAM (no such slot) or BAD_HANDLE (the slot
 * holds no pending fault).
 */
u16 vroce_hca_query_page_fault(struct vroce_hca *hca,
			       const struct vroce_cmd_page_fault *cmd,
			       struct vroce_resp_page_fault *resp)
{
	u32 slot = le32_to_cpu(cmd->slot);
	struct vroce_hca_pf *s;
	u16 status = VROCE_CMD_BAD_HANDLE;

	if (slot >= VROCE_PAGE_FAULT_SLOTS)
		return VROCE_CMD_BAD_PARAM;
	s = &hca->pf[slot];
	spin_lock(&hca->pf_lock);
	if (s->state == VROCE_HCA_PF_PENDING) {
		resp->handle = cpu_to_le32(s->handle);
		resp->flags = cpu_to_le32(s->write ? VROCE_PAGE_FAULT_F_WRITE :
					  0);
		resp->iova = cpu_to_le64(s->iova);
		resp->len = cpu_to_le64(s->len);
		status = VROCE_CMD_OK;
	}
	spin_unlock(&hca->pf_lock);
	return status;
}

/**
 * vroce_hca_resume_page_fault() - RESUME_PAGE_FAULT: end a fault
 * @hca: the HCA
 * @cmd: the request
 *
 * Resolved, the slot is free; failed, it fails the next access it covers.
 * Either way every work request waiting for a page, on every HCA of the
 * wire, runs again now.
 *
 * Context: the command processor, @hca->wire_lock held for writing.
 * Return: VROCE_CMD_OK, BAD_PARAM (slot or status) or BAD_HANDLE (the
 * slot holds no pending fault of that MR).
 */
u16 vroce_hca_resume_page_fault(struct vroce_hca *hca,
				const struct vroce_cmd_resume_page_fault *cmd)
{
	u32 slot = le32_to_cpu(cmd->slot), status = le32_to_cpu(cmd->status);
	struct vroce_hca *e = NULL;
	struct vroce_hca_pf *s;
	u16 ret = VROCE_CMD_BAD_HANDLE;

	if (slot >= VROCE_PAGE_FAULT_SLOTS ||
	    (status != VROCE_PAGE_FAULT_RESOLVED &&
	     status != VROCE_PAGE_FAULT_FAILED))
		return VROCE_CMD_BAD_PARAM;
	s = &hca->pf[slot];
	spin_lock(&hca->pf_lock);
	if (s->state == VROCE_HCA_PF_PENDING &&
	    s->handle == le32_to_cpu(cmd->handle)) {
		s->state = status == VROCE_PAGE_FAULT_RESOLVED ?
			   VROCE_HCA_PF_FREE : VROCE_HCA_PF_FAILED;
		s->since = jiffies;
		ret = VROCE_CMD_OK;
	}
	spin_unlock(&hca->pf_lock);
	if (ret != VROCE_CMD_OK)
		return ret;
	while ((e = vroce_hca_wire_next(hca, e)))
		if (vroce_hca_enabled(e))
			vroce_hca_odp_wake(e);
	return VROCE_CMD_OK;
}
