//! The schedule level: each kernel's schedule as IR (`attribute.rs`: the `tynnp.schedule` of its
//! primitive op), decided by four steps (`steps.rs`): which tensors stay in DM and which kernels
//! run at once (`resident.rs`, checked by `agree.rs`), then each kernel's tiles (`tiling.rs`, its
//! folds in `im2col.rs`) and its DM layout (`layout.rs`).

pub(crate) mod agree;
mod attribute;
pub(crate) mod im2col;
pub(crate) mod layout;
pub(crate) mod resident;
pub(crate) mod steps;
pub(crate) mod tiling;

pub(crate) use attribute::*;

use crate::kernel::jobs;
use layout::{Room, element_layout, tiled_layout};
use umac_backend::Error;
use umac_tynnp_device::Params;

/// The schedule of `job` (`double`-buffered or not), sharing `shared` with the kernels around
/// it: its tiles planned so that its own regions take at most `budget` bytes of DM from offset
/// 0, its kernel columns folded when that pays and fits; what it shares is placed later.
pub(crate) fn decide(
    job: &jobs::Job,
    params: &Params,
    double: bool,
    shared: resident::Shared,
    budget: i64,
) -> Result<Schedule, Error> {
    // What it shares with the kernels around it is read and written in place.
    let (preloaded, reads_kept, writes_kept) = (shared.preloaded, shared.kept_inputs, shared.kept_output);
    let overlap = shared.hands || shared.follows;
    let room = Room { params, double, budget, preloaded, reads_kept, writes_kept, stage: 0, overlap };
    let values: Vec<(String, i64)> = job.scalars.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let (nu_rows, nu_cols) = (i64::from(params.nu_rows), i64::from(params.nu_cols));
    let (fold, im2col, plan) = if job.code.elementwise() {
        (false, false, element_layout(job, &values, &room)?)
    } else {
        // A convolution is folded by kernel rows and columns (staging its input in DM), or by
        // columns, when it pays, its (longer) tiles fit DM and (by rows) each tile's kernel rows
        // read some input; it gathers its input into tile buffers, from DM too.
        let foldable = job.code.foldable();
        let gathered = Room { reads_kept: [false; 2], ..room };
        // The gathers take two channels when nothing is copied out (see `body::Gather`).
        let channels = if writes_kept { i64::from(params.dma_channels) } else { 1 };
        let by_rows = if foldable { im2col::im2col(&values, (nu_rows, nu_cols), channels)? } else { None };
        let by_rows = by_rows.and_then(|im| {
            let room = Room { stage: im.stage_bytes, ..gathered };
            let plan = tiled_layout(job, &im.apply(&values), im.row_bytes, &room).ok()?;
            im.row_arguments(&plan.tiles).map(|_| plan)
        });
        let by_columns = || -> Result<Option<layout::Plan>, Error> {
            let fold = if foldable { tiling::fold(&values, nu_rows, nu_cols, channels > 1)? } else { None };
            Ok(fold.and_then(|fold| tiled_layout(job, &fold.apply(&values), fold.row_bytes, &gathered).ok()))
        };
        match by_rows {
            Some(plan) => (false, true, plan),
            None => match by_columns()? {
                Some(plan) => (true, false, plan),
                None => {
                    let src_row = job.bytes[0] / tiling::lookup(&values, "ih")?.max(1);
                    (false, false, tiled_layout(job, &values, src_row, &room)?)
                }
            },
        }
    };
    let mut dm = plan.dm;
    if shared.hands {
        let end = dm.iter().map(|(_, at, bytes)| (at + bytes + 15) & !15).max().unwrap_or(0);
        let words = token_words(plan.tiles.len() - 1, plan.bands);
        dm.push((TOKENS.to_string(), end, 4 * words as i64));
    }
    Ok(Schedule {
        tiles: plan.tiles,
        bands: plan.bands,
        buffers: if double { 2 } else { 1 },
        fold,
        im2col,
        dm,
        ..Schedule::default()
    })
}

/// `bytes` rounded up to DM's 16-byte words (what a region takes).
pub fn a16(bytes: i64) -> i64 {
    (bytes + 15) & !15
}
