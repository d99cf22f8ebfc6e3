//! What each `tynnp` op computes, in TOSA (`umac-reference-tynnp`): the convolution, pooling,
//! elementwise op or lookup with the output stage's rescale and clamp, exactly as the contract
//! defines the job, so the host runs a partitioned model as the NPU will.
//!
//! The hardware's implicit bottom and right padding becomes TOSA's explicit padding: the rows
//! (columns) the windows read past the input are padding, and rows they never reach are sliced
//! off, so TOSA's output size formula holds exactly.

use super::{code_of, pixels_of, tiled};
use umac_backend::{Error, OpView, TensorType};

/// `func.func @reference` computing `op` from its operands (the op verified).
pub fn reference(op: &OpView) -> Result<String, Error> {
    let code = code_of(op).ok_or("not a tynnp op")?;
    let count = tiled(&op.name()) + code.packed.len();
    let types: Vec<String> = (0..count)
        .map(|i| op.operand_type(i).map(|t| text(&t)).ok_or("an operand without a type"))
        .collect::<Result<_, _>>()?;
    let model_result = op.result_type().ok_or("no result type")?;
    // A convolution packing pixels computes the job's output (`[1, oh, ow/P, P·oc]`), then
    // views it as the model's: the same elements in the same order.
    let pixels = pixels_of(op);
    let mut result = model_result.clone();
    if let [_, _, Some(ow), Some(c)] = result.shape[..] {
        result.shape[2..].copy_from_slice(&[Some(ow / pixels), Some(c * pixels)]);
    }
    let get = |name: &str| op.int(name).ok_or_else(|| Error::Invalid(format!("no attribute {name}")));
    let mut b = Body { lines: Vec::new(), next: 0 };
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
            let (input, from, pad) = window.input(&mut b, "%a0", &op.operand_type(0).ok_or("no input")?, &result);
            let izp = b.zero_point(get("input_zp")?, "i8");
            let fzp = b.zero_point(get("filter_zp")?, "i8");
            let acc = TensorType { element: "i32".into(), ..result.clone() };
            let which = if depthwise { "depthwise_conv2d" } else { "conv2d" };
            let (ty, (sy, sx), (dy, dx)) = (text(&acc), window.stride, window.dilation);
            let conv = b.line(format!(
                "tosa.{which} {input}, %a1, %a2, {izp}, {fzp} {{acc_type = i32, dilation = array<i64: {dy}, {dx}>, pad = array<i64: {pad}>, stride = array<i64: {sy}, {sx}>}} : ({from}, {}, {}, tensor<1xi8>, tensor<1xi8>) -> {ty}",
                types[1], types[2]
            ));
            output_stage(&mut b, &conv, &acc, ("%a3", "%a4"), &types[3..5], op)?
        }
        "tynnp.avg_pool2d" | "tynnp.max_pool2d" => {
            let window = Window {
                kernel: (get("kh")?, get("kw")?),
                stride: (get("stride_y")?, get("stride_x")?),
                dilation: (1, 1),
                pad: (get("pad_top")?, get("pad_left")?),
            };
            let (input, from, pad) = window.input(&mut b, "%a0", &op.operand_type(0).ok_or("no input")?, &result);
            let ((kh, kw), (sy, sx)) = (window.kernel, window.stride);
            let attributes =
                format!("kernel = array<i64: {kh}, {kw}>, pad = array<i64: {pad}>, stride = array<i64: {sy}, {sx}>");
            let to = text(&result);
            let pooled = if op.name() == "tynnp.avg_pool2d" {
                let (izp, ozp) = (b.zero_point(get("input_zp")?, "i8"), b.zero_point(get("output_zp")?, "i8"));
                b.line(format!("tosa.avg_pool2d {input}, {izp}, {ozp} {{acc_type = i32, {attributes}}} : ({from}, tensor<1xi8>, tensor<1xi8>) -> {to}"))
            } else {
                b.line(format!("tosa.max_pool2d {input} {{{attributes}}} : ({from}) -> {to}"))
            };
            match (get("min")?, get("max")?) {
                (-128, 127) => pooled,
                (min, max) => b.clamp(&pooled, &to, min, max),
            }
        }
        "tynnp.add" | "tynnp.sub" => {
            let wide = TensorType { element: "i32".into(), ..result.clone() };
            let rounding = get("out_flags")? & 2 != 0;
            let mut inputs = Vec::new();
            for (i, x) in ["x", "y"].into_iter().enumerate() {
                let prefix = |field: &str| format!("{x}_{field}");
                inputs.push(b.input_scale(
                    (&format!("%a{i}"), &types[i], &wide),
                    [
                        get(&prefix("zp"))?,
                        get(&prefix("left_shift"))?,
                        get(&prefix("multiplier"))?,
                        get(&prefix("shift"))?,
                    ],
                    rounding,
                ));
            }
            let which = if op.name() == "tynnp.add" { "add" } else { "sub" };
            let ty = text(&wide);
            let combined = b.line(format!("tosa.{which} {}, {} : ({ty}, {ty}) -> {ty}", inputs[0], inputs[1]));
            output_stage(&mut b, &combined, &wide, ("%a2", "%a3"), &types[2..4], op)?
        }
        _ => b.line(format!("tosa.table %a0, %a1 : ({}, {}) -> {}", types[0], types[1], text(&result))),
    };
    let value = if result == model_result {
        value
    } else {
        let dims: Vec<String> = model_result.dims().iter().map(i64::to_string).collect();
        let shape = b.line(format!(
            "tosa.const_shape {{values = dense<[{}]> : tensor<{}xindex>}} : () -> !tosa.shape<{}>",
            dims.join(", "),
            dims.len(),
            dims.len()
        ));
        let (from, to) = (text(&result), text(&model_result));
        b.line(format!("tosa.reshape {value}, {shape} : ({from}, !tosa.shape<{}>) -> {to}", dims.len()))
    };
    let parameters: Vec<String> = types.iter().enumerate().map(|(i, t)| format!("%a{i}: {t}")).collect();
    let result = text(&model_result);
    Ok(format!(
        "func.func @reference({}) -> {result} {{\n  {}\n  return {value} : {result}\n}}",
        parameters.join(", "),
        b.lines.join("\n  ")
    ))
}

/// The output stage after `acc` (int32 of type `acc_type`): raw, or the rescale by the
/// multipliers and shifts `scales` (of `types`) and the clamp.
fn output_stage(
    b: &mut Body,
    acc: &str,
    acc_type: &TensorType,
    scales: (&str, &str),
    types: &[String],
    op: &OpView,
) -> Result<String, Error> {
    let get = |name: &str| op.int(name).ok_or_else(|| Error::Invalid(format!("no attribute {name}")));
    let flags = get("out_flags")?;
    if flags & 4 != 0 {
        return Ok(acc.to_string());
    }
    let out = text(&TensorType { element: "i8".into(), ..acc_type.clone() });
    let scaled = b.rescale(
        (acc, &text(acc_type), &out),
        scales,
        (&types[0], &types[1]),
        (0, get("output_zp")?),
        (flags & 1 != 0, flags & 2 != 0),
    );
    Ok(b.clamp(&scaled, &out, get("min")?, get("max")?))
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

    /// The input as TOSA reads it (sliced when the windows stop short of its end), its type and
    /// TOSA's `pad` (top, bottom, left, right).
    fn input(&self, b: &mut Body, input: &str, t: &TensorType, result: &TensorType) -> (String, String, String) {
        let (dims, out) = (t.dims(), result.dims());
        let ((rows, bottom), (cols, right)) = (self.axis(dims[1], out[1], 0), self.axis(dims[2], out[2], 1));
        let pad = format!("{}, {bottom}, {}, {right}", self.pad.0, self.pad.1);
        if (rows, cols) == (dims[1], dims[2]) {
            return (input.to_string(), text(t), pad);
        }
        let start = b.line("tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>".into());
        let size = b.line(format!(
            "tosa.const_shape {{values = dense<[1, {rows}, {cols}, {}]> : tensor<4xindex>}} : () -> !tosa.shape<4>",
            dims[3]
        ));
        let ty = text(&TensorType {
            shape: vec![Some(1), Some(rows), Some(cols), Some(dims[3])],
            element: t.element.clone(),
        });
        let sliced = b.line(format!(
            "tosa.slice {input}, {start}, {size} : ({}, !tosa.shape<4>, !tosa.shape<4>) -> {ty}",
            text(t)
        ));
        (sliced, ty, pad)
    }
}

fn text(t: &TensorType) -> String {
    format!("tensor<{}{}>", t.dims().iter().map(|d| format!("{d}x")).collect::<String>(), t.element)
}

/// The body being written: lines of `%vN = ...`.
struct Body {
    lines: Vec<String>,
    next: usize,
}

impl Body {
    /// Adds `%vN = rhs`; returns `%vN`.
    fn line(&mut self, rhs: String) -> String {
        let name = format!("%v{}", self.next);
        self.next += 1;
        self.lines.push(format!("{name} = {rhs}"));
        name
    }

    fn constant(&mut self, values: &str, ty: &str) -> String {
        self.line(format!("\"tosa.const\"() <{{values = dense<{values}> : {ty}}}> : () -> {ty}"))
    }

    /// A one-element zero point tensor.
    fn zero_point(&mut self, value: i64, element: &str) -> String {
        self.constant(&value.to_string(), &format!("tensor<1x{element}>"))
    }

    fn clamp(&mut self, value: &str, ty: &str, min: i64, max: i64) -> String {
        self.line(format!("tosa.clamp {value} {{max_val = {max} : i8, min_val = {min} : i8}} : ({ty}) -> {ty}"))
    }

    /// `tosa.rescale` of `value` (`from` → `to`) by the `scales` tensors (of `types`), with zero
    /// points (input, output) and (per channel, double rounding).
    fn rescale(
        &mut self,
        (value, from, to): (&str, &str, &str),
        scales: (&str, &str),
        types: (&str, &str),
        zero_points: (i64, i64),
        (per_channel, double): (bool, bool),
    ) -> String {
        let element = |t: &str| t.rsplit('x').next().unwrap_or("i32").trim_end_matches('>').to_string();
        let izp = self.zero_point(zero_points.0, &element(from));
        let ozp = self.zero_point(zero_points.1, &element(to));
        let rounding = if double { "DOUBLE_ROUND" } else { "SINGLE_ROUND" };
        self.line(format!(
            "tosa.rescale {value}, {}, {}, {izp}, {ozp} {{input_unsigned = false, output_unsigned = false, per_channel = {per_channel}, rounding_mode = {rounding}, scale32 = true}} : ({from}, {}, {}, tensor<1x{}>, tensor<1x{}>) -> {to}",
            scales.0,
            scales.1,
            types.0,
            types.1,
            element(from),
            element(to)
        ))
    }

    /// One input of `vu.eltwise`: `(x − zp) << left_shift`, then its own rescale when its shift
    /// is not 0 (`[zp, left_shift, multiplier, shift]`), as int32 of type `wide`.
    fn input_scale(
        &mut self,
        (value, ty, wide): (&str, &str, &TensorType),
        [zp, left, multiplier, shift]: [i64; 4],
        double: bool,
    ) -> String {
        let wide_text = text(wide);
        // The shift amount broadcast: one element of the same rank.
        let ones: String = wide.dims().iter().map(|_| "1x").collect();
        // x − zp, exactly: a rescale by 2^30 >> 30.
        let one = self.constant(&(1i64 << 30).to_string(), "tensor<1xi32>");
        let thirty = self.constant("30", "tensor<1xi8>");
        let centred = self.rescale(
            (value, ty, &wide_text),
            (&one, &thirty),
            ("tensor<1xi32>", "tensor<1xi8>"),
            (zp, 0),
            (false, false),
        );
        let amount = self.constant(&left.to_string(), &format!("tensor<{ones}i32>"));
        let shifted = self.line(format!(
            "tosa.logical_left_shift {centred}, {amount} : ({wide_text}, tensor<{ones}i32>) -> {wide_text}"
        ));
        if shift == 0 {
            return shifted;
        }
        let m = self.constant(&multiplier.to_string(), "tensor<1xi32>");
        let s = self.constant(&shift.to_string(), "tensor<1xi8>");
        self.rescale(
            (&shifted, &wide_text, &wide_text),
            (&m, &s),
            ("tensor<1xi32>", "tensor<1xi8>"),
            (0, 0),
            (false, double),
        )
    }
}
