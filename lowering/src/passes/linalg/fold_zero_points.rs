//! `umac-fold-zero-points`: a quantized convolution with constant weights, a constant input
//! zero point and a zero weight zero point becomes a plain integer convolution whose accumulator
//! starts at `-izp · Σw` per output channel (computed here, at compile time):
//! `Σ (x - izp) · w  =  Σ x · w  -  izp · Σ w`  (exact in wrapping i32 arithmetic).
//!
//! The inner loop is then a pure int8 dot product, which `umac-vectorize-dot-products` turns
//! into the CPU's dot-product instructions (Helium `vmlava.s8`: sixteen multiply-accumulates at
//! once). Padded positions stay exact when they read the input zero point, which TFLite's
//! padding does:
//! `umac-fold-padding` reads the pad value there, contributing `izp · w`, which the correction
//! cancels.
//! ```mlir
//! %y = linalg.conv_2d_nhwc_fhwc_q ins(%x, %w, %c-128_i32, %c0_i32) outs(%bias)
//! // becomes
//! %init = linalg.generic ins(dense<[128·Σw₀, 128·Σw₁, ...]>) outs(%bias) { addi }
//! %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w) outs(%init)
//! ```
//! When `%bias` broadcasts a constant (as TOSA's lowering writes a convolution's bias), the
//! correction is added to that constant instead, and the accumulator starts at their sums: one
//! broadcast, one load per output channel at run time (KWS on Cortex-M55: 2.13M -> 2.05M
//! instructions).

use crate::{
    Error,
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
    windows::map,
};
use melior::ir::OperationRef;
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Ty, Value, projection},
    ir::{attribute, collect, constant_int, constant_value, op_name, produced_by, static_tensor_shape},
    text::attribute_text,
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-fold-zero-points",
    summary: "Turn quantized convolutions with constant weights into plain ones with a precomputed zero-point correction",
    anchor: "any",
    options: &[],
    kind: PassKind::Pass(|_| boxed(FoldZeroPoints)),
};

struct FoldZeroPoints;

impl UmacPass for FoldZeroPoints {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        let quantized = |op: &OperationRef| {
            let name = op_name(op);
            name == "linalg.conv_2d_nhwc_fhwc_q" || name == "linalg.depthwise_conv_2d_nhwc_hwcm_q"
        };
        for raw in collect(operation, quantized) {
            // SAFETY: each collected op is live until its own rewrite below replaces it.
            let Some(fold) = (unsafe { Fold::of(raw) }) else { continue };
            // SAFETY: as above.
            let op = unsafe { OperationRef::from_raw(raw) };
            replace_with(op, |b| vec![fold.write(b)])?;
        }
        Ok(())
    }
}

/// The plain convolution a quantized one becomes, its accumulator's start computed.
struct Fold {
    depthwise: bool,
    /// The input, the weights and the accumulator the start is written into.
    operands: [MlirValue; 3],
    /// The accumulator's start per output channel (the correction, with the bias when the
    /// accumulator broadcasts a constant one: then `replaces_bias`), in the correction's shape.
    start: Vec<i64>,
    shape: Vec<i64>,
    replaces_bias: bool,
    rank: usize,
    strides: MlirAttribute,
    dilations: MlirAttribute,
}

impl Fold {
    /// The fold of the quantized convolution `op`, or `None` when `op` does not qualify.
    ///
    /// # Safety
    /// `op` must be a live quantized convolution.
    unsafe fn of(op: MlirOperation) -> Option<Fold> {
        unsafe {
            let depthwise = umac_dialects::ir::name(op).starts_with("linalg.depthwise");
            let (x, w, izp, wzp) = (
                mlirOperationGetOperand(op, 0),
                mlirOperationGetOperand(op, 1),
                mlirOperationGetOperand(op, 2),
                mlirOperationGetOperand(op, 3),
            );
            let init = mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1);
            let (izp, wzp) = (constant_int(izp)?, constant_int(wzp)?);
            if wzp != 0 {
                return None;
            }
            let weights = constant_value(w)?;
            let w_type = mlirValueGetType(w);
            let element = mlirShapedTypeGetElementType(w_type);
            if !mlirAttributeIsADenseElements(weights) || !mlirTypeIsAInteger(element) {
                return None;
            }
            let w_dims = static_tensor_shape(w_type)?;
            static_tensor_shape(mlirValueGetType(x))?;
            let y_type = mlirValueGetType(init);
            let y_dims = static_tensor_shape(y_type)?;
            let y_element = mlirShapedTypeGetElementType(y_type);
            if !mlirTypeIsAInteger(y_element) || mlirIntegerTypeGetWidth(y_element) != 32 {
                return None;
            }
            let bits = mlirIntegerTypeGetWidth(element);
            let count: i64 = w_dims.iter().product();
            // The element getters read a splat at any index.
            let read = |i: isize| -> Option<i64> {
                Some(match bits {
                    8 => i64::from(mlirDenseElementsAttrGetInt8Value(weights, i)),
                    16 => i64::from(mlirDenseElementsAttrGetInt16Value(weights, i)),
                    _ => return None,
                })
            };
            // Σw per output channel: FHWC sums over the last three dimensions; HWCM over the
            // first two.
            let channels: usize = if depthwise { (w_dims[2] * w_dims[3]) as usize } else { w_dims[0] as usize };
            let mut sums = vec![0i64; channels];
            for i in 0..count {
                let channel = if depthwise { i as usize % channels } else { i as usize / (count as usize / channels) };
                sums[channel] += read(i as isize)?;
            }
            let rank = y_dims.len();
            let corrections: Vec<i32> = sums.iter().map(|s| (-izp).wrapping_mul(*s) as i32).collect();
            // A constant bias broadcast into the accumulator takes the correction at compile
            // time: one broadcast of their sums (one load an output channel at run time instead
            // of two and an addition); otherwise the correction is added to the accumulator's
            // start.
            let (start, replaces_bias, out) = match bias_broadcast(init, &maps_text(depthwise, rank), sums.len()) {
                Some((bias, out)) => {
                    let start = bias.iter().zip(&corrections).map(|(b, c)| (*b as i32).wrapping_add(*c)).collect();
                    (start, true, out)
                }
                None => (corrections, false, init),
            };
            let shape = if depthwise { vec![w_dims[2], w_dims[3]] } else { vec![channels as i64] };
            Some(Fold {
                depthwise,
                operands: [x, w, out],
                start: start.into_iter().map(i64::from).collect(),
                shape,
                replaces_bias,
                rank,
                strides: attribute(op, "strides")?,
                dilations: attribute(op, "dilations")?,
            })
        }
    }

    /// Writes the accumulator's start and the plain convolution in front of the quantized one;
    /// returns the convolution's result.
    fn write(&self, b: &mut Builder) -> Value {
        let [x, w, init] = self.operands.map(|v| b.existing(v));
        let ty = b.tensor(&self.shape, Ty::I32);
        let correction = b.op1("arith.constant", &[], ty, &[("value", Attr::Dense(ty, &self.start))]);
        let rank = self.rank;
        let read = correction_dims(self.depthwise, rank);
        let maps = [
            Attr::Map(rank, &projection(rank, &read)),
            Attr::Map(rank, &projection(rank, &(0..rank).collect::<Vec<_>>())),
        ];
        let replaces_bias = self.replaces_bias;
        let start = b.generic([&[correction], &[init]], &maps, &vec!["parallel"; rank], &[], |b, args| {
            if replaces_bias { vec![args[0]] } else { vec![b.addi(args[1], args[0])] }
        })[0];
        let name = if self.depthwise { "linalg.depthwise_conv_2d_nhwc_hwcm" } else { "linalg.conv_2d_nhwc_fhwc" };
        let attributes = [("dilations", Attr::Raw(self.dilations)), ("strides", Attr::Raw(self.strides))];
        b.named_linalg(name, [&[x, w], &[start]], &attributes)[0]
    }
}

/// The correction's indexing maps as MLIR prints them, to recognize a bias broadcast so.
fn maps_text(depthwise: bool, rank: usize) -> String {
    let all: Vec<usize> = (0..rank).collect();
    format!("[{}, {}]", map(rank, &correction_dims(depthwise, rank)), map(rank, &all))
}

/// The output dimensions the correction is indexed by: the output channel (a depthwise
/// convolution's channel and multiplier).
fn correction_dims(depthwise: bool, rank: usize) -> Vec<usize> {
    if depthwise { vec![rank - 2, rank - 1] } else { vec![rank - 1] }
}

/// The bias `init` broadcasts into the accumulator, and the tensor it writes, when `init` is a
/// `linalg.generic` yielding each element of a constant int32 tensor of `count` elements, read
/// by `maps` (the correction's): the bias per output channel.
///
/// # Safety
/// `init` must be live.
unsafe fn bias_broadcast(init: MlirValue, maps: &str, count: usize) -> Option<(Vec<i64>, MlirValue)> {
    unsafe {
        let generic = produced_by(init, "linalg.generic")?;
        if mlirOperationGetNumOperands(generic) != 2 {
            return None;
        }
        let given = attribute_text(melior::ir::Attribute::from_raw(attribute(generic, "indexing_maps")?));
        if given.replace(' ', "") != maps.replace(' ', "") {
            return None;
        }
        // The body yields the input's element.
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0));
        let first = mlirBlockGetFirstOperation(block);
        if umac_dialects::ir::name(first) != "linalg.yield"
            || !mlirValueEqual(mlirOperationGetOperand(first, 0), mlirBlockGetArgument(block, 0))
        {
            return None;
        }
        let values = constant_value(mlirOperationGetOperand(generic, 0))?;
        let element = mlirShapedTypeGetElementType(mlirAttributeGetType(values));
        if !mlirAttributeIsADenseElements(values)
            || !mlirTypeIsAInteger(element)
            || mlirIntegerTypeGetWidth(element) != 32
        {
            return None;
        }
        if mlirElementsAttrGetNumElements(values) != count as i64 {
            return None;
        }
        let bias = (0..count).map(|i| i64::from(mlirDenseElementsAttrGetInt32Value(values, i as isize))).collect();
        Some((bias, mlirOperationGetOperand(generic, 1)))
    }
}
