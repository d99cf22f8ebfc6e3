//! tynnp: umac's TY-NNP-style NPU (targets/tynnp/docs/isa.md), driven by its RV32 control unit.
//!
//! Each composite becomes one NPU kernel: an int8 convolution (`tosa.conv2d` with its bias, an
//! optional `tosa.rescale` to int8 and `tosa.clamp`; fully connected layers arrive as 1x1
//! convolutions; a leading `tosa.slice` read in place) runs as `nu.conv` jobs on the neural unit
//! in double-buffered tiles of output rows, its kernel columns folded into its input channels
//! when that saves NU passes; a depthwise convolution (`vu.dwconv`) or an average or max pooling
//! (`vu.pool`) in tiles, each split into bands over the vector units; TFLite's quantized add or
//! sub with its rescales (`vu.eltwise`) and an int8 or int16 table lookup (`vu.table`) in tiles
//! of bands. Each kernel's constants are packed at compile time into one record
//! (`kernel/jobs.rs`), and a kernel's output that the next kernel alone reads stays in DM
//! (`schedule/resident.rs`). The code is the control unit's: each kind of call is defined with it
//! as a function that copies by DMA, writes the descriptors and issues the custom
//! instructions (`llvm.inline_asm`), compiled into the model's RV32 object (`codegen/kernel.rs`).
//! A job whose tiles do not fit DM is a compile error at the op naming every region's bytes (see
//! targets/tynnp/docs/compiler.md). Ops the NPU does not take run on the control unit.
//!
//! The compiler is in four levels, each using only those before it: `kernel/` (the kinds of
//! jobs, their descriptors and calls), `graph/` (patterns and primitive ops), `schedule/` (the
//! schedule as IR and its steps) and `codegen/` (calls, kernels, instructions); `target.rs` holds
//! the target's attributes.

mod codegen;
mod error;
mod graph;
mod kernel;
mod schedule;
mod target;

use codegen::{call::lower, describe, dma, double_buffer, instructions, memory, regions, specialize};
use graph::{patterns, pixels, primitives, slice_filters};
use schedule::{Schedule, resident::Handed, steps};
use target::{ATTRIBUTES, DOUBLE_BUFFER, FUSE, NAME, OVERLAP, PREFETCH, SPECIALIZE, default_of};
use umac_backend::{
    Backend, Builder, Composite, Error, ExternCallSite, GraphStep, KernelStep, OpView, Pattern, Phase, PhasePass,
    Primitive, ScheduleStep, Strategy, TargetAttr, TargetAttrs, Value,
};
use umac_tynnp_device::Params;

pub use target::params;

/// The `tynnp` dialect: the primitive ops (one per kind of job), the instructions the control
/// unit's kernels are written in, DM as a memref (`tynnp.dm`) and copies between memrefs
/// (`tynnp.dma`).
const DIALECT: [&str; 19] = {
    let mut all = [""; 19];
    let mut i = 0;
    while i < primitives::OPS.len() {
        all[i] = primitives::OPS[i];
        i += 1;
    }
    let mut k = 0;
    while k < instructions::INSTRUCTIONS.len() {
        all[i + k] = instructions::INSTRUCTIONS[k].name;
        k += 1;
    }
    all[16] = instructions::WAIT;
    all[17] = memory::DM;
    all[18] = dma::DMA;
    all
};

/// The backend.
pub struct Tynnp;

/// What the registry lists.
pub static BACKEND: Tynnp = Tynnp;

impl Backend for Tynnp {
    fn name(&self) -> &'static str {
        NAME
    }

    fn cpu(&self) -> Option<&'static str> {
        Some("rv32im")
    }

    fn device(&self, attributes: &TargetAttrs) -> Result<Option<Box<dyn umac_sim::Device>>, Error> {
        Ok(Some(Box::new(umac_tynnp_device::Npu::new(params(attributes)?))))
    }

    fn attributes(&self) -> Vec<TargetAttr> {
        let defaults = Params::default();
        let mut attributes: Vec<TargetAttr> =
            ATTRIBUTES.iter().map(|&(name, help)| TargetAttr::int(name, default_of(name, &defaults), help)).collect();
        attributes.push(TargetAttr::bool(
            FUSE,
            true,
            "keep a kernel's output in DM when the next kernel reads it alone (false: every output goes to DDR)",
        ));
        attributes.push(TargetAttr::bool(
            PREFETCH,
            true,
            "copy the next kernel's constants into DM while this kernel's last tiles run (false: each kernel copies its own)",
        ));
        attributes.push(TargetAttr::bool(
            OVERLAP,
            true,
            "start a kernel that reads the kept output of the one before while that one's last tiles run (false: each kernel waits for its jobs)",
        ));
        attributes.push(TargetAttr::bool(
            pixels::PACK,
            true,
            "pack adjacent output pixels of a convolution with few output channels into the NU's columns (false: one pixel a pass)",
        ));
        attributes.push(TargetAttr::bool(
            DOUBLE_BUFFER,
            true,
            "double-buffer tiles (false: one input and one output buffer, to measure what double buffering earns)",
        ));
        attributes.push(TargetAttr::bool(
            SPECIALIZE,
            true,
            "give the calls of a kernel a copy of it with their tile table and count as constants (false: one function loops over any table, to measure what that earns)",
        ));
        attributes
    }

    fn patterns(&self, attributes: &TargetAttrs) -> Vec<Pattern> {
        patterns::all(params(attributes).unwrap_or_default())
    }

    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, Error> {
        let mut one = self.strategies(std::slice::from_ref(composite), attributes);
        one.pop().unwrap_or_else(|| Err(Error::Invalid("no strategy".into())))
    }

    /// The kernels of a function plan together (`steps.rs`), each lowered by its schedule: the
    /// one attached to it (maybe edited), or decided here for the whole function at once (every
    /// step). A function with some schedules attached decides the others alone, sharing
    /// nothing; the schedules must agree (`agree::check_function`).
    fn strategies(&self, composites: &[Composite], attributes: &TargetAttrs) -> Vec<Result<Strategy, Error>> {
        let kernels = match steps::Kernels::new(composites, attributes) {
            Ok(kernels) => kernels,
            Err(e) => return composites.iter().map(|_| Err(e.clone())).collect(),
        };
        let attached = composites.iter().any(|c| c.last().int_dict(schedule::ATTRIBUTE).is_some());
        let schedules = if attached { kernels.attached() } else { kernels.planned() };
        let steps::Kernels { params, jobs, records, .. } = kernels;
        let placed = schedules.clone();
        let outputs: Vec<Option<i64>> =
            jobs.iter().map(|j| j.as_ref().ok().and_then(|j| j.bytes.last().copied())).collect();
        // The records of the next kernel and of the one the far copy is for.
        let nexts: Vec<[Option<Vec<u8>>; 2]> = (0..records.len())
            .map(|i| {
                let ahead = schedules[i].as_ref().map_or(schedule::FAR_AHEAD, Schedule::far_ahead);
                [1, ahead].map(|d| records.get(i + d).cloned().flatten())
            })
            .collect();
        // What a kernel following one that hands its jobs on needs of it, and of the kernel two
        // back when the kernel before followed that one.
        let handed_by = |j: Option<usize>| {
            let j = j?;
            let (Ok(job), Ok(schedule)) = (&jobs[j], &schedules[j]) else { return None };
            Handed::of(job, schedule)
        };
        let handed: Vec<[Option<Handed>; 2]> = (0..jobs.len())
            .map(|i| {
                let before = handed_by(i.checked_sub(1));
                let two_back = before.as_ref().and_then(|_| handed_by(i.checked_sub(2)));
                [before, two_back]
            })
            .collect();
        let calls = jobs
            .into_iter()
            .zip(records.clone())
            .zip(schedules)
            .zip(nexts)
            .zip(handed)
            .map(|((((job, record), schedule), next), before)| lower((job?, record), &schedule?, next, before, &params))
            .collect();
        regions::share(calls, &placed, &outputs, &records)
    }

    /// Before partitioning, the model's no-op ops go: a clamp to its type's whole range, a
    /// reshape undoing another (TFLite's fully connected layers arrive as reshape, conv2d,
    /// rescale, reshape, clamp). Left in place they run on the control unit between the NPU's
    /// kernels, which then cannot share DM, prefetch or run at once.
    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        vec![PhasePass { phase: Phase::PrePartition, pipeline: "canonicalize".into() }]
    }

    fn schedule_steps(&self) -> &'static [ScheduleStep] {
        &steps::STEPS
    }

    fn graph_steps(&self) -> &'static [GraphStep] {
        &[slice_filters::STEP]
    }

    fn kernel_steps(&self) -> &'static [KernelStep] {
        &[double_buffer::STEP, memory::STEP, specialize::STEP]
    }

    /// Step `step` of each kernel's schedule as `tynnp.schedule` (`steps.rs`, `schedule.rs`).
    fn schedules(
        &self,
        step: &str,
        composites: &[Composite],
        attributes: &TargetAttrs,
    ) -> Vec<Result<Option<String>, Error>> {
        match steps::Kernels::new(composites, attributes) {
            Ok(kernels) => kernels.step(step),
            Err(e) => composites.iter().map(|_| Err(e.clone())).collect(),
        }
    }

    fn dialect_ops(&self) -> &'static [&'static str] {
        &DIALECT
    }

    fn verify_primitive(&self, op: &OpView) -> Result<(), Error> {
        let name = op.name();
        Ok(if name == memory::DM {
            memory::verify(op)
        } else if name == dma::DMA {
            dma::verify(op)
        } else if instructions::is_instruction(&name) {
            instructions::verify(op)
        } else {
            primitives::verify(op)
        }?)
    }

    fn primitive(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Option<Primitive>, Error> {
        primitives::primitive(composite, attributes)
    }

    fn reference(&self, op: &OpView, builder: &mut Builder) -> Result<Vec<Value>, Error> {
        primitives::reference(op, builder)
    }

    fn lower_to_llvm(&self, op: &OpView, builder: &mut Builder) -> Option<Result<Vec<Value>, Error>> {
        match dma::lower(op, builder).or_else(|| dma::lower_pointer(op, builder)) {
            Some(lowered) => Some(lowered.map_err(Error::from)),
            None => instructions::lower(op, builder).map(Ok),
        }
    }

    fn describe_call(
        &self,
        call: &ExternCallSite,
        scalars: &[Option<i64>],
        attributes: &TargetAttrs,
    ) -> Option<serde_json::Value> {
        describe::describe(call, scalars, &params(attributes).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::{jobs, split::Split};

    /// The tile table's rows hold the values that differ between tiles, each once, the same
    /// number a tile, none of them an argument; the arguments are the same for every number of
    /// tiles, and the DM addresses in a row are offsets from an argument ([`JobCode::base_of`]).
    #[test]
    fn tile_rows_hold_every_tile_value_once() {
        let splits = [
            Split::bands(4),
            Split { single: true, ..Split::bands(3) },
            Split { writes_kept: true, prefetch: true, ..Split::bands(2) },
            Split { reads_kept: [true, false], follows: 4, waits_two: 1, ..Split::bands(3) },
            Split { reads_kept: [true, false], follows: 1, hands: true, writes_kept: true, ..Split::bands(3) },
        ];
        for code in jobs::CODES {
            let mut checked = 0;
            for split in splits {
                // Each kind's own shape: bands on the vector units, folded columns, kernel rows.
                let split = Split {
                    units: if code.units { 2 } else { 0 },
                    taps: if code.folded { 3 } else { 0 },
                    rows: if code.im2col { 10 } else { 0 },
                    ..split
                };
                if !code.valid(split) {
                    continue;
                }
                let rows: Vec<Vec<String>> = (0..split.bands).map(|t| code.tile_row(split, t)).collect();
                assert!(rows.iter().all(|row| row.len() == rows[0].len()), "{}", code.symbol(split));
                let arguments = code.trailing(split);
                assert_eq!(arguments, code.trailing(Split { bands: 1, ..split }), "{}", code.symbol(split));
                let mut values: Vec<&String> = rows.iter().flatten().collect();
                values.sort();
                let count = values.len();
                values.dedup();
                assert_eq!(values.len(), count, "{}: a value twice", code.symbol(split));
                assert!(values.iter().all(|v| !arguments.contains(v)), "{}", code.symbol(split));
                for value in values {
                    if let Some(crate::kernel::code::Base::Argument(base)) = code.base_of(split, value) {
                        assert!(arguments.iter().any(|a| a == base), "{}: {value} from {base}", code.symbol(split));
                    }
                }
                checked += 1;
            }
            assert!(checked >= 3, "{}: {checked} splits", code.callee);
        }
        // By hand: a convolution's tile 1 on the NU: its descriptor's input address, input rows,
        // top padding, output rows and output address, then its copies; the addresses are
        // offsets in the tile's buffers, the buffers arguments.
        let row = jobs::CONV.tile_row(Split::bands(4), 1);
        let expected = ["dm_input_b1", "ih_b1", "pad_top_b1", "oh_b1", "dm_output_b1"];
        assert_eq!(row[..5], expected.map(String::from));
        assert_eq!(row[5..], ["in_offset_b1", "in_bytes_b1", "out_offset_b1", "out_bytes_b1"].map(String::from));
        use crate::kernel::code::Base;
        let bases: Vec<Option<Base>> = row.iter().map(|name| jobs::CONV.base_of(Split::bands(4), name)).collect();
        assert_eq!(bases[..5], [Some(Base::Buffer("input")), None, None, None, Some(Base::Buffer("output"))]);
        assert!(bases[5..].iter().all(Option::is_none));
        let arguments = jobs::CONV.trailing(Split::bands(4));
        let buffers = ["dm_input_buffer0", "dm_input_buffer1", "dm_output_buffer0", "dm_output_buffer1", "tile_count"];
        assert_eq!(arguments[arguments.len() - 5..], buffers.map(String::from));
        // Written in place where it is kept, the output's address is an offset from `out_dm`.
        let kept = Split { writes_kept: true, ..Split::bands(4) };
        assert_eq!(jobs::CONV.base_of(kept, "dm_output_b0"), Some(Base::Argument("out_dm")));
        // A depthwise convolution's tile 2 of two bands, following a kernel: band 4's and 5's
        // fields, the copies, the row of the kernel before's token table.
        let split = Split { units: 2, reads_kept: [true, false], follows: 1, ..Split::bands(3) };
        let row = jobs::DWCONV.tile_row(split, 2);
        assert!(row[0].ends_with("_b4") && row[row.len() - 6].ends_with("_b5"), "{row:?}");
        assert_eq!(
            row[row.len() - 5..],
            ["in_offset_b2", "in_bytes_b2", "out_offset_b2", "out_bytes_b2", "after_t2"].map(String::from)
        );
        // Its input is read where it is kept, the row it follows an offset from the last one.
        assert_eq!(jobs::DWCONV.base_of(split, &row[0]), Some(Base::Argument("in_dm")));
        assert_eq!(jobs::DWCONV.base_of(split, "after_t2"), Some(Base::Argument("after_end")));
    }

    /// The copies `umac-specialize-tynnp` makes are named after the function and read back to it.
    #[test]
    fn specialized_copies_name_their_function_and_tiles() {
        use crate::kernel::split::{generic_symbol, specialized_symbol};
        assert_eq!(specialized_symbol("tynnp_conv2d_rx_wo", 3, 1), "tynnp_conv2d_rx_wo_t3");
        assert_eq!(specialized_symbol("tynnp_conv2d_rx_wo", 3, 2), "tynnp_conv2d_rx_wo_t3_2");
        assert_eq!(generic_symbol("tynnp_conv2d_rx_wo_t3"), ("tynnp_conv2d_rx_wo", Some(3)));
        assert_eq!(generic_symbol("tynnp_max_pool2d_x4_rx_t1_2"), ("tynnp_max_pool2d_x4_rx", Some(1)));
        // Not a copy: the general function, whose name may end in other counts.
        assert_eq!(generic_symbol("tynnp_dwconv2d_x4_rx_f1_w4"), ("tynnp_dwconv2d_x4_rx_f1_w4", None));
        assert_eq!(generic_symbol("tynnp_table16_x1"), ("tynnp_table16_x1", None));
        assert_eq!(generic_symbol("tynnp_conv2d_t"), ("tynnp_conv2d_t", None));
    }

    /// `tynnp.kernel`'s entries as `OpView::int_dict` reads them back.
    fn read_back(split: Split) -> umac_backend::IntEntries {
        let mut entries: Vec<(String, Vec<i64>)> = split
            .entries()
            .into_iter()
            .map(|(name, value)| match value {
                umac_backend::Attr::Int(_, n) => (name.to_string(), vec![n]),
                _ => (name.to_string(), vec![]),
            })
            .collect();
        entries.sort();
        entries
    }

    #[test]
    fn splits_are_named_once_and_recorded_as_ir() {
        let split = |bands, taps, units, single| Split { taps, units, single, ..Split::bands(bands) };
        let cases = [
            (&jobs::CONV, split(4, 0, 0, false), "tynnp_conv2d"),
            (&jobs::CONV, split(4, 0, 0, true), "tynnp_conv2d_single"),
            (&jobs::CONV_FOLDED, split(6, 3, 0, true), "tynnp_conv2d_folded_k3_single"),
            (&jobs::DWCONV, split(2, 0, 4, false), "tynnp_dwconv2d_x4"),
            (&jobs::ADD, split(2, 0, 4, true), "tynnp_add_x4_single"),
            (&jobs::CONV, Split { preloaded: true, ..split(4, 0, 0, false) }, "tynnp_conv2d_pl"),
            (&jobs::DWCONV, Split { prefetch: true, ..split(2, 0, 4, true) }, "tynnp_dwconv2d_x4_single_pf"),
            (&jobs::CONV, Split { preloaded: true, prefetch: true, ..split(1, 0, 0, false) }, "tynnp_conv2d_pl_pf"),
            (
                &jobs::CONV,
                Split { reads_kept: [true, false], writes_kept: true, ..split(1, 0, 0, false) },
                "tynnp_conv2d_rx_wo",
            ),
            (
                &jobs::CONV_IM2COL,
                Split { rows: 10, writes_kept: true, ..split(2, 3, 0, false) },
                "tynnp_conv2d_im2col_k3_r10_wo",
            ),
            (
                &jobs::ADD,
                Split { reads_kept: [false, true], preloaded: true, ..split(2, 0, 4, false) },
                "tynnp_add_x4_ry_pl",
            ),
            (
                &jobs::DWCONV,
                Split { writes_kept: true, prefetch: true, ..split(2, 0, 4, true) },
                "tynnp_dwconv2d_x4_single_wo_pf",
            ),
            (
                &jobs::DWCONV,
                Split {
                    reads_kept: [true, false],
                    follows: 4,
                    waits_two: 1,
                    writes_kept: true,
                    prefetch: true,
                    prefetch_far: true,
                    hands: true,
                    ..split(3, 0, 2, false)
                },
                "tynnp_dwconv2d_x2_rx_f4_w1_wo_pf_pff_h",
            ),
        ];
        let mut names = std::collections::HashSet::new();
        for (code, split, symbol) in cases {
            assert!(code.valid(split), "{symbol}");
            assert_eq!(code.symbol(split), symbol);
            assert!(names.insert(symbol), "{symbol} named twice");
            // The split but for its tiles comes back from the IR whole, and the name is the
            // kind's for it alone, whatever the tiles.
            assert_eq!(Split::from_entries(&read_back(split)), Some(split.function()), "{symbol}");
            assert_eq!(code.symbol(Split { bands: split.bands + 1, ..split }), symbol);
            let kinds: Vec<_> = jobs::CODES.iter().filter(|c| c.valid(split) && c.symbol(split) == symbol).collect();
            assert_eq!(kinds.len(), 1, "{symbol}");
        }
        // By hand: the entries of a depthwise convolution in 2 tiles of 4 bands, read in place.
        let recorded = read_back(Split { reads_kept: [true, false], ..split(2, 0, 4, false) });
        let expected = [
            ("follows", vec![0]),
            ("reads_x", vec![]),
            ("rows", vec![0]),
            ("taps", vec![0]),
            ("units", vec![4]),
            ("waits_two", vec![0]),
        ];
        assert_eq!(recorded, expected.map(|(n, v)| (n.to_string(), v)));
        // Entries that are no split: a count missing, an unknown or malformed entry.
        let mut missing = recorded.clone();
        missing.retain(|(n, _)| n != "units");
        let mut unknown = recorded.clone();
        unknown.push(("twice".into(), vec![]));
        let mut flag_with_value = recorded.clone();
        flag_with_value[1].1 = vec![1];
        let mut negative = recorded.clone();
        negative[0].1 = vec![-2];
        for wrong in [missing, unknown, flag_with_value, negative] {
            assert_eq!(Split::from_entries(&wrong), None, "{wrong:?}");
        }
        // Splits no kind has: a folded convolution reading in place (it gathers), a `y` on a
        // convolution, an im2col without kernel rows, flags out of order of what they need,
        // more tiles than a tensor could have rows or bands than vector units.
        assert!(!jobs::CONV_FOLDED.valid(Split { reads_kept: [true, false], ..split(4, 3, 0, false) }));
        assert!(jobs::CONV_FOLDED.valid(Split { writes_kept: true, ..split(4, 3, 0, false) }));
        assert!(!jobs::CONV.valid(Split { reads_kept: [false, true], ..split(4, 0, 0, false) }));
        assert!(!jobs::CONV_IM2COL.valid(split(2, 3, 0, false)));
        assert!(!jobs::CONV.valid(Split { hands: true, ..split(4, 0, 0, false) }));
        assert!(!jobs::CONV.valid(Split { follows: 1, ..split(4, 0, 0, false) }));
        assert!(!jobs::MAX_POOL.valid(Split { preloaded: true, ..split(1, 0, 4, false) }));
        assert!(jobs::MAX_POOL.valid(Split { prefetch: true, ..split(1, 0, 4, false) }));
        assert!(!jobs::CONV.valid(split(99_999_999, 0, 0, false)));
        assert!(!jobs::DWCONV.valid(split(2, 0, 17, false)));
        assert!(!jobs::CONV.valid(split(0, 0, 0, false)));
        assert!(!jobs::CONV.valid(split(4, 0, 4, false)));
    }
}
