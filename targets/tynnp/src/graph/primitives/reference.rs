//! What each `tynnp` op computes, in TOSA (`umac-reference-tynnp`): the convolution, pooling,
//! elementwise op or lookup with the output stage's rescale and clamp, exactly as the contract
//! defines the job, so the host runs a partitioned model as the NPU will.
//!
//! The hardware's implicit bottom and right padding becomes TOSA's explicit padding: the rows
//! (columns) the windows read past the input are padding, and rows they never reach are sliced
//! off, so TOSA's output size formula holds exactly.

use super::{code_of, pixels_of, tiled};
use umac_backend::{Attr, Builder, Error, OpView, Ty, Value};

/// Writes what `op` computes (the op verified) with `b` in front of it, its operands the
/// builder's arguments; returns the value replacing its result. Errors come before anything is
/// written.
pub fn reference(op: &OpView, b: &mut Builder) -> Result<Vec<Value>, Error> {
    let code = code_of(op).ok_or("not a tynnp op")?;
    let count = tiled(&op.name()) + code.packed.len();
    if b.arg_count() < count {
        return Err(Error::Invalid(format!("{} operands, {count} expected", b.arg_count())));
    }
    let model_result = op.result_type().ok_or("no result type")?;
    let element = Ty::integer(&model_result.element)
        .filter(|t| matches!(t, Ty::I8 | Ty::I32))
        .ok_or_else(|| Error::Invalid(format!("a result of {}", model_result.element)))?;
    let model_dims = model_result.dims();
    // A convolution packing pixels computes the job's output (`[1, oh, ow/P, P·oc]`), then
    // views it as the model's: the same elements in the same order.
    let pixels = pixels_of(op);
    let mut dims = model_dims.clone();
    if let [_, _, ow, c] = dims[..] {
        dims[2..].copy_from_slice(&[ow / pixels, c * pixels]);
    }
    let get = |name: &str| op.int(name).ok_or_else(|| Error::Invalid(format!("no attribute {name}")));
    let input_dims = op.operand_type(0).ok_or("no input")?.dims();
    let value = match op.name().as_str() {
        "tynnp.conv2d" | "tynnp.depthwise_conv2d" => {
            let depthwise = op.name() == "tynnp.depthwise_conv2d";
            let filter = op.operand_type(1).ok_or("no filter")?.dims();
            let (kh, kw) = if depthwise { (filter[0], filter[1]) } else { (filter[1], filter[2]) };
            let window = Window {
                kernel: (kh, kw),
                stride: (get("stride_y")?, get("stride_x")?),
                dilation: (get("dilation_y")?, get("dilation_x")?),
                pad: (get("pad_top")?, get("pad_left")?),
            };
            let (zero_points, min_max) = ([get("input_zp")?, get("filter_zp")?], output_bounds(op)?);
            let (input, pad) = window.input(b, &input_dims, &dims);
            let [izp, fzp] = zero_points.map(|zp| b.tosa_const(b.tensor(&[1], Ty::I8), &[zp]));
            let acc = b.tensor(&dims, Ty::I32);
            let which = if depthwise { "tosa.depthwise_conv2d" } else { "tosa.conv2d" };
            let ((sy, sx), (dy, dx)) = (window.stride, window.dilation);
            let attributes = [
                ("acc_type", Attr::Type(Ty::I32)),
                ("dilation", Attr::I64Array(&[dy, dx])),
                ("pad", Attr::I64Array(&pad)),
                ("stride", Attr::I64Array(&[sy, sx])),
            ];
            let conv = b.op1(which, &[input, b.arg(1), b.arg(2), izp, fzp], acc, &attributes);
            output_stage(b, conv, &dims, [b.arg(3), b.arg(4)], min_max)
        }
        "tynnp.avg_pool2d" | "tynnp.max_pool2d" => {
            let window = Window {
                kernel: (get("kh")?, get("kw")?),
                stride: (get("stride_y")?, get("stride_x")?),
                dilation: (1, 1),
                pad: (get("pad_top")?, get("pad_left")?),
            };
            let average = op.name() == "tynnp.avg_pool2d";
            let zero_points = if average { Some([get("input_zp")?, get("output_zp")?]) } else { None };
            let (min, max) = (get("min")?, get("max")?);
            let (input, pad) = window.input(b, &input_dims, &dims);
            let ((kh, kw), (sy, sx)) = (window.kernel, window.stride);
            let to = b.tensor(&dims, element);
            let window = [
                ("kernel", Attr::I64Array(&[kh, kw])),
                ("pad", Attr::I64Array(&pad)),
                ("stride", Attr::I64Array(&[sy, sx])),
            ];
            let pooled = match zero_points {
                Some(zero_points) => {
                    let [izp, ozp] = zero_points.map(|zp| b.tosa_const(b.tensor(&[1], Ty::I8), &[zp]));
                    let attributes = [&[("acc_type", Attr::Type(Ty::I32))][..], &window].concat();
                    b.op1("tosa.avg_pool2d", &[input, izp, ozp], to, &attributes)
                }
                None => b.op1("tosa.max_pool2d", &[input], to, &window),
            };
            match (min, max) {
                (-128, 127) => pooled,
                (min, max) => clamp(b, pooled, min, max),
            }
        }
        "tynnp.add" | "tynnp.sub" => {
            let rounding = get("out_flags")? & 2 != 0;
            let mut scales = Vec::new();
            for x in ["x", "y"] {
                let field = |name: &str| get(&format!("{x}_{name}"));
                scales.push([field("zp")?, field("left_shift")?, field("multiplier")?, field("shift")?]);
            }
            let min_max = output_bounds(op)?;
            let wide = b.tensor(&dims, Ty::I32);
            let inputs: Vec<Value> = scales
                .iter()
                .enumerate()
                .map(|(i, scale)| input_scale(b, (b.arg(i), wide, dims.len()), *scale, rounding))
                .collect();
            let which = if op.name() == "tynnp.add" { "tosa.add" } else { "tosa.sub" };
            let combined = b.op1(which, &inputs, wide, &[]);
            output_stage(b, combined, &dims, [b.arg(2), b.arg(3)], min_max)
        }
        _ => {
            let to = b.tensor(&dims, element);
            b.op1("tosa.table", &[b.arg(0), b.arg(1)], to, &[])
        }
    };
    if dims == model_dims {
        return Ok(vec![value]);
    }
    let shape = b.tosa_shape(&model_dims);
    let to = b.tensor(&model_dims, element);
    Ok(vec![b.op1("tosa.reshape", &[value, shape], to, &[])])
}

/// The output stage's flags, zero point and clamp of `op`: `[flags, output_zp, min, max]`.
fn output_bounds(op: &OpView) -> Result<[i64; 4], Error> {
    let get = |name: &str| op.int(name).ok_or_else(|| Error::Invalid(format!("no attribute {name}")));
    Ok([get("out_flags")?, get("output_zp")?, get("min")?, get("max")?])
}

/// The output stage after `acc` (int32, of `dims`): raw (flag 4), or the rescale by the
/// multipliers and shifts `scales` (per channel: flag 1; double rounding: flag 2) to int8 and
/// the clamp, as [`output_bounds`] gives them.
fn output_stage(
    b: &mut Builder,
    acc: Value,
    dims: &[i64],
    scales: [Value; 2],
    [flags, zp, min, max]: [i64; 4],
) -> Value {
    if flags & 4 != 0 {
        return acc;
    }
    let out = b.tensor(dims, Ty::I8);
    let scaled = rescale(b, acc, out, scales, [0, zp], (flags & 1 != 0, flags & 2 != 0));
    clamp(b, scaled, min, max)
}

/// `tosa.clamp` of an int8 `value` to [`min`, `max`].
fn clamp(b: &mut Builder, value: Value, min: i64, max: i64) -> Value {
    let ty = b.type_of(value);
    b.op1("tosa.clamp", &[value], ty, &[("max_val", Attr::Int(Ty::I8, max)), ("min_val", Attr::Int(Ty::I8, min))])
}

/// `tosa.rescale` of `value` to `to` by the multiplier and shift tensors `scales`, with zero
/// points `[input, output]` and (per channel, double rounding).
fn rescale(
    b: &mut Builder,
    value: Value,
    to: Ty,
    scales: [Value; 2],
    zero_points: [i64; 2],
    (per_channel, double): (bool, bool),
) -> Value {
    let from = b.type_of(value);
    let [izp, ozp] = [(from, zero_points[0]), (to, zero_points[1])].map(|(t, zp)| {
        let one = b.tensor(&[1], b.element_of(t));
        b.tosa_const(one, &[zp])
    });
    let rounding = if double { "#tosa.rounding_mode<DOUBLE_ROUND>" } else { "#tosa.rounding_mode<SINGLE_ROUND>" };
    let attributes = [
        ("input_unsigned", Attr::Bool(false)),
        ("output_unsigned", Attr::Bool(false)),
        ("per_channel", Attr::Bool(per_channel)),
        ("rounding_mode", Attr::Parsed(rounding)),
        ("scale32", Attr::Bool(true)),
    ];
    b.op1("tosa.rescale", &[value, scales[0], scales[1], izp, ozp], to, &attributes)
}

/// One input of `vu.eltwise`: `(x − zp) << left_shift`, then its own rescale when its shift is
/// not 0 (`[zp, left_shift, multiplier, shift]`), as int32 of type `wide`.
fn input_scale(
    b: &mut Builder,
    (value, wide, rank): (Value, Ty, usize),
    [zp, left, multiplier, shift]: [i64; 4],
    double: bool,
) -> Value {
    let (i32_one, i8_one) = (b.tensor(&[1], Ty::I32), b.tensor(&[1], Ty::I8));
    // x − zp, exactly: a rescale by 2^30 >> 30.
    let one = b.tosa_const(i32_one, &[1 << 30]);
    let thirty = b.tosa_const(i8_one, &[30]);
    let centred = rescale(b, value, wide, [one, thirty], [zp, 0], (false, false));
    // The shift amount broadcast: one element of the same rank.
    let ones = b.tensor(&vec![1; rank], Ty::I32);
    let amount = b.tosa_const(ones, &[left]);
    let shifted = b.op1("tosa.logical_left_shift", &[centred, amount], wide, &[]);
    if shift == 0 {
        return shifted;
    }
    let m = b.tosa_const(i32_one, &[multiplier]);
    let s = b.tosa_const(i8_one, &[shift]);
    rescale(b, shifted, wide, [m, s], [0, 0], (false, double))
}

/// A convolution's or pooling's window.
struct Window {
    kernel: (i64, i64),
    stride: (i64, i64),
    dilation: (i64, i64),
    pad: (i64, i64),
}

impl Window {
    /// Along one axis of `size` elements giving `out`: the elements read (a prefix of the input)
    /// and the padding after them.
    fn axis(&self, size: i64, out: i64, axis: usize) -> (i64, i64) {
        let pick = |p: (i64, i64)| if axis == 0 { p.0 } else { p.1 };
        let (k, s, d, before) = (pick(self.kernel), pick(self.stride), pick(self.dilation), pick(self.pad));
        // The last element the last window reads, from the input's first.
        let last = (out - 1) * s + (k - 1) * d - before;
        if last >= size { (size, last - size + 1) } else { (last + 1, 0) }
    }

    /// The input (the builder's first argument, of `dims`) as TOSA reads it for an output of
    /// `out` (sliced when the windows stop short of its end), and TOSA's `pad` (top, bottom,
    /// left, right).
    fn input(&self, b: &mut Builder, dims: &[i64], out: &[i64]) -> (Value, [i64; 4]) {
        let ((rows, bottom), (cols, right)) = (self.axis(dims[1], out[1], 0), self.axis(dims[2], out[2], 1));
        let (pad, input) = ([self.pad.0, bottom, self.pad.1, right], b.arg(0));
        if (rows, cols) == (dims[1], dims[2]) {
            return (input, pad);
        }
        let start = b.tosa_shape(&[0, 0, 0, 0]);
        let size = b.tosa_shape(&[1, rows, cols, dims[3]]);
        let ty = b.tensor(&[1, rows, cols, dims[3]], b.element_of(b.type_of(input)));
        (b.op1("tosa.slice", &[input, start, size], ty, &[]), pad)
    }
}
