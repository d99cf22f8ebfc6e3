//! The graph level: the composites the NPU takes (`patterns.rs`), the primitive ops they become
//! (`primitives.rs`, with output pixels packed by `pixels.rs`), and the graph step that slices
//! filters (`slice_filters.rs`).

use crate::kernel::jobs::{self, Job};
use umac_backend::{Composite, Error};

pub(crate) mod patterns;
pub(crate) mod pixels;
pub(crate) mod primitives;
pub(crate) mod slice_filters;

/// The job a composite of TOSA ops runs as (what its primitive op holds).
pub(crate) fn job_of(composite: &Composite) -> Result<Job, Error> {
    match composite.pattern.as_str() {
        "tynnp.conv2d" => jobs::convolution(composite, false),
        "tynnp.depthwise_conv2d" => jobs::convolution(composite, true),
        "tynnp.add" => jobs::eltwise(composite, false),
        "tynnp.sub" => jobs::eltwise(composite, true),
        "tynnp.table" => jobs::table(composite),
        _ => jobs::pool(composite),
    }
}

/// The job a kernel runs: its primitive op's. The schedule's steps and the legalization take
/// primitive ops only: a composite of TOSA ops left (`umac-primitives-tynnp` not run) is an error.
pub(crate) fn kernel_job(composite: &Composite) -> Result<Job, Error> {
    let last = composite.last();
    if !primitives::OPS.contains(&last.name().as_str()) {
        return Err(Error::Unsupported(format!(
            "{} is still a composite of TOSA ops: the schedule and the legalization take tynnp's primitive ops \
             (run umac-primitives-tynnp first)",
            composite.pattern
        )));
    }
    primitives::job(last)
}
