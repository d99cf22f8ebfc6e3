//! tynnp: umac's TY-NNP-style NPU (docs/tynnp/isa.md), driven by its RV32 control unit.
//!
//! Each composite becomes one NPU kernel: an int8 convolution (`tosa.conv2d` with its bias, an
//! optional `tosa.rescale` to int8 and `tosa.clamp`; fully connected layers arrive as 1x1
//! convolutions; a leading `tosa.slice` read in place) runs as `nu.conv` jobs on the neural unit
//! in double-buffered tiles of output rows, its kernel columns folded into its input channels
//! when that saves NU passes; a depthwise convolution (`vu.dwconv`) or an average or max pooling
//! (`vu.pool`) in tiles, each split into bands over the vector units; TFLite's quantized add or
//! sub with its rescales (`vu.eltwise`) and an int8 or int16 table lookup (`vu.table`) in tiles
//! of bands. Each kernel's constants are packed at compile time into one record (`jobs.rs`), and
//! a kernel's output that the next kernel alone reads stays in DM (`resident.rs`). The code is
//! the control unit's: `replace_call_extern` defines each kind of call as a function that copies
//! by DMA, writes the descriptors and issues the custom instructions (`llvm.inline_asm`),
//! compiled into the model's RV32 object (`codegen.rs`; the descriptors are in `jobs.rs`, the
//! splits in `tiling.rs`). A job whose tiles do not fit DM is a compile error at the op naming
//! every region's bytes (see docs/tynnp/compiler.md). Ops the NPU does not take run on the
//! control unit.

mod codegen;
mod jobs;
mod resident;
mod tiling;

use codegen::Split;
use umac_backend::{
    Backend, Composite, Error, ExternArg, ExternCall, ExternCallSite, OpPattern, OpView, Pattern, Replacement,
    Strategy, TargetAttr, TargetAttrs, constant, op, requantize_to_int8,
};
use umac_sim::npu::{Params, params::DM_BASE};

/// The target's name.
const NAME: &str = "tynnp";

/// The backend.
pub struct Tynnp;

/// What the registry lists.
pub static BACKEND: Tynnp = Tynnp;

/// The hardware parameters as target attributes, with the contract's names (section 1).
const ATTRIBUTES: [(&str, &str); 10] = [
    ("nu-rows", "NU array rows: input channels per cycle"),
    ("nu-cols", "NU array columns: output channels per cycle"),
    ("dm-kib", "global buffer DM, KiB"),
    ("vu", "vector units"),
    ("vu-lanes", "int32 lanes per vector unit"),
    ("vm-kib", "buffer VM of each vector unit, KiB"),
    ("dma", "DMA channels"),
    ("ddr-bw", "DDR bytes per cycle"),
    ("ddr-latency", "DDR latency, cycles"),
    ("queue", "jobs each unit's queue holds"),
];

/// The NPU the attributes describe (their ranges are the contract's).
pub fn params(attributes: &TargetAttrs) -> Result<Params, Error> {
    let text: Vec<String> = ATTRIBUTES.iter().map(|(name, _)| format!("-{name}={}", attributes.int(name))).collect();
    Params::parse(&text.join(" ")).map_err(|e| Error::Target(format!("{NAME}: {e}")))
}

fn default_of(name: &str, p: &Params) -> i64 {
    i64::from(match name {
        "nu-rows" => p.nu_rows,
        "nu-cols" => p.nu_cols,
        "dm-kib" => p.dm_bytes >> 10,
        "vu" => p.vu_count,
        "vu-lanes" => p.vu_lanes,
        "vm-kib" => p.vm_bytes >> 10,
        "dma" => p.dma_channels,
        "ddr-bw" => p.ddr_bytes_per_cycle,
        "ddr-latency" => p.ddr_latency,
        _ => p.queue_depth,
    })
}

impl Backend for Tynnp {
    fn name(&self) -> &'static str {
        NAME
    }

    fn cpu(&self) -> Option<&'static str> {
        Some("rv32im")
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
            DOUBLE_BUFFER,
            true,
            "double-buffer tiles (false: one input and one output buffer, to measure what double buffering earns)",
        ));
        attributes
    }

    fn patterns(&self, _attributes: &TargetAttrs) -> Vec<Pattern> {
        let conv = convolution("tosa.conv2d", |d| d[1] * d[2] * d[3]);
        // HWCM: each output channel sums kh·kw products.
        let depthwise = convolution("tosa.depthwise_conv2d", |d| d[0] * d[1]);
        let average = op("tosa.avg_pool2d")
            .static_rank(0, 4)
            .element_type(0, "i8")
            .result_element_type("i8")
            .when("batch 1", batch_1)
            .when("constant zero points", |o| (1..3).all(|i| o.operand_ints(i).is_some_and(|v| v.len() == 1)));
        let max = op("tosa.max_pool2d").static_rank(0, 4).element_type(0, "i8").when("batch 1", batch_1);
        vec![
            Pattern::new(&format!("{NAME}.conv2d"), conv)
                .input(0, vec![(leading_slice(), true)])
                .input(1, vec![(filter_reshape(), true)])
                .optional(rescale())
                .optional(clamp()),
            Pattern::new(&format!("{NAME}.depthwise_conv2d"), depthwise)
                .input(0, vec![(leading_slice(), true)])
                .input(1, vec![(filter_reshape(), true)])
                .optional(rescale())
                .optional(clamp()),
            Pattern::new(&format!("{NAME}.avg_pool2d"), average),
            Pattern::new(&format!("{NAME}.max_pool2d"), max),
            eltwise("tosa.add"),
            eltwise("tosa.sub"),
            Pattern::new(&format!("{NAME}.table"), table()),
        ]
    }

    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, Error> {
        lower(composite, job_of(composite)?, &params(attributes)?, attributes, resident::Constants::default())
    }

    /// The kernels of a function plan together: each copies the next one's constants while its
    /// last tiles run, when they fit (`resident::constants`).
    fn strategies(&self, composites: &[Composite], attributes: &TargetAttrs) -> Vec<Result<Strategy, Error>> {
        let params = match params(attributes) {
            Ok(params) => params,
            Err(e) => return composites.iter().map(|_| Err(e.clone())).collect(),
        };
        let jobs: Vec<Result<jobs::Job, Error>> = composites.iter().map(job_of).collect();
        let records: Vec<Option<Vec<u8>>> = jobs.iter().map(|j| j.as_ref().ok().and_then(jobs::Job::packed)).collect();
        let plan = resident::constants(composites, &records, &params, attributes.bool(PREFETCH));
        let lowered = composites.iter().zip(jobs).zip(plan);
        lowered.map(|((composite, job), constants)| lower(composite, job?, &params, attributes, constants)).collect()
    }

    fn replace_call_extern(&self, call: &ExternCallSite) -> Option<Replacement> {
        [
            &jobs::CONV,
            &jobs::CONV_FOLDED,
            &jobs::DWCONV,
            &jobs::AVG_POOL,
            &jobs::MAX_POOL,
            &jobs::ADD,
            &jobs::SUB,
            &jobs::TABLE,
            &jobs::TABLE16,
        ]
        .into_iter()
        .find_map(|code| code.split_of(&call.callee).map(|split| Replacement::Definition(code.definition(split))))
    }
}

/// The job a composite runs as.
fn job_of(composite: &Composite) -> Result<jobs::Job, Error> {
    match composite.pattern.as_str() {
        "tynnp.conv2d" => jobs::convolution(composite, false),
        "tynnp.depthwise_conv2d" => jobs::convolution(composite, true),
        "tynnp.add" => jobs::eltwise(composite, false),
        "tynnp.sub" => jobs::eltwise(composite, true),
        "tynnp.table" => jobs::table(composite),
        _ => jobs::pool(composite),
    }
}

/// The call of the function that runs `job` for `composite`: its tiles planned in the DM its
/// activations and `constants` leave it.
fn lower(
    composite: &Composite,
    mut job: jobs::Job,
    params: &Params,
    attributes: &TargetAttrs,
    constants: resident::Constants,
) -> Result<Strategy, Error> {
    let residency = resident::residency(composite, params, attributes.bool(FUSE));
    let room = Room {
        params,
        double: attributes.bool(DOUBLE_BUFFER),
        budget: constants.budget.map_or(residency.budget, |b| b.min(residency.budget)),
        preloaded: constants.preloaded,
    };
    let mut values: Vec<(String, i64)> = job.scalars.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    // Copies out (and the constants' copy in) on channel 1, when there is one.
    values.push((codegen::OUT_CHANNEL.to_string(), i64::from(params.dma_channels > 1)));
    // The input or output left in DM by the kernel before or for the kernel after (0: DDR).
    values.push((codegen::IN_DM.to_string(), residency.input.unwrap_or(0)));
    values.push((codegen::OUT_DM.to_string(), residency.output.unwrap_or(0)));
    // The record: copied by this kernel, or already in DM (copied by the kernel before).
    let packed = if constants.preloaded.is_some() { None } else { job.packed() };
    if let Some(record) = &packed {
        values.push((codegen::WEIGHTS_BYTES.to_string(), record.len() as i64));
    }
    if let Some((at, record)) = &constants.next {
        values.push((codegen::DM_NEXT.to_string(), *at));
        values.push((codegen::NEXT_BYTES.to_string(), record.len() as i64));
    }
    let split = if !job.code.elementwise() {
        // The rows of the input in DDR, and in DM (longer when folded).
        let src_row = job.bytes[0] / tiling::lookup(&values, "ih")?.max(1);
        // A convolution is folded when it pays and its (longer) tiles fit DM.
        let fold = if job.code.units {
            None
        } else {
            tiling::fold(&values, i64::from(params.nu_rows), i64::from(params.nu_cols))?
        };
        let folded = fold.and_then(|fold| {
            let mut folded = values.clone();
            for (name, value) in &fold.scalars {
                if let Some(v) = folded.iter_mut().find(|(n, _)| n == name) {
                    v.1 = *value;
                }
            }
            folded.extend(fold.arguments);
            let (layout, split) = tiled_layout(&job, &folded, (src_row, fold.row_bytes), &room).ok()?;
            folded.extend(layout);
            Some((folded, Split { taps: fold.taps, ..split }))
        });
        match folded {
            Some((folded, split)) => {
                (values, job.code) = (folded, &jobs::CONV_FOLDED);
                split
            }
            None => {
                let (layout, split) = tiled_layout(&job, &values, (src_row, src_row), &room)?;
                values.extend(layout);
                split
            }
        }
    } else {
        let (layout, split) = element_layout(&job, &values, &room)?;
        values.extend(layout);
        split
    };
    let split = Split { preloaded: constants.preloaded.is_some(), prefetch: constants.next.is_some(), ..split };
    let mut call = ExternCall::new(&job.code.symbol(split));
    let next = constants.next.map(|(_, record)| ExternArg::Bytes(record));
    let buffers = job.operands.into_iter().chain(packed.map(ExternArg::Bytes)).chain(next);
    for (name, argument) in job.code.buffers(split).iter().zip(buffers) {
        call = call.arg(name, argument);
    }
    for name in job.code.trailing(split) {
        let value = values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| Error::Invalid(format!("{}: no value for {name}", job.code.callee)))?;
        call = call.arg(&name, ExternArg::I32(value));
    }
    Ok(Strategy::Extern(call))
}

fn batch_1(o: &OpView) -> bool {
    o.operand_type(0).is_some_and(|t| t.dims().first() == Some(&1))
}

/// An int8 (depthwise) convolution with constant zero points whose int32 accumulation cannot
/// overflow (`terms(filter dims) · 255 · 255 < 2^31`).
fn convolution(name: &str, terms: fn(&[i64]) -> i64) -> OpPattern {
    op(name)
        // Packed into the job's constant record at compile time.
        .when("a constant filter (or a reshape of one) and bias", |o| {
            let reshaped = |p: OpView| p.name() == "tosa.reshape" && p.operand_is_constant(0);
            (o.operand_is_constant(1) || o.producer(1).is_some_and(reshaped)) && o.operand_is_constant(2)
        })
        .static_rank(0, 4)
        .element_type(0, "i8")
        .element_type(1, "i8")
        .element_type(2, "i32")
        .result_element_type("i32")
        .when("batch 1", batch_1)
        .when("constant zero points", |o| (3..5).all(|i| o.operand_ints(i).is_some_and(|v| v.len() == 1)))
        .when("the int32 accumulation cannot overflow (kernel terms · 255 · 255 < 2^31)", move |o| {
            o.operand_type(1).is_some_and(|w| {
                let d = w.dims();
                d.len() == 4 && terms(&d) * 255 * 255 < 1 << 31
            })
        })
}

/// A `tosa.reshape` of a constant filter (the converter reshapes TFLite's depthwise filters to
/// TOSA's HWCM): it joins the composite, and the job's constants take the bytes, which a
/// reshape leaves in place.
fn filter_reshape() -> OpPattern {
    op("tosa.reshape").role(jobs::FILTER_RESHAPE).operand(0, constant())
}

/// A `tosa.slice` that keeps the leading rows and columns of a convolution's input (what the
/// converter writes in front of a stride-2 convolution whose last row and column it never
/// reads): the job reads the whole tensor instead, without the copy, when the convolution reads
/// nothing past the slice (no bottom or right padding, which the whole tensor would replace by
/// data). Otherwise the slice stays on the control unit.
fn leading_slice() -> OpPattern {
    op("tosa.slice")
        .role("input.slice")
        .static_rank(0, 4)
        .when("starts at 0 and keeps the batch and the channels", |o| {
            let (Some(from), Some(to)) = (o.operand_type(0), o.result_type()) else { return false };
            let (from, to) = (from.dims(), to.dims());
            o.operand_ints(1).is_some_and(|start| start.iter().all(|&s| s == 0)) && from[0] == to[0] && from[3] == to[3]
        })
        .when("the convolution reads no row or column past it", |o| {
            o.only_user().is_some_and(|conv| reads_within_input(&conv))
        })
}

/// Whether a convolution reads only rows and columns of its input (no bottom or right padding).
fn reads_within_input(o: &OpView) -> bool {
    let (Some(input), Some(result), Some(filter)) = (o.operand_type(0), o.result_type(), o.operand_type(1)) else {
        return false;
    };
    let (input, result, filter) = (input.dims(), result.dims(), filter.dims());
    let (Some(stride), Some(dilation), Some(pad)) = (o.ints("stride"), o.ints("dilation"), o.ints("pad")) else {
        return false;
    };
    if [input.len(), result.len(), filter.len(), stride.len(), dilation.len(), pad.len()] != [4, 4, 4, 2, 2, 4] {
        return false;
    }
    // OHWI for conv2d, HWCM for depthwise.
    let (kh, kw) = if o.name() == "tosa.conv2d" { (filter[1], filter[2]) } else { (filter[0], filter[1]) };
    (result[1] - 1) * stride[0] + (kh - 1) * dilation[0] - pad[0] < input[1]
        && (result[2] - 1) * stride[1] + (kw - 1) * dilation[1] - pad[2] < input[2]
}

/// The rescale the output stage performs: int32 to int8, constant scales in its ranges.
fn rescale() -> OpPattern {
    requantize_to_int8().when("constant scales in the output stage's ranges, input zero point 0", |o| {
        let fits = |i: usize, ok: fn(i64) -> bool| o.operand_ints(i).is_some_and(|v| v.iter().all(|&x| ok(x)));
        fits(1, |m| (0..=i64::from(i32::MAX)).contains(&m))
            && fits(2, |s| (2..=62).contains(&s))
            && fits(3, |z| z == 0)
            && o.operand_ints(4).is_some_and(|v| v.len() == 1)
    })
}

/// TFLite's quantized ADD or SUB as the converter writes it, a `vu.eltwise` job: each int8 input
/// rescaled to int32 by a power of two (`(x - zp) << left_shift`) and optionally by its
/// multiplier, the int32 op on equal shapes, the rescale to int8 and an optional clamp.
fn eltwise(name: &str) -> Pattern {
    let root = op(name)
        .element_type(0, "i32")
        .result_element_type("i32")
        .when("static operands of the result's shape (no broadcast)", |o| {
            o.result_type().is_some_and(|r| r.is_static() && (0..2).all(|i| o.operand_type(i) == Some(r.clone())))
        });
    let input = |x: &str| {
        let shift = op("tosa.rescale")
            .role(&format!("{x}.shift"))
            .element_type(0, "i8")
            .result_element_type("i32")
            .attr_is("input_unsigned", "false")
            .when("a rescale of int8 by 2^k (k in 0..=30), output zero point 0", |o| {
                let power = o.operand_ints(1).filter(|m| m.len() == 1).map(|m| m[0]);
                let right = o.operand_ints(2).filter(|s| s.len() == 1).map(|s| s[0]);
                let left = match (power, right) {
                    (Some(m), Some(s)) if m > 0 && m.count_ones() == 1 => i64::from(m.trailing_zeros()) - s,
                    _ => -1,
                };
                (0..=30).contains(&left)
                    && o.operand_ints(3).is_some_and(|z| z.len() == 1)
                    && o.operand_ints(4).is_some_and(|z| z == [0])
            });
        let scale = op("tosa.rescale")
            .role(&format!("{x}.scale"))
            .attr_is("scale32", "true")
            .attr_is("per_channel", "false")
            .element_type(0, "i32")
            .result_element_type("i32")
            .when("a per-tensor int32 rescale in the unit's ranges, zero points 0", |o| {
                let one = |i: usize, ok: fn(i64) -> bool| o.operand_ints(i).is_some_and(|v| v.len() == 1 && ok(v[0]));
                one(1, |m| (0..=i64::from(i32::MAX)).contains(&m))
                    && one(2, |s| (2..=62).contains(&s))
                    && one(3, |z| z == 0)
                    && one(4, |z| z == 0)
            })
            .when(DOUBLE_ROUND_OR_SHORT, double_round_or_short);
        vec![(shift, false), (scale, true)]
    };
    Pattern::new(&format!("{NAME}.{}", &name[5..]), root)
        .input(0, input("x"))
        .input(1, input("y"))
        .then(
            rescale()
                .when("per-tensor", |o| o.operand_ints(1).is_some_and(|m| m.len() == 1))
                .when(DOUBLE_ROUND_OR_SHORT, double_round_or_short),
        )
        .optional(clamp())
}

/// `vu.eltwise` has one rounding flag for its three rescales: DOUBLE_ROUND serves them all when
/// each rounds so or shifts by at most 31 (where the two roundings agree).
const DOUBLE_ROUND_OR_SHORT: &str = "DOUBLE_ROUND, or a shift of at most 31";

fn double_round_or_short(o: &OpView) -> bool {
    o.attr_text("rounding_mode").as_deref() == Some("DOUBLE_ROUND")
        || o.operand_ints(2).is_some_and(|s| s.iter().all(|&s| s <= 31))
}

/// TOSA `table` as `vu.table` runs it: int8 through a constant 256-entry table, or int16 to
/// int32 through a constant 513-entry one, on a static tensor with elements.
fn table() -> OpPattern {
    op("tosa.table")
        .operand(1, constant())
        .when("int8 to int8, or int16 to int32", |o| {
            let (Some(input), Some(result)) = (o.operand_type(0), o.result_type()) else { return false };
            matches!((input.element.as_str(), result.element.as_str()), ("i8", "i8") | ("i16", "i32"))
        })
        .when("a static shape with elements", |o| {
            o.result_type().is_some_and(|r| r.is_static() && r.dims().iter().product::<i64>() > 0)
        })
}

/// A clamp within int8.
fn clamp() -> OpPattern {
    op("tosa.clamp").when("int8 bounds", |o| {
        let int8 = |v: Option<i64>| v.is_some_and(|v| (-128..=127).contains(&v));
        int8(o.int("min_val")) && int8(o.int("max_val"))
    })
}

/// What a job's regions may take: the DM below what stays there across kernels (`budget` bytes
/// from DM's base), its tiles double-buffered or not; `preloaded`: the DM address of its
/// constant record, already there (so its constants take no room of their own).
struct Room<'p> {
    params: &'p Params,
    double: bool,
    budget: i64,
    preloaded: Option<i64>,
}

impl Room<'_> {
    /// The job's constant regions that take room (none when preloaded).
    fn constants(&self, job: &jobs::Job) -> Vec<(String, i64)> {
        if self.preloaded.is_some() { Vec::new() } else { job.constant_regions().collect() }
    }

    /// The DM addresses of the constant regions of a preloaded record, laid out as
    /// `Job::packed` lays them out.
    fn preloaded_regions(&self, job: &jobs::Job) -> Vec<(String, i64)> {
        let Some(at) = self.preloaded else { return Vec::new() };
        let mut end = 0;
        let mut values = Vec::new();
        for (name, bytes) in job.constant_regions() {
            end = (end + 15) / 16 * 16;
            values.push((format!("dm_{name}"), at + end));
            values.push((format!("{name}_bytes"), bytes));
            end += bytes;
        }
        values
    }
}

/// DM addresses for `regions` (name, bytes) in order, each from a 16-byte boundary from DM's
/// base, as `dm_<name>` and `<name>_bytes` values; `Err` with the bytes they need when they do
/// not fit the room's budget.
fn place(regions: &[(String, i64)], room: &Room) -> Result<Vec<(String, i64)>, i64> {
    let mut values = Vec::new();
    let mut end = 0;
    for (name, bytes) in regions {
        values.push((format!("dm_{name}"), i64::from(DM_BASE) + end));
        values.push((format!("{name}_bytes"), *bytes));
        end = (end + bytes + 15) / 16 * 16;
    }
    if end > room.budget { Err(end) } else { Ok(values) }
}

/// The compile error for a job whose `regions` need `need` bytes of DM.
fn capacity(job: &jobs::Job, regions: &[(String, i64)], need: i64, room: &Room, how: &str) -> Error {
    let params = room.params;
    let kept = i64::from(params.dm_bytes) - room.budget;
    let kept = if kept > 0 { format!(", {kept} of them kept for activations between kernels") } else { String::new() };
    let plural = |n: &str| match n {
        "multiplier" => "multipliers".to_string(),
        "shift" => "shifts".to_string(),
        "input" | "output" | "x" | "y" => format!("{n} tile 1"),
        "input1" | "output1" | "x1" | "y1" => format!("{} tile 2", &n[..n.len() - 1]),
        other => other.to_string(),
    };
    let parts: Vec<String> = regions.iter().map(|(n, b)| format!("{} {b}", plural(n))).collect();
    Error::Unsupported(format!(
        "the {}'s tensors need {need} bytes of DM{how} ({}), DM has {} (-dm-kib={}){kept}",
        job.what,
        parts.join(", "),
        params.dm_bytes,
        params.dm_bytes >> 10,
    ))
}

/// Tiles of output rows in which a tiled job runs (`double`-buffered): at least [`TILES`] (or
/// one per output row, when there are fewer), more while the constants and two input and two
/// output tiles do not fit DM (fewer when a tile would read padding only). Returns the DM layout
/// with the tiles' arguments, and the split.
fn tiled_layout(
    job: &jobs::Job,
    values: &[(String, i64)],
    (src_row, in_row): (i64, i64),
    room: &Room,
) -> Result<(Vec<(String, i64)>, Split), Error> {
    let (params, double) = (room.params, room.double);
    let oh = tiling::lookup(values, "oh")?;
    let out_row = job.bytes[job.bytes.len() - 1] / oh.max(1);
    let mut last: Option<(Vec<(String, i64)>, i64)> = None;
    // From TILES tiles (on the vector units, few enough that each unit has a row of each
    // tile) up, then down to one tile when tiles would read padding only.
    let fewest = if job.code.units { (oh / i64::from(params.vu_count)).clamp(1, TILES) } else { TILES.min(oh) };
    for count in (fewest..=oh).chain((1..fewest).rev()) {
        let Some(tiles) = tiling::row_tiles(values, count)? else { continue };
        let max_in = tiles.iter().map(|t| t.rows).max().unwrap_or(0) * in_row;
        let max_out = tiles.iter().map(|t| t.last - t.first).max().unwrap_or(0) * out_row;
        let regions = tile_regions(&["input"], max_in, room.constants(job), max_out, double && tiles.len() > 1);
        match place(&regions, room) {
            Ok(mut layout) => {
                layout.extend(room.preloaded_regions(job));
                let (inputs, outputs) = (buffer_pair(&layout, "input"), buffer_pair(&layout, "output"));
                if !job.code.units {
                    layout.extend(tiling::tile_values(&tiles, (src_row, in_row), out_row, inputs, outputs));
                    return Ok((layout, Split { single: !double, ..Split::bands(tiles.len()) }));
                }
                // As many bands a tile as units, while every tile has an output row for each.
                let fewest = tiles.iter().map(|t| t.last - t.first).min().unwrap_or(1);
                let units = i64::from(params.vu_count).min(fewest).max(1) as usize;
                let window = (tiling::lookup(values, "stride_y")?, tiling::lookup(values, "pad_top")?);
                layout.extend(tiling::unit_tile_values(&tiles, units, window, (in_row, out_row), inputs, outputs));
                return Ok((layout, Split { units, single: !double, ..Split::bands(tiles.len()) }));
            }
            // The error names the plan that needs the least.
            Err(need) if last.as_ref().is_none_or(|(_, least)| need < *least) => last = Some((regions, need)),
            Err(_) => {}
        }
    }
    let (regions, need) = last.ok_or_else(|| Error::Invalid(format!("no tiling of the {}'s output rows", job.what)))?;
    Err(capacity(job, &regions, need, room, " even in tiles of one output row, double-buffered"))
}

/// Tiles of whole vectors in which an elementwise job runs (`double`-buffered), each in bands
/// over the vector units: [`ELEMENT_TILES`] tiles (one for a single vector), more while two
/// tiles of `x`, `y` and the output do not fit DM. Returns the DM layout with the tiles'
/// arguments, and the split.
fn element_layout(
    job: &jobs::Job,
    values: &[(String, i64)],
    room: &Room,
) -> Result<(Vec<(String, i64)>, Split), Error> {
    let (params, double) = (room.params, room.double);
    let count = tiling::lookup(values, "count")?;
    if count < 1 {
        return Err(Error::Unsupported(format!("the {} has no elements", job.what)));
    }
    let (in_bytes, out_bytes) = job.code.element_bytes;
    let inputs = job.code.tile_inputs();
    let (lanes, units) = (i64::from(params.vu_lanes), i64::from(params.vu_count));
    let vectors = (count + lanes - 1) / lanes;
    let mut least: Option<(Vec<(String, i64)>, i64)> = None;
    for tiles in ELEMENT_TILES.min(vectors)..=vectors {
        // The longest tile, without planning every tile of every count tried.
        let longest = ((vectors + tiles - 1) / tiles * lanes).min(count);
        let (tile_in, tile_out) = (longest * in_bytes, longest * out_bytes);
        let regions = tile_regions(&inputs, tile_in, room.constants(job), tile_out, double && longest < count);
        match place(&regions, room) {
            Ok(mut layout) => {
                layout.extend(room.preloaded_regions(job));
                let plan = tiling::element_tiles(count, tiles, lanes);
                let fewest = plan.iter().map(|t| (t.1 + lanes - 1) / lanes).min().unwrap_or(1);
                let bands = units.min(fewest).max(1) as usize;
                let pairs: Vec<[i64; 2]> = inputs.iter().map(|name| buffer_pair(&layout, name)).collect();
                let buffers = (pairs.as_slice(), buffer_pair(&layout, "output"));
                let fields = job.code.banded;
                layout.extend(tiling::element_tile_values(
                    &plan,
                    (bands, lanes),
                    fields,
                    buffers,
                    (in_bytes, out_bytes),
                ));
                return Ok((layout, Split { units: bands, single: !double, ..Split::bands(plan.len()) }));
            }
            Err(need) if least.as_ref().is_none_or(|(_, l)| need < *l) => least = Some((regions, need)),
            Err(_) => {}
        }
    }
    let (regions, need) = least.ok_or_else(|| Error::Invalid(format!("no tiling of the {}", job.what)))?;
    Err(capacity(job, &regions, need, room, " even in tiles of few vectors, double-buffered"))
}

/// The DM regions of a double-buffered job: each input tiled (`in_bytes` a tile; `<name>1`, its
/// second buffer, when `double`), then `others`, then the output tiles (`out_bytes`) likewise.
fn tile_regions(
    inputs: &[&str],
    in_bytes: i64,
    others: impl IntoIterator<Item = (String, i64)>,
    out_bytes: i64,
    double: bool,
) -> Vec<(String, i64)> {
    let tiled = |name: &str, bytes: i64| {
        let second = double.then(|| (format!("{name}1"), bytes));
        std::iter::once((name.to_string(), bytes)).chain(second)
    };
    let mut regions: Vec<(String, i64)> = inputs.iter().flat_map(|name| tiled(name, in_bytes)).collect();
    regions.extend(others);
    regions.extend(tiled("output", out_bytes));
    regions
}

/// The DM addresses of a tiled buffer's two tile buffers in `layout` (the same one twice when
/// the job is in one tile).
fn buffer_pair(layout: &[(String, i64)], name: &str) -> [i64; 2] {
    let dm = |name: String| layout.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let first = dm(format!("dm_{name}")).unwrap_or(0);
    [first, dm(format!("dm_{name}1")).unwrap_or(first)]
}

/// The tiles an elementwise job runs in when they fit: two, so the copies of one overlap the
/// bands of the other; the job is bound by DDR, and more tiles only add their latencies (IC's
/// adds: 4 tiles 85,958 cycles, 2 tiles 85,331, 1 tile 85,717).
const ELEMENT_TILES: i64 = 2;

/// The attribute that switches the next kernel's constants copied during this one off.
const PREFETCH: &str = "prefetch";

/// The attribute that switches activations kept in DM between kernels off.
const FUSE: &str = "fuse";

/// The attribute that switches double buffering off.
const DOUBLE_BUFFER: &str = "double-buffer";

/// The fewest tiles a tiled job runs in: enough for the copies of one tile to overlap the job
/// of another.
const TILES: i64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// All of DM, double-buffered.
    fn room(params: &Params) -> Room<'_> {
        Room { params, double: true, budget: i64::from(params.dm_bytes), preloaded: None }
    }

    #[test]
    fn constants_pack_as_their_dm_regions_lie() {
        // A 20-byte filter, two int32 biases, one multiplier and one shift: in the record and in
        // DM from 16-byte boundaries, 0, 32, 48 and 64 apart, zeros between; 65 bytes.
        let bias = jobs::bytes_of(&[0x0102_0304, -2], 4);
        assert_eq!(bias, [4, 3, 2, 1, 254, 255, 255, 255]);
        let job = jobs::Job {
            code: &jobs::CONV,
            what: "convolution",
            operands: Vec::new(),
            constants: vec![vec![7; 20], bias.clone(), jobs::bytes_of(&[1 << 30], 4), vec![33]],
            scalars: Vec::new(),
            bytes: Vec::new(),
        };
        let record = job.packed().unwrap();
        let mut expected = vec![7; 20];
        expected.extend([0; 12]);
        expected.extend(&bias);
        expected.extend([0; 8]);
        expected.extend([0, 0, 0, 64]);
        expected.extend([0; 12]);
        expected.push(33);
        assert_eq!(record, expected);
        let regions: Vec<(String, i64)> = job.constant_regions().collect();
        let params = Params::default();
        let layout = place(&regions, &room(&params)).unwrap();
        let dm: Vec<i64> = layout.iter().step_by(2).map(|(_, at)| at - i64::from(DM_BASE)).collect();
        assert_eq!(dm, [0, 32, 48, 64]);
        // A job without constants copies none.
        let pool = jobs::Job { code: &jobs::AVG_POOL, constants: Vec::new(), ..job };
        assert_eq!(pool.packed(), None);
    }

    #[test]
    fn split_symbols_name_every_split_once() {
        let split = |bands, taps, units, single| Split { taps, units, single, ..Split::bands(bands) };
        for (code, split, symbol) in [
            (&jobs::CONV, split(4, 0, 0, false), "tynnp_conv2d_t4"),
            (&jobs::CONV, split(4, 0, 0, true), "tynnp_conv2d_t4_single"),
            (&jobs::CONV_FOLDED, split(6, 3, 0, true), "tynnp_conv2d_folded_k3_t6_single"),
            (&jobs::DWCONV, split(2, 0, 4, false), "tynnp_dwconv2d_x4_t2"),
            (&jobs::ADD, split(2, 0, 4, true), "tynnp_add_x4_t2_single"),
            (&jobs::CONV, Split { preloaded: true, ..split(4, 0, 0, false) }, "tynnp_conv2d_t4_pl"),
            (&jobs::DWCONV, Split { prefetch: true, ..split(2, 0, 4, true) }, "tynnp_dwconv2d_x4_t2_single_pf"),
            (&jobs::CONV, Split { preloaded: true, prefetch: true, ..split(1, 0, 0, false) }, "tynnp_conv2d_t1_pl_pf"),
        ] {
            assert_eq!(code.symbol(split), symbol);
            assert_eq!(code.split_of(symbol), Some(split));
        }
        for wrong in ["tynnp_conv2d_t4_single_single", "tynnp_conv2d_single", "tynnp_conv2d_t0", "tynnp_conv2d_x4_t2"] {
            assert_eq!(jobs::CONV.split_of(wrong), None, "{wrong}");
        }
        // Suffixes in their order only; a pooling has no constants to find preloaded.
        assert_eq!(jobs::CONV.split_of("tynnp_conv2d_t4_pf_pl"), None);
        assert_eq!(jobs::MAX_POOL.split_of("tynnp_max_pool2d_x4_t1_pl"), None);
        assert!(jobs::MAX_POOL.split_of("tynnp_max_pool2d_x4_t1_pf").is_some());
    }

    #[test]
    fn elementwise_tiles_shrink_until_they_fit() {
        // 512 elements (32 vectors) on 4 units of 16 lanes. With 256 KiB: two tiles of 256,
        // four bands each. With 1 KiB: two tiles need 6 x 256 bytes; four tiles of 128 (6 x 128
        // + 32 bytes of scales) fit.
        let job = jobs::Job {
            code: &jobs::ADD,
            what: "elementwise op",
            operands: Vec::new(),
            constants: vec![vec![0; 4], vec![0]],
            scalars: Vec::new(),
            bytes: vec![512, 512, 512],
        };
        let values = vec![("count".to_string(), 512)];
        let split = |dm: &str| element_layout(&job, &values, &room(&Params::parse(dm).unwrap())).unwrap().1;
        assert_eq!(split(""), Split { units: 4, ..Split::bands(2) });
        assert_eq!(split("-dm-kib=1"), Split { units: 4, ..Split::bands(4) });
        let (layout, _) = element_layout(&job, &values, &room(&Params::parse("-dm-kib=1").unwrap())).unwrap();
        let dm = |name: &str| layout.iter().find(|(n, _)| n == name).map(|(_, v)| v - i64::from(DM_BASE));
        // x, x1, y, y1 of 128 bytes, the multiplier and shift, the two output tiles.
        let at: Vec<Option<i64>> =
            ["dm_x", "dm_x1", "dm_y", "dm_y1", "dm_multiplier", "dm_shift", "dm_output", "dm_output1"].map(dm).to_vec();
        let expected: Vec<Option<i64>> = [0, 128, 256, 384, 512, 528, 544, 672].map(Some).to_vec();
        assert_eq!(at, expected);
    }
}
