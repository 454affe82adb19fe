/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce: the lifecycle the MR object (c/abi/vroce_mr_obj.c) and the
 * memory-window object (c/abi/vroce_mw_obj.c) share, as
 * bindings/vroce_abi.h describes it for both: the states
 * VROCE_MR_STATE_*, and the key and handle the HCA returned.
 *
 *   NEW --entered()--> LIVE --released()--> GONE
 *   NEW --create_failed(-ETIMEDOUT, may_hold)--> LOST
 *   LIVE --parked()--> ZOMBIE --released()--> GONE
 *   LOST --released(hca_reset = true)--> GONE
 *
 * Private to c/abi/; the Rust implementation has the same in rust/mr.rs
 * (impl State).
 */
#ifndef _VROCE_OBJ_LIFE_H_
#define _VROCE_OBJ_LIFE_H_

#include <linux/errno.h>
#include <linux/types.h>

#include "../../bindings/vroce_abi.h"

/**
 * struct vroce_obj_life - an object's state and what the HCA named it by
 * @state: VROCE_MR_STATE_*
 * @key: from the create command (LIVE, ZOMBIE), else 0
 * @handle: from the create command (LIVE, ZOMBIE), else 0
 */
struct vroce_obj_life {
	u32 state;
	u32 key;
	u32 handle;
};

/* The create command succeeded: NEW -> LIVE; -EINVAL when not NEW. */
static inline int vroce_obj_entered(struct vroce_obj_life *l, u32 key,
				    u32 handle)
{
	if (l->state != VROCE_MR_STATE_NEW)
		return -EINVAL;
	l->key = key;
	l->handle = handle;
	l->state = VROCE_MR_STATE_LIVE;
	return 0;
}

/*
 * The create command failed with @err. With @may_hold (the HCA would hold
 * an entry for it), a timeout makes it LOST. Returns whether the object
 * must be kept: LOST now, or not NEW (the HCA may hold it).
 */
static inline bool vroce_obj_create_failed(struct vroce_obj_life *l, int err,
					   bool may_hold)
{
	if (l->state != VROCE_MR_STATE_NEW)
		return true;
	if (err == -ETIMEDOUT && may_hold) {
		l->state = VROCE_MR_STATE_LOST;
		return true;
	}
	return false;
}

/* The destroy command was not confirmed: LIVE -> ZOMBIE; else -EINVAL. */
static inline int vroce_obj_parked(struct vroce_obj_life *l)
{
	if (l->state != VROCE_MR_STATE_LIVE)
		return -EINVAL;
	l->state = VROCE_MR_STATE_ZOMBIE;
	return 0;
}

/* The HCA let go (LIVE, ZOMBIE) or was reset (LOST too): -> GONE. */
static inline int vroce_obj_released(struct vroce_obj_life *l, bool hca_reset)
{
	switch (l->state) {
	case VROCE_MR_STATE_LIVE:
	case VROCE_MR_STATE_ZOMBIE:
		break;
	case VROCE_MR_STATE_LOST:
		if (!hca_reset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	l->key = 0;
	l->handle = 0;
	l->state = VROCE_MR_STATE_GONE;
	return 0;
}

/* Whether the HCA holds nothing of the object: NEW or GONE. */
static inline bool vroce_obj_may_free(const struct vroce_obj_life *l)
{
	return l->state == VROCE_MR_STATE_NEW || l->state == VROCE_MR_STATE_GONE;
}

#endif /* _VROCE_OBJ_LIFE_H_ */
