//! Every umac pass and named pipeline, by the name users write in a pipeline.

use crate::{
    Error,
    options::{OptionSpec, OptionValues},
    pass::BoxedPass,
    passes, stages,
};
use std::sync::Mutex;

/// What a registry entry turns into.
#[derive(Clone, Copy)]
pub enum PassKind {
    /// A pass implemented in Rust, built for its options (an error rejects the options).
    Pass(fn(&OptionValues) -> Result<BoxedPass, Error>),
    /// A pass implemented in Rust, one per registered name (e.g. `umac-legalize-<target>`): the
    /// constructor is told the name it was registered under.
    Named(fn(&str, &OptionValues) -> Result<BoxedPass, Error>),
    /// A named pipeline: its elements in pipeline syntax, expanded in place (they may name
    /// upstream passes, umac passes and other pipelines).
    Pipeline(fn(&OptionValues) -> String),
}

/// A umac pass or named pipeline.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// The name in a pipeline string, e.g. `umac-verify`.
    pub name: &'static str,
    /// One line for `--list-passes`.
    pub summary: &'static str,
    /// The operation it runs on: `builtin.module`, `func.func`, or `any`.
    pub anchor: &'static str,
    /// The options it accepts.
    pub options: &'static [OptionSpec],
    /// How it is built.
    pub kind: PassKind,
}

/// Passes registered at run time by other crates (accelerator backends: the partitioner and each
/// target's legalization live in `umac-targets`, which this crate cannot depend on).
static EXTENSIONS: Mutex<Vec<PassInfo>> = Mutex::new(Vec::new());

/// Adds `info` to the registry (a later registration of the same name replaces the earlier one
/// until it is exported to MLIR, see [`crate::pass::export_to_mlir`]).
pub fn register(info: PassInfo) {
    let mut extensions = EXTENSIONS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    extensions.retain(|known| known.name != info.name);
    extensions.push(info);
}

/// All umac passes and pipelines, in the order `--list-passes` shows them: umac's own, then the
/// registered ones.
pub fn registry() -> Vec<PassInfo> {
    let extensions = EXTENSIONS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    BUILTIN.iter().copied().chain(extensions.iter().copied()).collect()
}

const BUILTIN: &[PassInfo] = &[
    passes::graph::verify::INFO,
    passes::graph::legalize_tfl_lstm::INFO,
    passes::graph::isolate_global_values::INFO,
    passes::graph::set_entry_shapes::INFO,
    passes::graph::resolve_slice_sizes::INFO,
    passes::graph::refine_entry_results::INFO,
    passes::graph::strip_entry_attributes::INFO,
    passes::graph::expose_intermediates::INFO,
    passes::graph::rename_entry::INFO,
    passes::graph::tabulate_lookups::INFO,
    passes::graph::on_target_functions::INFO,
    passes::buffers::order_constant_globals::INFO,
    passes::buffers::strided_copy_to_linalg::INFO,
    passes::buffers::elide_output_copies::INFO,
    passes::buffers::elide_slice_copies::INFO,
    passes::graph::decompose_transpose_conv2d::INFO,
    passes::linalg::apply_scale_32::INFO,
    passes::linalg::fold_zero_points::INFO,
    passes::linalg::narrow_reduction_inputs::INFO,
    passes::linalg::recompute_elementwise::INFO,
    passes::math::expand_rounding::INFO,
    passes::math::expand_exp_tanh::INFO,
    passes::math::expand_log_sin_cos::INFO,
    passes::math::expand_sqrt::INFO,
    passes::linalg::fold_padding::INFO,
    passes::linalg::im2col::INFO,
    passes::linalg::im2col::COLLAPSE_INFO,
    passes::linalg::tile_and_fuse::INFO,
    passes::loops::vectorize_dot_products::INFO,
    passes::loops::channels_innermost::INFO,
    passes::loops::vectorize_elementwise_loops::INFO,
    passes::loops::split_borders::INFO,
    passes::buffers::plan_memory::INFO,
    passes::executor::outline_operators::INFO,
    passes::executor::profile_hooks::INFO,
    passes::executor::lower_call_extern::INFO,
    stages::SPECIALIZE_ENTRY,
    stages::LOWER_TO_LLVM,
    stages::LOWER_TO_HOST_LOOPS,
    stages::LOWER_TO_HOST_LLVM,
    stages::LOWER_TO_FIRMWARE_OPERATORS,
    stages::LOWER_TO_FIRMWARE_LLVM,
];

/// Finds a umac pass or pipeline by name.
pub fn lookup(name: &str) -> Option<PassInfo> {
    registry().into_iter().find(|info| info.name == name)
}
