// SPDX-License-Identifier: GPL-2.0

//! The memory-window object of the MR/MTR ABI: a window's type, PD, key
//! and handle, and its states until the HCA lets go.
//!
//! The same rules as `c/abi/vroce_mw_obj.c`; the C-ABI shims are in
//! [`crate::mw_abi`]. No `unsafe` here: the object lives in a
//! [`CoreBox`](crate::mem::CoreBox), and whether it may be dropped is the
//! state's to say ([`MwObj::may_free`]).

use crate::bindings;
use crate::mr::State;
use kernel::error::{code::*, Result};

/// A window's type (`VROCE_MW_OBJ_TYPE_*`, the values of `IB_MW_TYPE_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MwType {
    /// Type 1: valid from ALLOC_MW, bound by the consumer's bind verb.
    One,
    /// Type 2: bound by a BIND_MW work request to the QP posting it.
    Two,
}

impl MwType {
    /// The type the ABI's `type` argument names, or [`EINVAL`].
    pub(crate) fn from_abi(ty: u32) -> Result<Self> {
        match ty {
            bindings::VROCE_MW_OBJ_TYPE_1 => Ok(MwType::One),
            bindings::VROCE_MW_OBJ_TYPE_2 => Ok(MwType::Two),
            _ => Err(EINVAL),
        }
    }

    /// The ABI's `VROCE_MW_OBJ_TYPE_*`.
    pub(crate) fn abi(self) -> u32 {
        match self {
            MwType::One => bindings::VROCE_MW_OBJ_TYPE_1,
            MwType::Two => bindings::VROCE_MW_OBJ_TYPE_2,
        }
    }
}

/// A window's lifecycle state (`struct vroce_mw_obj`), in the MR object's
/// states.
pub(crate) struct MwObj {
    ty: MwType,
    pdn: u32,
    state: State,
}

/// What the driver may read of a window object (`struct vroce_mw_info`);
/// the key and handle are those of a LIVE or ZOMBIE [`State`].
pub(crate) struct Info {
    pub(crate) ty: MwType,
    pub(crate) pdn: u32,
    pub(crate) state: State,
}

impl MwObj {
    /// A window of type `ty` (the ABI's value) in PD `pdn`, state NEW.
    pub(crate) fn new(ty: u32, pdn: u32) -> Result<Self> {
        Ok(MwObj {
            ty: MwType::from_abi(ty)?,
            pdn,
            state: State::New,
        })
    }

    /// What ALLOC_MW is to be told; only before it.
    pub(crate) fn describe(&self) -> Result<Info> {
        if self.state != State::New {
            return Err(EINVAL);
        }
        Ok(self.info())
    }

    /// ALLOC_MW succeeded: NEW -> LIVE.
    pub(crate) fn allocated(&mut self, key: u32, handle: u32) -> Result {
        self.state.entered(key, handle)
    }

    /// ALLOC_MW failed with `err` (a negative errno): true when the window
    /// must be kept (it is now LOST until the HCA is reset, or it was not
    /// NEW: the HCA may hold it), false when it may be freed. Every window
    /// takes an MPT entry, so any timeout may have left one behind.
    pub(crate) fn alloc_failed(&mut self, err: i32) -> bool {
        self.state.create_failed(err, true)
    }

    /// DEALLOC_MW was not confirmed: LIVE -> ZOMBIE.
    pub(crate) fn parked(&mut self) -> Result {
        self.state.parked()
    }

    /// The HCA let go (or was reset): -> GONE.
    pub(crate) fn released(&mut self, hca_reset: bool) -> Result {
        self.state.released(hca_reset)
    }

    /// Whether the HCA holds nothing of the window: it may be freed.
    pub(crate) fn may_free(&self) -> bool {
        self.state.may_free()
    }

    /// The object as the driver may read it.
    pub(crate) fn info(&self) -> Info {
        Info {
            ty: self.ty,
            pdn: self.pdn,
            state: self.state,
        }
    }
}
