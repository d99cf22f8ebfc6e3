//! The verifier of the `tynnp` ops: operand and result types and shapes, the attributes each
//! needs, and the hardware contract's limits on them (targets/tynnp/docs/isa.md, section 5), so what
//! verifies is a job the NPU runs as the op says.

use super::{attribute_names, code_of, tiled};
use crate::error::TynnpError;
use umac_backend::{OpView, TensorType};

/// Checks `op`; the message says what is wrong (MLIR reports it at the op).
pub fn verify(op: &OpView) -> Result<(), TynnpError> {
    let name = op.name();
    let code = code_of(op)
        .ok_or_else(|| TynnpError::Contract(format!("is not a tynnp op (ops: {})", super::OPS.join(", "))))?;
    let expected = tiled(&name) + code.packed.len();
    if op.operand_count() != expected || op.result_count() != 1 {
        return Err(TynnpError::Contract(format!("takes {expected} operands and gives one result")));
    }
    let types: Vec<TensorType> = (0..expected)
        .map(|i| {
            op.operand_type(i)
                .filter(TensorType::is_static)
                .ok_or_else(|| TynnpError::Contract(format!("operand #{i} is not a static tensor")))
        })
        .collect::<Result<_, _>>()?;
    let result = op
        .result_type()
        .filter(TensorType::is_static)
        .ok_or_else(|| TynnpError::Contract("the result is not a static tensor".into()))?;
    // Descriptor fields and DMA sizes are 32-bit: no tensor may have more elements.
    for t in types.iter().chain([&result]) {
        let elements = t.dims().iter().try_fold(1i64, |n, &d| n.checked_mul(d)).unwrap_or(i64::MAX);
        if elements > i64::from(i32::MAX) {
            return Err(TynnpError::Contract(format!("has {} with more elements than 32-bit sizes count", shape(t))));
        }
    }
    let mut attributes = Vec::new();
    for attribute in attribute_names(&name, code) {
        let value = op
            .int(attribute)
            .ok_or_else(|| TynnpError::Contract(format!("needs the integer attribute '{attribute}'")))?;
        // Every field is a 32-bit word of the job's descriptor.
        if i32::try_from(value).is_err() {
            return Err(TynnpError::Contract(format!(
                "has {attribute} {value}, which no 32-bit descriptor field holds"
            )));
        }
        attributes.push((attribute, value));
    }
    let get = |name: &str| attributes.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v);
    let raw = get("out_flags") & 4 != 0;
    let out_element = if raw { "i32" } else { "i8" };
    match name.as_str() {
        "tynnp.conv2d" | "tynnp.depthwise_conv2d" => {
            let depthwise = name == "tynnp.depthwise_conv2d";
            let [input, filter] = [&types[0], &types[1]].map(TensorType::dims);
            window_shapes(&types[0], &result, out_element)?;
            // The job's output: groups of packed pixels.
            let pixels = packed_pixels(op, &result, &get)?;
            let mut job_result = result.dims();
            job_result[2] /= pixels;
            job_result[3] *= pixels;
            element(&types[1], "filter", "i8")?;
            element(&types[2], "bias", "i32")?;
            if filter.len() != 4 {
                return Err(TynnpError::Contract(format!("needs a rank-4 filter, got {}", shape(&types[1]))));
            }
            let (reduced, channels, terms) = if depthwise {
                (filter[2], filter[2].saturating_mul(filter[3]), filter[0].saturating_mul(filter[1]))
            } else {
                (filter[3], filter[0], filter[1].saturating_mul(filter[2]).saturating_mul(filter[3]))
            };
            let layout = if depthwise { "[kh, kw, c, mult]" } else { "[oc, kh, kw, ic]" };
            if reduced != input[3] {
                return Err(TynnpError::Contract(format!(
                    "has a filter {layout} of {} for {} input channels",
                    shape(&types[1]),
                    input[3]
                )));
            }
            if job_result[3] != channels {
                let packed = if pixels > 1 { format!(" ({pixels} pixels packed)") } else { String::new() };
                return Err(TynnpError::Contract(format!(
                    "gives {} channels{packed} where its filter makes {channels}",
                    job_result[3]
                )));
            }
            if types[2].dims() != [channels] {
                return Err(TynnpError::Contract(format!(
                    "needs a bias of {channels} elements, got {}",
                    shape(&types[2])
                )));
            }
            // The hardware accumulates exactly in int32 only below this bound (section 5.2).
            if terms.saturating_mul(255 * 255) >= 1 << 31 {
                return Err(TynnpError::Contract(format!(
                    "sums {terms} products per output, which may overflow int32 (at most 33025)"
                )));
            }
            for (attribute, low) in [("stride_y", 1), ("stride_x", 1), ("dilation_y", 1), ("dilation_x", 1)] {
                at_least(attribute, get(attribute), low)?;
            }
            output_stage(&types[3..5], channels, get("out_flags"), (get("output_zp"), get("min"), get("max")))?;
            zero_point("input_zp", get("input_zp"))?;
            zero_point("filter_zp", get("filter_zp"))?;
            pads(&get, None)?;
            let (kh, kw) = if depthwise { (filter[0], filter[1]) } else { (filter[1], filter[2]) };
            let dilation = (get("dilation_y"), get("dilation_x"));
            windows(&input, &job_result, (kh, kw), dilation, (&get, false))?;
        }
        "tynnp.avg_pool2d" | "tynnp.max_pool2d" => {
            window_shapes(&types[0], &result, "i8")?;
            if result.dims()[3] != types[0].dims()[3] {
                return Err(TynnpError::Contract(format!(
                    "gives {} channels from {}",
                    result.dims()[3],
                    types[0].dims()[3]
                )));
            }
            for attribute in ["kh", "kw", "stride_y", "stride_x"] {
                at_least(attribute, get(attribute), 1)?;
            }
            zero_point("input_zp", get("input_zp"))?;
            zero_point("output_zp", get("output_zp"))?;
            clamp(get("min"), get("max"))?;
            pads(&get, Some((get("kh"), get("kw"))))?;
            windows(&types[0].dims(), &result.dims(), (get("kh"), get("kw")), (1, 1), (&get, true))?;
        }
        "tynnp.add" | "tynnp.sub" => {
            for (t, what) in [(&types[0], "x"), (&types[1], "y")] {
                element(t, what, "i8")?;
                if t.dims() != result.dims() {
                    return Err(TynnpError::Contract(format!(
                        "needs {what} of the result's shape {}, got {}",
                        shape(&result),
                        shape(t)
                    )));
                }
            }
            element(&result, "result", out_element)?;
            for input in ["x", "y"] {
                zero_point(&format!("{input}_zp"), get(&format!("{input}_zp")))?;
                let left = get(&format!("{input}_left_shift"));
                if !(0..=30).contains(&left) {
                    return Err(TynnpError::Contract(format!(
                        "has {input}_left_shift {left}; the unit shifts by 0 to 30"
                    )));
                }
                scale(&format!("{input}_"), get(&format!("{input}_multiplier")), get(&format!("{input}_shift")), true)?;
            }
            output_stage(&types[2..4], 1, get("out_flags") & !1, (get("output_zp"), get("min"), get("max")))?;
        }
        _ => {
            table(&types, &result)?;
        }
    }
    // The output scales, when they are constants (as legalization needs them).
    if code.packed.ends_with(&["multiplier", "shift"]) && !raw {
        let (multipliers, shifts) = (op.operand_ints(expected - 2), op.operand_ints(expected - 1));
        for (multiplier, shift) in multipliers.iter().flatten().zip(shifts.iter().flatten()) {
            scale("output ", *multiplier, *shift, false)?;
        }
    }
    Ok(())
}

/// The output pixels a convolution packs into the NU's columns (`pixels`, 1 without it): only
/// a `tynnp.conv2d`, undilated along the row (its window holds every tap of the group), whose
/// stride is the group's and whose output row holds whole groups.
fn packed_pixels(op: &OpView, result: &TensorType, get: &dyn Fn(&str) -> i64) -> Result<i64, TynnpError> {
    let Some(pixels) = op.int(crate::graph::pixels::PIXELS) else { return Ok(1) };
    if pixels == 1 {
        return Ok(1);
    }
    if pixels < 1 || op.name() != "tynnp.conv2d" {
        return Err(TynnpError::Contract(format!("has pixels {pixels}; only a tynnp.conv2d packs pixels, 1 or more")));
    }
    let (ow, stride) = (result.dims()[2], get("stride_x"));
    if ow % pixels != 0 || stride % pixels != 0 || get("dilation_x") != 1 {
        return Err(TynnpError::Contract(format!(
            "packs {pixels} pixels with stride_x {stride} and dilation_x {} into {ow} output columns; packing needs whole groups, a stride of the group's and dilation_x 1",
            get("dilation_x")
        )));
    }
    Ok(pixels)
}

/// An int8 lookup (256 i8 entries) or an int16 one (513 i16 entries, int32 results).
fn table(types: &[TensorType], result: &TensorType) -> Result<(), TynnpError> {
    let (input, entries, table, output) =
        if result.element == "i32" { ("i16", 513, "i16", "i32") } else { ("i8", 256, "i8", "i8") };
    element(&types[0], "input", input)?;
    element(result, "result", output)?;
    element(&types[1], "table", table)?;
    if types[1].dims() != [entries] {
        return Err(TynnpError::Contract(format!(
            "needs a table of {entries} entries for {input} input, got {}",
            shape(&types[1])
        )));
    }
    if types[0].dims() != result.dims() {
        return Err(TynnpError::Contract(format!("gives {} from {}", shape(result), shape(&types[0]))));
    }
    Ok(())
}

fn shape(t: &TensorType) -> String {
    format!("tensor<{}{}>", t.dims().iter().map(|d| format!("{d}x")).collect::<String>(), t.element)
}

fn element(t: &TensorType, what: &str, element: &str) -> Result<(), TynnpError> {
    if t.element == element {
        Ok(())
    } else {
        Err(TynnpError::Contract(format!("needs {element} elements in the {what}, got {}", shape(t))))
    }
}

/// An NHWC batch-1 input of int8 and a result of `out` elements.
fn window_shapes(input: &TensorType, result: &TensorType, out: &str) -> Result<(), TynnpError> {
    element(input, "input", "i8")?;
    element(result, "result", out)?;
    for (t, what) in [(input, "input"), (result, "result")] {
        if t.dims().len() != 4 || t.dims()[0] != 1 {
            return Err(TynnpError::Contract(format!("needs a batch-1 NHWC {what}, got {}", shape(t))));
        }
    }
    Ok(())
}

fn at_least(attribute: &str, value: i64, low: i64) -> Result<(), TynnpError> {
    if value >= low {
        Ok(())
    } else {
        Err(TynnpError::Contract(format!("has {attribute} {value}; it must be at least {low}")))
    }
}

fn zero_point(attribute: &str, value: i64) -> Result<(), TynnpError> {
    if (-128..=127).contains(&value) {
        Ok(())
    } else {
        Err(TynnpError::Contract(format!("has {attribute} {value}, outside int8")))
    }
}

fn clamp(min: i64, max: i64) -> Result<(), TynnpError> {
    if -128 <= min && min <= max && max <= 127 {
        Ok(())
    } else {
        Err(TynnpError::Contract(format!("clamps to [{min}, {max}]; the contract needs -128 <= min <= max <= 127")))
    }
}

/// The top and left padding (and for a pooling of window `kernel`, less than the window, so that
/// every window holds an input element).
fn pads(get: &dyn Fn(&str) -> i64, kernel: Option<(i64, i64)>) -> Result<(), TynnpError> {
    for (attribute, window) in [("pad_top", kernel.map(|k| k.0)), ("pad_left", kernel.map(|k| k.1))] {
        at_least(attribute, get(attribute), 0)?;
        if let Some(window) = window.filter(|&w| get(attribute) >= w) {
            return Err(TynnpError::Contract(format!(
                "has {attribute} {} for a window of {window}: a window would hold only padding",
                get(attribute)
            )));
        }
    }
    Ok(())
}

/// The windows along the rows and columns of `input` giving `result`: some read an input row
/// and column (the reference lowering slices to what they read); for a pooling (`every`), each
/// holds an input element, as the contract requires.
fn windows(
    input: &[i64],
    result: &[i64],
    kernel: (i64, i64),
    dilation: (i64, i64),
    (get, every): (&dyn Fn(&str) -> i64, bool),
) -> Result<(), TynnpError> {
    let axes = [
        ("row", 1, kernel.0, dilation.0, "stride_y", "pad_top"),
        ("column", 2, kernel.1, dilation.1, "stride_x", "pad_left"),
    ];
    for (what, axis, k, d, stride, pad) in axes {
        let last = (result[axis] - 1) * get(stride) - get(pad);
        if last + (k - 1) * d < 0 || (every && last > input[axis] - 1) {
            return Err(TynnpError::Contract(format!(
                "gives {} output {what}s from {} input {what}s ({stride} {}, {pad} {}): a window would read no input {what}",
                result[axis],
                input[axis],
                get(stride),
                get(pad)
            )));
        }
    }
    Ok(())
}

/// An input or output scale: a shift of 0 is none (for inputs), else 2 to 62 with a multiplier
/// that is not negative.
fn scale(prefix: &str, multiplier: i64, shift: i64, optional: bool) -> Result<(), TynnpError> {
    if optional && shift == 0 {
        return Ok(());
    }
    if !(2..=62).contains(&shift) || multiplier < 0 || multiplier > i64::from(i32::MAX) {
        return Err(TynnpError::Contract(format!(
            "has {prefix}multiplier {multiplier} and {prefix}shift {shift}; the contract needs a multiplier of 0 to 2^31-1 and a shift of 2 to 62"
        )));
    }
    Ok(())
}

/// The output stage: `[multiplier, shift]` tensors for `channels` outputs under `flags`.
fn output_stage(
    constants: &[TensorType],
    channels: i64,
    flags: i64,
    (zp, min, max): (i64, i64, i64),
) -> Result<(), TynnpError> {
    if !(0..8).contains(&flags) {
        return Err(TynnpError::Contract(format!("has out_flags {flags}; only bits 0 to 2 exist")));
    }
    element(&constants[0], "multiplier", "i32")?;
    element(&constants[1], "shift", "i8")?;
    let n = if flags & 1 != 0 { channels } else { 1 };
    for t in constants {
        if t.dims() != [n] {
            let per = if flags & 1 != 0 { "per channel" } else { "per tensor" };
            return Err(TynnpError::Contract(format!("needs {n} output scale elements ({per}), got {}", shape(t))));
        }
    }
    if flags & 4 == 0 {
        zero_point("output_zp", zp)?;
        clamp(min, max)?;
    }
    Ok(())
}
