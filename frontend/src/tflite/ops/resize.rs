//! RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (NHWC, constant size), as TFLite Micro's
//! reference kernels compute them. Every source row and column and every interpolation weight
//! depends only on the output position, so umac computes them at compile time with the kernels'
//! own arithmetic (f32 for the float paths, the 10-bit fixed point of `ResizeBilinearInteger`
//! for int8) and the model gathers rows and columns (`tosa.gather`) and weighs them:
//! - nearest neighbour: a gather, exact for any element type;
//! - int8 bilinear: the four corners times their integer weights, summed exactly in 32 bits,
//!   rounded half away from zero by 2^20;
//! - float bilinear: `a·(1-dy)·(1-dx) + b·dy·(1-dx) + c·(1-dy)·dx + d·dy·dx` in TFLite Micro's
//!   order of operations.

use super::{Cx, OpResult, Value, bad, check_output, constant_ints, gather_along, unsupported};
use crate::tflite::{
    emit::{Ty, float},
    model::{DType, Operator, Options},
};

/// The largest output side read (no microcontroller image is larger).
const MAX_SIZE: i64 = 1 << 16;

/// RESIZE_NEAREST_NEIGHBOR or RESIZE_BILINEAR.
pub fn resize(cx: &mut Cx, op: &Operator) -> OpResult {
    let Options::Resize { align_corners, half_pixel_centers } = op.options else {
        return bad("its options are not a resize's");
    };
    if align_corners && half_pixel_centers {
        return bad("it sets both align_corners and half_pixel_centers, which TFLite Micro refuses");
    }
    let input = cx.tensor(op, 0)?;
    let &[n, h, w, c] = input.shape.as_slice() else { return bad("its input is not 4-dimensional") };
    let size = cx.tensor(op, 1)?;
    if size.dtype != DType::I32 {
        return bad("its size is not INT32");
    }
    let &[oh, ow] = constant_ints(size)?.as_slice() else { return bad("its size does not have 2 values") };
    if oh < 1 || ow < 1 || h < 1 || w < 1 {
        return bad(format!("it resizes {:?} to {oh}x{ow}", input.shape));
    }
    // Each output row and column gets its indices and weights computed here.
    if oh > MAX_SIZE || ow > MAX_SIZE {
        return unsupported(format!("an output of {oh}x{ow} (at most {MAX_SIZE} a side)"));
    }
    check_output(cx, op, 0, &[n, oh, ow, c], input.dtype)?;
    let x = cx.value(op, 0)?;
    let y = if op.kind == "RESIZE_NEAREST_NEIGHBOR" {
        let rows: Vec<i64> = (0..oh).map(|y| nearest(y, h, oh, align_corners, half_pixel_centers)).collect();
        let columns: Vec<i64> = (0..ow).map(|x| nearest(x, w, ow, align_corners, half_pixel_centers)).collect();
        let picked = gather_along(cx, &x, 1, &rows);
        gather_along(cx, &picked, 2, &columns)
    } else {
        match input.dtype {
            DType::I8 => {
                let (rows, columns) = (
                    Axis::integer(h, oh, align_corners, half_pixel_centers),
                    Axis::integer(w, ow, align_corners, half_pixel_centers),
                );
                let wide = cx.func.op("cast", &[&x], "", x.ty.with_elem("i32"));
                let sum = weighted_corners(cx, &wide, &rows, &columns);
                // (sum ± 2^19) / 2^20, truncating: half away from zero (0 rounds as negative).
                let rank = 4;
                let zero = cx.func.broadcast(rank, "i32", 0);
                let positive = cx.func.op("greater", &[&sum, &zero], "", sum.ty.with_elem("i1"));
                let (up, down) = (cx.func.broadcast(rank, "i32", 1 << 19), cx.func.broadcast(rank, "i32", -(1 << 19)));
                let round = cx.func.op("select", &[&positive, &up, &down], "", sum.ty.clone());
                let nudged = cx.func.op("add", &[&sum, &round], "", sum.ty.clone());
                let divisor = cx.func.broadcast(rank, "i32", 1 << 20);
                let quotient = cx.func.op("intdiv", &[&nudged, &divisor], "", sum.ty.clone());
                cx.func.op("cast", &[&quotient], "", sum.ty.with_elem("i8"))
            }
            DType::F32 => {
                let (rows, columns) = (
                    Axis::float(h, oh, align_corners, half_pixel_centers),
                    Axis::float(w, ow, align_corners, half_pixel_centers),
                );
                weighted_corners(cx, &x, &rows, &columns)
            }
            other => {
                return unsupported(format!("RESIZE_BILINEAR of {} (TFLite Micro takes int8, float32)", other.name()));
            }
        }
    };
    cx.define(op, 0, y)
}

/// TFLite's `GetNearestNeighbor`: the source index of output index `i`, in f32.
fn nearest(i: i64, input: i64, output: i64, align_corners: bool, half_pixel_centers: bool) -> i64 {
    let scale = if align_corners && output > 1 {
        (input - 1) as f32 / (output - 1) as f32
    } else {
        input as f32 / output as f32
    };
    let offset = if half_pixel_centers { 0.5f32 } else { 0.0 };
    let position = (i as f32 + offset) * scale;
    let source = if align_corners { position.round() } else { position.floor() } as i64;
    let source = source.min(input - 1);
    if half_pixel_centers { source.max(0) } else { source }
}

/// One axis of a bilinear resize: for each output index the lower and upper source index and
/// their weights (integers in 1/1024 for int8, f32 for float).
struct Axis {
    lower: Vec<i64>,
    upper: Vec<i64>,
    lower_weight: Vec<Weight>,
    upper_weight: Vec<Weight>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Weight {
    Int(i64),
    Float(f32),
}

impl Axis {
    /// `ResizeBilinearInteger`'s 10-bit scale and `ComputeInterpolationValuesInteger`.
    fn integer(input: i64, output: i64, align_corners: bool, half_pixel_centers: bool) -> Axis {
        let scale = if align_corners && output > 1 {
            ((1 << 10) * (input - 1) + (output - 1) / 2) / (output - 1)
        } else {
            ((1 << 10) * input + output / 2) / output
        };
        let mut axis = Axis { lower: vec![], upper: vec![], lower_weight: vec![], upper_weight: vec![] };
        for i in 0..output {
            // i64 arithmetic with C's truncating division, as the kernel's int32 (no overflow
            // for any size TFLite Micro holds).
            let scaled = if half_pixel_centers { i * scale + scale / 2 - (1 << 9) } else { i * scale };
            let lower = (scaled / (1 << 10)).max(0);
            let upper = ((scaled + (1 << 10) - 1) / (1 << 10)).min(input - 1);
            let fraction = scaled - (1 << 10) * lower;
            axis.push(lower, upper, Weight::Int((1 << 10) - fraction), Weight::Int(fraction));
        }
        axis
    }

    /// `ResizeBilinear`'s f32 scale and `ComputeInterpolationValues`.
    fn float(input: i64, output: i64, align_corners: bool, half_pixel_centers: bool) -> Axis {
        let scale = if align_corners && output > 1 {
            (input - 1) as f32 / (output - 1) as f32
        } else {
            input as f32 / output as f32
        };
        let mut axis = Axis { lower: vec![], upper: vec![], lower_weight: vec![], upper_weight: vec![] };
        for i in 0..output {
            let scaled = if half_pixel_centers { (i as f32 + 0.5) * scale - 0.5 } else { i as f32 * scale };
            let lower = (scaled.floor() as i64).max(0);
            let upper = (scaled.ceil() as i64).min(input - 1);
            let fraction = scaled - lower as f32;
            axis.push(lower, upper, Weight::Float(1.0 - fraction), Weight::Float(fraction));
        }
        axis
    }

    fn push(&mut self, lower: i64, upper: i64, lower_weight: Weight, upper_weight: Weight) {
        self.lower.push(lower);
        self.upper.push(upper);
        self.lower_weight.push(lower_weight);
        self.upper_weight.push(upper_weight);
    }
}

/// The weights of `dim` (1 or 2) as a `[1, k, 1, 1]` or `[1, 1, k, 1]` constant of `elem`.
fn weights(cx: &mut Cx, weights: &[Weight], dim: usize, elem: &'static str) -> Value {
    let mut shape = vec![1, 1, 1, 1];
    shape[dim] = weights.len() as i64;
    let text: Vec<String> = weights
        .iter()
        .map(|w| match *w {
            Weight::Int(v) => v.to_string(),
            Weight::Float(v) => float(v),
        })
        .collect();
    let nested = |t: &[String]| match dim {
        1 => format!("[[{}]]", t.iter().map(|v| format!("[[{v}]]")).collect::<Vec<_>>().join(", ")),
        _ => format!("[[[{}]]]", t.iter().map(|v| format!("[{v}]")).collect::<Vec<_>>().join(", ")),
    };
    cx.func.constant(Ty::new(&shape, elem), nested(&text))
}

/// `x[.., lower_y, lower_x, ..]·wy0·wx0 + x[upper_y, lower_x]·wy1·wx0 + x[lower_y, upper_x]·wy0·wx1
/// + x[upper_y, upper_x]·wy1·wx1`, each product left to right and the sum in that order.
fn weighted_corners(cx: &mut Cx, x: &Value, rows: &Axis, columns: &Axis) -> Value {
    let elem = x.ty.elem;
    let y0 = gather_along(cx, x, 1, &rows.lower);
    let y1 = gather_along(cx, x, 1, &rows.upper);
    let corners = [
        gather_along(cx, &y0, 2, &columns.lower),
        gather_along(cx, &y1, 2, &columns.lower),
        gather_along(cx, &y0, 2, &columns.upper),
        gather_along(cx, &y1, 2, &columns.upper),
    ];
    let wy = [weights(cx, &rows.lower_weight, 1, elem), weights(cx, &rows.upper_weight, 1, elem)];
    let wx = [weights(cx, &columns.lower_weight, 2, elem), weights(cx, &columns.upper_weight, 2, elem)];
    let shift = cx.func.scalar("i8", 0);
    let t = corners[0].ty.clone();
    let mut sum: Option<Value> = None;
    for (k, corner) in corners.iter().enumerate() {
        let along_y = cx.func.op("mul", &[corner, &wy[k % 2], &shift], "", t.clone());
        let term = cx.func.op("mul", &[&along_y, &wx[k / 2], &shift], "", t.clone());
        sum = Some(match sum {
            None => term,
            Some(s) => cx.func.op("add", &[&s, &term], "", t.clone()),
        });
    }
    sum.unwrap_or_else(|| unreachable!("four corners"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_indices() {
        // 2 → 4: floor(i · 0.5) = 0, 0, 1, 1.
        let pick = |input, output, a, h| (0..output).map(|i| nearest(i, input, output, a, h)).collect::<Vec<_>>();
        assert_eq!(pick(2, 4, false, false), [0, 0, 1, 1]);
        // align_corners: round(i · 1/3) = 0, 0, 1, 1 (0.667 rounds to 1).
        assert_eq!(pick(2, 4, true, false), [0, 0, 1, 1]);
        // half-pixel: floor((i + 0.5) · 0.5) = 0, 0, 1, 1; 3 → 2: floor((i + .5) · 1.5) = 0, 2.
        assert_eq!(pick(2, 4, false, true), [0, 0, 1, 1]);
        assert_eq!(pick(3, 2, false, true), [0, 2]);
    }

    #[test]
    fn bilinear_axes() {
        // 2 → 4, int8: scale (2048 + 2) / 4 = 512; i · 512 → lower i / 2, fraction 0 or 512.
        let a = Axis::integer(2, 4, false, false);
        assert_eq!(a.lower, [0, 0, 1, 1]);
        assert_eq!(a.upper, [0, 1, 1, 1]);
        assert_eq!(a.upper_weight, [0, 512, 0, 512].map(Weight::Int));
        assert_eq!(a.lower_weight, [1024, 512, 1024, 512].map(Weight::Int));
        // Half-pixel: i · 512 + 256 - 512 = -256, 256, 768, 1280: the first is below 0 (lower
        // 0, weight 1024 + 256 = 1280 and -256).
        let h = Axis::integer(2, 4, false, true);
        assert_eq!(h.lower, [0, 0, 0, 1]);
        assert_eq!(h.upper, [0, 1, 1, 1]);
        assert_eq!(h.lower_weight, [1280, 768, 256, 768].map(Weight::Int));
        assert_eq!(h.upper_weight, [-256, 256, 768, 256].map(Weight::Int));
        // align_corners 3 → 5: scale (2048 + 2) / 4 = 512.
        assert_eq!(Axis::integer(3, 5, true, false).lower, [0, 0, 1, 1, 2]);
        // Float 2 → 4: scale 0.5.
        let f = Axis::float(2, 4, false, false);
        assert_eq!(f.upper_weight, [0.0, 0.5, 0.0, 0.5].map(Weight::Float));
    }
}
