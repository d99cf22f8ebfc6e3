//! The composites tynnp takes (docs/tynnp/compiler.md lists them) and the predicates that keep
//! each within what its job computes bit for bit.

use crate::{NAME, jobs};
use umac_backend::{OpPattern, OpView, Pattern, constant, op, requantize_to_int8};

/// Every composite pattern, in priority order.
pub fn all() -> Vec<Pattern> {
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
    // A primitive op is its own composite (one job), named as the op.
    let primitives = crate::primitives::OPS.into_iter().map(|name| Pattern::new(name, op(name)));
    primitives
        .chain([
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
        ])
        .collect()
}

fn batch_1(o: &OpView) -> bool {
    o.operand_type(0).is_some_and(|t| t.dims().first() == Some(&1))
}

/// An int8 (depthwise) convolution with constant zero points whose int32 accumulation cannot
/// overflow (`terms(filter dims) · 255 · 255 < 2^31`).
fn convolution(name: &str, terms: fn(&[i64]) -> i64) -> OpPattern {
    op(name)
        // Packed into the job's constant record at compile time.
        .when("a constant filter (or a reshape of one it alone reads) and bias", |o| {
            // The reshape joins the composite only when nothing else reads its result (a model
            // compiled with its intermediates exposed returns it too).
            let reshaped =
                |p: OpView| p.name() == "tosa.reshape" && p.operand_is_constant(0) && p.only_user().is_some();
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
        .when("int8 to int8 through 256 entries, or int16 to int32 through 513", |o| {
            let (Some(input), Some(table), Some(result)) = (o.operand_type(0), o.operand_type(1), o.result_type())
            else {
                return false;
            };
            match (input.element.as_str(), result.element.as_str()) {
                ("i8", "i8") => table.dims() == [256],
                ("i16", "i32") => table.dims() == [513],
                _ => false,
            }
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
