//! `umac-slice-filters-tynnp{attributes="..."}`: a convolution whose filter DM cannot hold, even
//! with tiles of one output row, becomes convolutions on slices of its output channels, each
//! with its slice of the filter, bias and output stage, joined by a `tosa.concat` of their int8
//! results (the weight streaming of Arm's Vela, as a rewrite of the graph before partitioning).
//!
//! ```mlir
//! %0 = tosa.conv2d %x, %w, %b, %zp, %wzp : (..., tensor<160x1x1x640xi8>, ...) -> tensor<1x1x1x160xi32>
//! %1 = tosa.rescale %0, %m, %s, %z, %oz : ... -> tensor<1x1x1x160xi8>
//! // becomes, with a 64 KiB DM (slices of 48 channels: 30 KB of filter each, at most half of DM)
//! %c0 = tosa.conv2d %x, %w0, %b0, %zp, %wzp : (..., tensor<48x1x1x640xi8>, ...) -> tensor<1x1x1x48xi32>
//! %r0 = tosa.rescale %c0, %m0, %s0, %z, %oz : ... -> tensor<1x1x1x48xi8>
//! ...
//! %1 = tosa.concat %r0, %r1, %r2, %r3 {axis = 3 : i32} : ... -> tensor<1x1x1x160xi8>
//! ```
//!
//! It takes the convolutions tynnp's pattern takes (`patterns.rs`: int8, a constant filter or a
//! reshape of one, a constant bias, batch 1) followed by their rescale to int8 and an optional
//! clamp, each the only user of the op before. A convolution is sliced when its filter record
//! with two input and two output tiles of one output row (what `umac-tile-tynnp` needs at the
//! least) exceeds DM; each slice takes as many output channels (a multiple of the NU's columns
//! when there are that many) as leave at least half of DM to what runs beside it (the next
//! kernel's constants, activations kept between kernels). Where even one channel does not fit,
//! nothing changes and scheduling reports the sizes. The results are the same bytes: each output
//! channel is computed from the same inputs, filter row, bias and scale.

use crate::target::params;
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_backend::{Error, GraphStep, OpView, TargetAttrs};
use umac_dialects::ir::{build, collect, op_name};

/// The pass.
pub(crate) const STEP: GraphStep = GraphStep {
    name: "slice-filters",
    summary: "Split each convolution whose filter DM cannot hold into convolutions on slices of its output channels, joined by a tosa.concat",
    run,
};

/// A convolution's sizes, as its DM regions take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    /// Output channels, and the filter's bytes per output channel (`kh · kw · ic`).
    pub oc: i64,
    pub per_channel: i64,
    /// Whether the bias, multipliers and shifts are per channel.
    pub channel_bias: bool,
    pub channel_scales: bool,
    /// The bytes of the input rows one output row reads, and of one output channel's row.
    pub in_row: i64,
    pub out_row: i64,
}

fn align(bytes: i64) -> i64 {
    (bytes + 15) / 16 * 16
}

impl Sizes {
    /// The DM a slice of `c` output channels needs at the least: its constants and two input
    /// and two output tiles of one output row.
    pub fn need(&self, c: i64) -> i64 {
        let per = |channel: bool| if channel { c } else { 1 };
        let record = align(c * self.per_channel)
            + align(4 * per(self.channel_bias))
            + align(4 * per(self.channel_scales))
            + align(per(self.channel_scales));
        record + 2 * align(self.in_row) + 2 * align(c * self.out_row)
    }

    /// The output channels of each slice for a DM of `dm` bytes and an NU of `columns`; `None`
    /// when the whole convolution fits, or when not even one channel does.
    pub fn slices(&self, dm: i64, columns: i64) -> Option<i64> {
        if self.need(self.oc) <= dm {
            return None;
        }
        let most = |room: i64| (1..self.oc).rev().find(|&c| self.need(c) <= room);
        let c = most(dm / 2).or_else(|| most(dm))?;
        Some(if c >= columns { c / columns * columns } else { c })
    }
}

/// The chain a slice repeats: the convolution, its rescale, the clamp when there is one.
struct Chain<'c, 'a> {
    conv: OpView<'c, 'a>,
    rescale: OpView<'c, 'a>,
    clamp: Option<OpView<'c, 'a>>,
    filter: Vec<i64>,
    sizes: Sizes,
}

fn run(module: OperationRef, attributes: &TargetAttrs) -> Result<(), Error> {
    let params = params(attributes)?;
    let convs = collect(module, |op| op_name(op) == "tosa.conv2d");
    for conv in convs {
        // SAFETY: the op was collected from the live module and is changed only here.
        let conv = unsafe { OperationRef::from_raw(conv) };
        let Some(chain) = chain(OpView::new(conv)) else { continue };
        let Some(c) = chain.sizes.slices(i64::from(params.dm_bytes), i64::from(params.nu_cols)) else { continue };
        // SAFETY: every op of the chain is alive; `slice` builds in their context.
        unsafe { slice(&chain, c) };
    }
    Ok(())
}

/// The chain at `conv` when it is one tynnp takes and can slice.
fn chain<'c, 'a>(conv: OpView<'c, 'a>) -> Option<Chain<'c, 'a>> {
    let input = conv.operand_type(0)?.dims();
    let result = conv.result_type()?;
    let filter_type = conv.operand_type(1)?;
    let [oc, kh, kw, ic] = <[i64; 4]>::try_from(filter_type.dims()).ok()?;
    if input.len() != 4 || input[0] != 1 || !result.is_static() || conv.operand_type(0)?.element != "i8" {
        return None;
    }
    let filter = match conv.operand_ints(1) {
        Some(values) => values,
        None => conv.producer(1).filter(|p| p.name() == "tosa.reshape" && p.only_user().is_some())?.operand_ints(0)?,
    };
    let bias = conv.operand_ints(2)?;
    let rescale = conv.only_user().filter(|r| r.name() == "tosa.rescale")?;
    let (multipliers, shifts) = (rescale.operand_ints(1)?, rescale.operand_ints(2)?);
    let per_channel = |n: usize| n == oc as usize;
    let element = |op: &OpView, i: usize| op.operand_type(i).map(|t| t.element);
    if filter.len() as i64 != oc * kh * kw * ic
        || !(bias.len() == 1 || per_channel(bias.len()))
        || multipliers.len() != shifts.len()
        || !(multipliers.len() == 1 || per_channel(multipliers.len()))
        || rescale.result_type()?.element != "i8"
        // The constants the slices rebuild: an int8 filter, an int32 bias, int16 or int32
        // multipliers, int8 shifts.
        || element(&conv, 1).as_deref() != Some("i8")
        || element(&conv, 2).as_deref() != Some("i32")
        || !matches!(element(&rescale, 1).as_deref(), Some("i16" | "i32"))
        || element(&rescale, 2).as_deref() != Some("i8")
    {
        return None;
    }
    let clamp = rescale.only_user().filter(|c| c.name() == "tosa.clamp");
    let dilation = conv.ints("dilation")?;
    let [_, _, ow, _] = <[i64; 4]>::try_from(result.dims()).ok()?;
    let sizes = Sizes {
        oc,
        per_channel: kh * kw * ic,
        channel_bias: per_channel(bias.len()),
        channel_scales: per_channel(multipliers.len()),
        in_row: ((kh - 1) * dilation.first().copied()? + 1) * input[2] * ic,
        out_row: ow,
    };
    Some(Chain { conv, rescale, clamp, filter, sizes })
}

/// Replaces the chain by slices of `c` output channels (the last the rest) and their concat.
///
/// # Safety
/// The chain's ops must be alive.
unsafe fn slice(chain: &Chain, c: i64) {
    // SAFETY: the caller's contract; every op built here takes values of the chain's block and
    // types and attributes of its context, and is inserted before the chain's last op, which
    // every value used dominates.
    unsafe {
        let last = chain.clamp.as_ref().unwrap_or(&chain.rescale).operation().to_raw();
        let conv = chain.conv.operation().to_raw();
        let rescale = chain.rescale.operation().to_raw();
        let location = mlirOperationGetLocation(conv);
        let context = mlirLocationGetContext(location);
        let block = mlirOperationGetBlock(last);
        let insert = |op: MlirOperation| {
            mlirBlockInsertOwnedOperationBefore(block, last, op);
            mlirOperationGetResult(op, 0)
        };
        let Sizes { oc, per_channel, .. } = chain.sizes;
        let mut parts = Vec::new();
        for first in (0..oc).step_by(c as usize) {
            let end = (first + c).min(oc);
            let channels = end - first;
            // A per-channel operand's slice as a new constant, else the operand as it is.
            let sliced = |op: MlirOperation, index: isize, values: Option<Vec<i64>>| {
                let operand = mlirOperationGetOperand(op, index);
                match values {
                    Some(values) if values.len() as i64 == oc => {
                        let element = mlirShapedTypeGetElementType(mlirValueGetType(operand));
                        insert(constant(location, &[channels], element, &values[first as usize..end as usize]))
                    }
                    _ => operand,
                }
            };
            let conv_filter = mlirValueGetType(mlirOperationGetOperand(conv, 1));
            let mut filter_dims: Vec<i64> = (0..4).map(|d| mlirShapedTypeGetDimSize(conv_filter, d)).collect();
            filter_dims[0] = channels;
            let filter = insert(constant(
                location,
                &filter_dims,
                mlirShapedTypeGetElementType(conv_filter),
                &chain.filter[(first * per_channel) as usize..(end * per_channel) as usize],
            ));
            let bias = sliced(conv, 2, chain.conv.operand_ints(2));
            let operands = [mlirOperationGetOperand(conv, 0), filter, bias, operand(conv, 3), operand(conv, 4)];
            let sliced_conv = insert(like(conv, &operands, channels));
            let multipliers = sliced(rescale, 1, chain.rescale.operand_ints(1));
            let shifts = sliced(rescale, 2, chain.rescale.operand_ints(2));
            let operands = [sliced_conv, multipliers, shifts, operand(rescale, 3), operand(rescale, 4)];
            let mut part = insert(like(rescale, &operands, channels));
            if let Some(clamp) = &chain.clamp {
                part = insert(like(clamp.operation().to_raw(), &[part], channels));
            }
            parts.push(part);
        }
        let axis = mlirIntegerAttrGet(mlirIntegerTypeGet(context, 32), 3);
        let result = mlirOperationGetResult(last, 0);
        let concat = insert(build("tosa.concat", location, &parts, &[mlirValueGetType(result)], &[("axis", axis)]));
        mlirValueReplaceAllUsesOfWith(result, concat);
        // The chain, then the constants only it read.
        let mut dead = vec![last];
        if chain.clamp.is_some() {
            dead.push(rescale);
        }
        dead.push(conv);
        for op in dead {
            let inputs: Vec<MlirValue> =
                (0..mlirOperationGetNumOperands(op)).map(|i| mlirOperationGetOperand(op, i)).collect();
            mlirOperationDestroy(op);
            for value in inputs {
                erase_unused_producer(value);
            }
        }
    }
}

/// Operand `index` of `op`.
///
/// # Safety
/// `op` must be alive.
unsafe fn operand(op: MlirOperation, index: isize) -> MlirValue {
    // SAFETY: the caller's contract.
    unsafe { mlirOperationGetOperand(op, index) }
}

/// An op like `op` (its name, attributes and location) on `operands`, its result of `op`'s type
/// with `channels` in the last dimension.
///
/// # Safety
/// `op` and the operands must be alive, of one context.
unsafe fn like(op: MlirOperation, operands: &[MlirValue], channels: i64) -> MlirOperation {
    // SAFETY: the caller's contract; the attributes' names are copied out of the live op.
    unsafe {
        let ty = mlirValueGetType(mlirOperationGetResult(op, 0));
        let rank = mlirShapedTypeGetRank(ty);
        let mut dims: Vec<i64> = (0..rank as isize).map(|d| mlirShapedTypeGetDimSize(ty, d)).collect();
        if let Some(channel) = dims.last_mut() {
            *channel = channels;
        }
        let result = mlirRankedTensorTypeGet(
            rank as isize,
            dims.as_ptr(),
            mlirShapedTypeGetElementType(ty),
            mlirAttributeGetNull(),
        );
        let named: Vec<(String, MlirAttribute)> = (0..mlirOperationGetNumAttributes(op))
            .map(|i| {
                let attribute = mlirOperationGetAttribute(op, i);
                let name = mlirIdentifierStr(attribute.name);
                let name = std::slice::from_raw_parts(name.data.cast::<u8>(), name.length);
                (String::from_utf8_lossy(name).into_owned(), attribute.attribute)
            })
            .collect();
        let attributes: Vec<(&str, MlirAttribute)> = named.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        build(&op_name(&OperationRef::from_raw(op)), mlirOperationGetLocation(op), operands, &[result], &attributes)
    }
}

/// A `tosa.const` of `values` in a tensor of `dims` and `element`.
///
/// # Safety
/// The location and element type must be alive and of one context; `element` is an integer type
/// of 8, 16 or 32 bits (`chain` checks the operands it rebuilds).
unsafe fn constant(location: MlirLocation, dims: &[i64], element: MlirType, values: &[i64]) -> MlirOperation {
    // SAFETY: the caller's contract; each buffer holds exactly the type's element count.
    unsafe {
        let ty = mlirRankedTensorTypeGet(dims.len() as isize, dims.as_ptr(), element, mlirAttributeGetNull());
        let n = values.len() as isize;
        let attribute = match mlirIntegerTypeGetWidth(element) {
            8 => mlirDenseElementsAttrInt8Get(ty, n, values.iter().map(|&v| v as i8).collect::<Vec<_>>().as_ptr()),
            16 => mlirDenseElementsAttrInt16Get(ty, n, values.iter().map(|&v| v as i16).collect::<Vec<_>>().as_ptr()),
            _ => mlirDenseElementsAttrInt32Get(ty, n, values.iter().map(|&v| v as i32).collect::<Vec<_>>().as_ptr()),
        };
        build("tosa.const", location, &[], &[ty], &[("values", attribute)])
    }
}

/// Erases the op producing `value` when nothing uses it any more (a constant, or a reshape of
/// one), and so on up.
///
/// # Safety
/// `value` must be alive.
unsafe fn erase_unused_producer(value: MlirValue) {
    // SAFETY: the caller's contract; an op is destroyed only when its result has no use.
    unsafe {
        if !mlirValueIsAOpResult(value) || !mlirValueGetFirstUse(value).ptr.is_null() {
            return;
        }
        let op = mlirOpResultGetOwner(value);
        let kind = op_name(&OperationRef::from_raw(op));
        if !matches!(kind.as_str(), "tosa.const" | "tosa.const_shape" | "tosa.reshape") {
            return;
        }
        let inputs: Vec<MlirValue> =
            (0..mlirOperationGetNumOperands(op)).map(|i| mlirOperationGetOperand(op, i)).collect();
        mlirOperationDestroy(op);
        for input in inputs {
            erase_unused_producer(input);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sizes;

    /// AD's first fully connected layer (640 inputs, 128 outputs, per-tensor scales): 83,232
    /// bytes of DM with one input row of 640 and an output row of 128, both double-buffered.
    const AD: Sizes =
        Sizes { oc: 128, per_channel: 640, channel_bias: true, channel_scales: false, in_row: 640, out_row: 1 };

    #[test]
    fn a_slice_leaves_half_of_dm() {
        // The filter, the bias, a multiplier and a shift (each from a 16-byte boundary), two
        // input rows and two output rows.
        assert_eq!(AD.need(128), 81_920 + 512 + 16 + 16 + 1_280 + 256);
        // Fits in 256 KiB and in 96 KiB: nothing to slice.
        assert_eq!(AD.slices(256 << 10, 16), None);
        assert_eq!(AD.slices(96 << 10, 16), None);
        // 64 KiB: 32 KiB for a slice. 48 channels: 30,720 + 192 + 16 + 16 + 1,280 + 2·48 →
        // 32,320 ≤ 32,768; 49 would need 32,976. A multiple of the 16 columns: 48.
        assert_eq!(AD.need(48), 30_720 + 192 + 16 + 16 + 1_280 + 2 * 48);
        assert!(AD.need(49) > 32 << 10);
        assert_eq!(AD.slices(64 << 10, 16), Some(48));
        // With 32 columns, 32.
        assert_eq!(AD.slices(64 << 10, 32), Some(32));
    }

    #[test]
    fn without_room_for_one_channel_nothing_is_sliced() {
        // One channel needs 640 + 16 + 16 + 16 + 1,280 + 32 = 2,000 bytes: it fits 2 KiB (whole
        // DM, not half), and not 1 KiB.
        assert_eq!(AD.need(1), 2_000);
        assert_eq!(AD.slices(2 << 10, 16), Some(1));
        assert_eq!(AD.slices(1 << 10, 16), None);
    }
}
