//! The composites tynnp takes (targets/tynnp/docs/compiler.md lists them) and the predicates that keep
//! each within what its job computes bit for bit.

use crate::{kernel::jobs, target::NAME};
use umac_backend::{OpPattern, OpView, Pattern, constant, op, requantize_to_int8};
use umac_tynnp_device::Params;

/// Every composite pattern, in priority order, for the NPU `params` describes.
pub fn all(params: Params) -> Vec<Pattern> {
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
    let primitives = crate::graph::primitives::OPS.into_iter().map(|name| Pattern::new(name, op(name)));
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
            Pattern::new(&format!("{NAME}.table"), table(params)),
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
/// int32 through a constant 513-entry one, on a static tensor with elements enough that the NPU
/// kernel costs less than the control unit's lookups ([`table_pays`]).
fn table(params: Params) -> OpPattern {
    op("tosa.table")
        .operand(1, constant())
        .when("int8 to int8 through 256 entries, or int16 to int32 through 513", |o| lookup(o).is_some())
        .when("a static shape with elements", |o| {
            o.result_type().is_some_and(|r| r.is_static() && r.dims().iter().product::<i64>() > 0)
        })
        .when("elements enough to pay for an NPU kernel (the control unit looks up fewer sooner)", move |o| {
            let elements = o.result_type().map_or(0, |r| r.dims().iter().product::<i64>());
            lookup(o).is_some_and(|wide| table_pays(elements, wide, &params))
        })
}

/// Whether `o` is a lookup `vu.table` takes, and then whether it is the int16 one.
fn lookup(o: &OpView) -> Option<bool> {
    let (input, table, result) = (o.operand_type(0)?, o.operand_type(1)?, o.result_type()?);
    match (input.element.as_str(), result.element.as_str()) {
        ("i8", "i8") if table.dims() == [256] => Some(false),
        ("i16", "i32") if table.dims() == [513] => Some(true),
        _ => None,
    }
}

/// Whether a lookup of `elements` (int16 when `wide`) costs the NPU no more cycles than the
/// control unit. A lookup alone (as a softmax's are, between operators of the control unit) is
/// an NPU kernel that copies its table and its input in over DDR, one job, and copies the
/// result out: two DDR latencies one after the other, the transfers, the job (`isa.md` 5.3) and
/// the control unit's descriptors and waits (about 50 cycles). On the control unit an element
/// costs its loads from DDR (the input, and the table's entry, two for int16's interpolation;
/// `1 + ddr-latency / 4` each, `isa.md` 3) and about 6 other instructions (13 for int16). So at
/// the default parameters an int16 lookup of 5 elements or more goes to the NPU (VWW's 2-class
/// softmax stays on the control unit, KWS's 12 classes do not), an int8 one of 6 or more.
pub fn table_pays(elements: i64, wide: bool, params: &Params) -> bool {
    let ceil = |a: i64, b: u32| (a + i64::from(b) - 1) / i64::from(b.max(1));
    let (latency, bw, lanes) = (i64::from(params.ddr_latency), params.ddr_bytes_per_cycle, params.vu_lanes);
    let (entries, in_bytes, out_bytes) = if wide { (513, 2, 4) } else { (256, 1, 1) };
    let copy_in = latency + ceil(entries * in_bytes, bw).max(ceil(elements * in_bytes, bw));
    let job = 8 + ceil(elements, lanes) + ceil(entries, lanes);
    let npu = 50 + copy_in + job + latency + ceil(elements * out_bytes, bw);
    let (loads, others) = if wide { (3, 13) } else { (2, 6) };
    let cu = elements * (loads * (1 + latency / 4) + others);
    cu >= npu
}

/// A clamp within int8.
fn clamp() -> OpPattern {
    op("tosa.clamp").when("int8 bounds", |o| {
        let int8 = |v: Option<i64>| v.is_some_and(|v| (-128..=127).contains(&v));
        int8(o.int("min_val")) && int8(o.int("max_val"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At the default parameters (DDR latency 64, 16 bytes a cycle, 16 lanes), by hand: an int16
    /// lookup alone costs the NPU `50 + (64 + 65) + (8 + 1 + 33) + (64 + ceil(4n / 16))` = 287
    /// cycles for 5 elements, the control unit `n · (3 · 17 + 13)` = 320; for 4, 256 against 286.
    /// An int8 one: 220 against `n · (2 · 17 + 6)`, 240 for 6 elements, 200 for 5.
    #[test]
    fn a_lookup_goes_to_the_npu_when_it_costs_less_there() {
        let defaults = Params::default();
        assert!(!table_pays(4, true, &defaults));
        assert!(table_pays(5, true, &defaults));
        assert!(!table_pays(5, false, &defaults));
        assert!(table_pays(6, false, &defaults));
        // VWW's 2-class softmax, KWS's 12 and IC's 10.
        assert!(!table_pays(2, true, &defaults));
        assert!(table_pays(12, true, &defaults) && table_pays(10, true, &defaults));
        // Without DDR latency the control unit's loads cost 1 cycle each: int16 costs it 16 an
        // element against the NPU's 158 (`50 + 65 + 42 + 0 + 1`), so 10 elements and more.
        let near = Params { ddr_latency: 0, ..defaults };
        assert!(!table_pays(9, true, &near));
        assert!(table_pays(10, true, &near));
    }
}
