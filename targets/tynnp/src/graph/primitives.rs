//! The `tynnp` dialect: one primitive op per kind of NPU job (targets/tynnp/docs/isa.md, section 5),
//! on tensors. Each op's operands are the tensors the job copies in tile by tile, then its
//! constants (filter, bias, multipliers, shifts, table) as the job reads them in DM; its integer
//! attributes are the descriptor's fields that the types do not give, by the contract's names.
//!
//! | op | job | operands | attributes |
//! |---|---|---|---|
//! | `tynnp.conv2d` | `nu.conv` | input `[1,ih,iw,ic]` i8, filter `[oc,kh,kw,ic]` i8, bias `[oc]` i32, multiplier, shift | zero points, strides, dilations, `pad_top`, `pad_left`, `out_flags`, `output_zp`, `min`, `max`; `pixels` when packed |
//! | `tynnp.depthwise_conv2d` | `vu.dwconv` | input, filter `[kh,kw,c,mult]`, bias `[c·mult]`, multiplier, shift | as `conv2d` |
//! | `tynnp.avg_pool2d`, `tynnp.max_pool2d` | `vu.pool` | input | `kh`, `kw`, strides, `pad_top`, `pad_left`, zero points, `min`, `max` |
//! | `tynnp.add`, `tynnp.sub` | `vu.eltwise` | x, y (i8, one shape), multiplier `[1]` i32, shift `[1]` i8 | per input: zero point, left shift, multiplier, shift; `out_flags`, `output_zp`, `min`, `max` |
//! | `tynnp.table` | `vu.table` | input i8 and a 256-entry i8 table, or i16 and 513 i16 entries | none |
//!
//! Bottom and right padding are implicit as in the hardware: a tap outside the input reads the
//! input zero point (a window op may read fewer rows than its input has: a slice folded in).
//! The output stage is the contract's: multiplier and shift per channel when `out_flags` bit 0
//! is set (else one for all), bit 1 double rounding, bit 2 raw int32 accumulators.
//! A `tynnp.conv2d` with `pixels = P` packs `P` adjacent output pixels into one of the job's
//! (`pixels.rs`): its filter `[P·oc, kh, W, ic]`, bias and per-channel scales are the job's, and
//! so are `stride_x` and the window; its result is the model's `[1, oh, ow, oc]`, which the job
//! writes as `[oh][ow/P][P·oc]`, the same bytes.
//! `umac-primitives-tynnp` forms them from composites (through the job each composite runs as),
//! `umac-legalize-tynnp` lowers them to the control unit's calls, and `umac-reference-tynnp`
//! lowers them to TOSA (what they compute, for the host).

use crate::{
    graph::pixels::PIXELS,
    kernel::jobs::{self, Job, bytes_of},
};
use umac_backend::{Composite, Error, ExternArg, OpView, Primitive, PrimitiveArg, TargetAttrs};

/// The ops, as their composites are named.
pub const OPS: [&str; 7] = [
    "tynnp.conv2d",
    "tynnp.depthwise_conv2d",
    "tynnp.avg_pool2d",
    "tynnp.max_pool2d",
    "tynnp.add",
    "tynnp.sub",
    "tynnp.table",
];

/// The job code of primitive op `name` (a table by its result type).
fn code_of(op: &OpView) -> Option<&'static crate::kernel::code::JobCode> {
    Some(match op.name().as_str() {
        "tynnp.conv2d" => &jobs::CONV,
        "tynnp.depthwise_conv2d" => &jobs::DWCONV,
        "tynnp.avg_pool2d" => &jobs::AVG_POOL,
        "tynnp.max_pool2d" => &jobs::MAX_POOL,
        "tynnp.add" => &jobs::ADD,
        "tynnp.sub" => &jobs::SUB,
        "tynnp.table" if op.result_type().is_some_and(|t| t.element == "i32") => &jobs::TABLE16,
        "tynnp.table" => &jobs::TABLE,
        _ => return None,
    })
}

/// How many operands are tensors copied in tile by tile (the rest are constants).
fn tiled(name: &str) -> usize {
    if matches!(name, "tynnp.add" | "tynnp.sub") { 2 } else { 1 }
}

/// The descriptor scalars of `op` its types give ([`given_names`]), with their values.
fn derived(op: &OpView) -> Vec<(&'static str, i64)> {
    let dims = |t: Option<umac_backend::TensorType>| t.map(|t| t.dims()).unwrap_or_default();
    let (input, result, filter) = (dims(op.operand_type(0)), dims(op.result_type()), dims(op.operand_type(1)));
    let at = |d: &[i64], i: usize| d.get(i).copied().unwrap_or(0);
    // The descriptor's (oc, kh, kw): for depthwise (mult, kh, kw) from HWCM.
    let [oc, kh, kw] = if op.name() == "tynnp.depthwise_conv2d" { [3, 0, 1] } else { [0, 1, 2] };
    let value = |name: &str| match name {
        "ih" => at(&input, 1),
        "iw" => at(&input, 2),
        "ic" | "c" => at(&input, 3),
        "oc" => at(&filter, oc),
        "kh" => at(&filter, kh),
        "kw" => at(&filter, kw),
        "oh" => at(&result, 1),
        // Packed pixels: the job's output pixels are groups of them.
        "ow" => at(&result, 2) / pixels_of(op),
        _ => result.iter().product(),
    };
    given_names(&op.name()).iter().map(|&name| (name, value(name))).collect()
}

/// The output pixels a primitive op packs into the NU's columns (`pixels.rs`): 1 unless it says.
fn pixels_of(op: &OpView) -> i64 {
    op.int(PIXELS).unwrap_or(1).max(1)
}

/// The primitive op `composite` becomes: its job's descriptor and constants (`None` when it is
/// one already), with the `attributes` of the target (which NPU, what to pack).
pub fn primitive(composite: &Composite, attributes: &TargetAttrs) -> Result<Option<Primitive>, Error> {
    if OPS.contains(&composite.last().name().as_str()) {
        return Ok(None);
    }
    // Its constants in the layout of the job: output pixels packed into the NU's columns when
    // that pays (and the target lets it).
    let params = crate::target::params(attributes)?;
    let job = crate::graph::pixels::pack(
        crate::graph::job_of(composite)?,
        &params,
        attributes.bool(crate::graph::pixels::PACK),
    )?;
    let mut operands: Vec<PrimitiveArg> = job
        .operands
        .iter()
        .map(|argument| match argument {
            ExternArg::Operand { role, index } => Ok(PrimitiveArg::Operand { role: role.clone(), index: *index }),
            other => Err(Error::Invalid(format!("a tiled operand {other:?}"))),
        })
        .collect::<Result<_, _>>()?;
    // The filter's shape: the convolution's (after a reshape the composite folds), or the
    // packed job's.
    let convolution = composite.get("tosa.conv2d").or(composite.get("tosa.depthwise_conv2d"));
    let mut filter = convolution.and_then(|c| c.operand_type(1)).map(|t| t.dims()).unwrap_or_default();
    let pixels = job.pixels;
    if pixels > 1 {
        filter = ["oc", "kh", "kw", "ic"].iter().map(|n| job.scalar(n)).collect::<Result<_, _>>()?;
    }
    for (region, bytes) in job.code.packed.iter().zip(&job.constants) {
        let (element, width, shape) = match *region {
            "filter" => ("i8", 1, filter.clone()),
            "bias" | "multiplier" => ("i32", 4, vec![bytes.len() as i64 / 4]),
            "table" if job.code.element_bytes.0 == 2 => ("i16", 2, vec![bytes.len() as i64 / 2]),
            _ => ("i8", 1, vec![bytes.len() as i64]),
        };
        // Little-endian, sign-extended.
        let values = bytes
            .chunks(width)
            .map(|c| {
                let shift = 64 - 8 * c.len();
                (c.iter().rev().fold(0i64, |v, &b| (v << 8) | i64::from(b)) << shift) >> shift
            })
            .collect();
        operands.push(PrimitiveArg::Constant { shape, element, values });
    }
    let name = composite.pattern.clone();
    let names = attribute_names(&name, job.code);
    let mut attributes: Vec<(String, i64)> =
        job.scalars.iter().filter(|(n, _)| names.contains(n)).map(|(n, v)| (n.to_string(), *v)).collect();
    if pixels > 1 {
        attributes.push((PIXELS.to_string(), pixels));
    }
    Ok(Some(Primitive { op: name, operands, attributes }))
}

/// The attributes of primitive `name` running `code`: the code's scalars its types do not give.
pub fn attribute_names(name: &str, code: &crate::kernel::code::JobCode) -> Vec<&'static str> {
    let given = given_names(name);
    code.scalars.iter().copied().filter(|n| !given.contains(n)).collect()
}

/// The descriptor scalars primitive `name`'s types give.
fn given_names(name: &str) -> &'static [&'static str] {
    match name {
        "tynnp.conv2d" | "tynnp.depthwise_conv2d" => &["ih", "iw", "ic", "oc", "kh", "kw", "oh", "ow"],
        "tynnp.avg_pool2d" | "tynnp.max_pool2d" => &["ih", "iw", "c", "oh", "ow"],
        _ => &["count"],
    }
}

/// The job a primitive op runs as.
pub fn job(op: &OpView) -> Result<Job, Error> {
    let code = code_of(op).ok_or_else(|| Error::Invalid(format!("{} is no tynnp job", op.name())))?;
    let given = derived(op);
    let scalars = code
        .scalars
        .iter()
        .map(|&name| match given.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Ok((name, *v)),
            None => op.int(name).map(|v| (name, v)).ok_or_else(|| Error::Invalid(format!("no attribute {name}"))),
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let tiled = tiled(&op.name());
    let constants = (tiled..op.operand_count())
        .map(|i| {
            let width = op.operand_type(i).map_or(1, |t| element_bytes(&t.element));
            let values =
                op.operand_ints(i).ok_or_else(|| Error::Unsupported(format!("operand #{i} is not a constant")))?;
            Ok(bytes_of(&values, width as usize))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let bytes_of_type = |t: Option<umac_backend::TensorType>| {
        t.map_or(0, |t| t.dims().iter().product::<i64>() * element_bytes(&t.element))
    };
    let mut bytes: Vec<i64> = (0..tiled).map(|i| bytes_of_type(op.operand_type(i))).collect();
    bytes.push(bytes_of_type(op.result_type()));
    let operands = (0..tiled).map(|index| ExternArg::Operand { role: op.name(), index }).collect();
    Ok(Job { code, operands, constants, scalars, bytes, pixels: pixels_of(op) })
}

/// The bytes of an element of `element` (`i8`, `i16` or `i32`).
fn element_bytes(element: &str) -> i64 {
    match element {
        "i32" => 4,
        "i16" => 2,
        _ => 1,
    }
}

mod reference;
mod verify;
pub use reference::reference;
pub use verify::verify;
