//! vanilla: the tutorial accelerator (docs/adding-an-accelerator.md). It claims int8 NHWC
//! convolutions — `tosa.conv2d` with an optional bias `tosa.add`, `tosa.rescale` and
//! `tosa.clamp` after it — and computes each with one call of its C kernel,
//! `vanilla_conv2d_s8` (runtime/kernels/vanilla.c, declared in runtime/include/umac/vanilla.h).

use crate::backend::{
    Backend, Composite, ExternArg, ExternCall, OpView, Pattern, Phase, PhasePass, Strategy, TargetAttr, TargetAttrs,
    op,
};
use umac_runtime::kernels::{Kernel, kernel};

/// The target's name: in target strings, `umac.target`, and its functions' names.
const NAME: &str = "vanilla";
/// The C function each convolution becomes.
const KERNEL: &str = "vanilla_conv2d_s8";

/// The backend.
pub struct Vanilla;

/// What the registry lists.
pub static BACKEND: Vanilla = Vanilla;

impl Backend for Vanilla {
    fn name(&self) -> &'static str {
        NAME
    }

    fn attributes(&self) -> Vec<TargetAttr> {
        vec![TargetAttr::int("dimension", 16, "the largest kernel height and width the MAC array takes")]
    }

    fn patterns(&self, attributes: &TargetAttrs) -> Vec<Pattern> {
        let dimension = attributes.int("dimension");
        let conv = op("tosa.conv2d")
            .static_rank(0, 4)
            .element_type(0, "i8")
            .element_type(1, "i8")
            .element_type(2, "i32")
            .result_element_type("i32")
            .ints("stride", "stride is 1 or 2", |s| s.iter().all(|v| (1..=2).contains(v)))
            .ints("dilation", "dilation is 1x1", |d| d == [1, 1])
            .when(&format!("the kernel fits the {dimension}x{dimension} array"), move |o| {
                o.operand_type(1).is_some_and(|w| w.dims().get(1..3).is_some_and(|hw| hw.iter().all(|d| (1..=dimension).contains(d))))
            });
        let bias = op("tosa.add").when("adds an int32 constant per channel", |o| (0..2).any(|i| per_channel_constant(o, i)));
        let rescale = op("tosa.rescale")
            .attr_is("scale32", "true")
            .attr_is("input_unsigned", "false")
            .attr_is("output_unsigned", "false")
            .result_element_type("i8")
            .when("rounds SINGLE_ROUND or DOUBLE_ROUND", |o| {
                matches!(o.attr_text("rounding_mode").as_deref(), Some("SINGLE_ROUND" | "DOUBLE_ROUND"))
            });
        let clamp = op("tosa.clamp");
        vec![Pattern::new(&format!("{NAME}.conv2d"), conv).optional(bias).optional(rescale).optional(clamp)]
    }

    fn strategy(&self, composite: &Composite, _attributes: &TargetAttrs) -> Result<Strategy, String> {
        let conv = composite.get("tosa.conv2d").ok_or("no convolution")?;
        let dims = |o: &OpView, i: usize| o.operand_type(i).map(|t| t.dims()).unwrap_or_default();
        let (input, filter, output) = (dims(conv, 0), dims(conv, 1), conv.result_type().map(|t| t.dims()).unwrap_or_default());
        let ints = |name: &str, n: usize| conv.ints(name).filter(|v| v.len() == n).ok_or(format!("conv2d without {name}"));
        let (pad, stride, dilation) = (ints("pad", 4)?, ints("stride", 2)?, ints("dilation", 2)?);
        if input.len() != 4 || filter.len() != 4 || output.len() != 4 {
            return Err("conv2d operands are not rank 4".into());
        }
        let operand = |role: &str, index: usize| ExternArg::Operand { role: role.into(), index };
        let zeros = |element: &'static str| ExternArg::Zeros { element, len: 1 };
        let mut arguments: Vec<ExternArg> = (0..5).map(|i| operand("tosa.conv2d", i)).collect();
        let add_len = match composite.get("tosa.add") {
            Some(add) => {
                let index = (0..2).find(|&i| per_channel_constant(add, i)).ok_or("bias add without a constant")?;
                arguments.push(operand("tosa.add", index));
                dims(add, index).iter().product()
            }
            None => {
                arguments.push(zeros("i32"));
                0
            }
        };
        let rescale = composite.get("tosa.rescale");
        let (rounding, scale_len, low, high) = match rescale {
            Some(r) => {
                arguments.extend((1..5).map(|i| operand("tosa.rescale", i)));
                let rounding = if r.attr_text("rounding_mode").as_deref() == Some("DOUBLE_ROUND") { 2 } else { 1 };
                (rounding, dims(r, 1).iter().product(), -128, 127)
            }
            None => {
                arguments.extend([zeros("i32"), zeros("i8"), zeros("i32"), zeros("i8")]);
                (0, 1, i64::from(i32::MIN), i64::from(i32::MAX))
            }
        };
        let clamp = composite.get("tosa.clamp");
        let bound = |name: &str, default: i64| clamp.and_then(|c| c.int(name)).unwrap_or(default);
        let scalars = [
            input[0], input[1], input[2], input[3], output[1], output[2], output[3], filter[1], filter[2], pad[0], pad[2],
            stride[0], stride[1], dilation[0], dilation[1], dims(conv, 2).iter().product(), add_len, rounding, scale_len,
            bound("min_val", low), bound("max_val", high),
        ];
        arguments.extend(scalars.into_iter().map(ExternArg::I32));
        Ok(Strategy::Extern(ExternCall { callee: KERNEL.into(), arguments }))
    }

    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        // Drop the constants legalization left unused in vanilla's functions.
        vec![PhasePass { phase: Phase::PostLegalization, pipeline: "canonicalize".into() }]
    }

    fn includes(&self) -> String {
        "#include \"umac/vanilla.h\"\n".into()
    }

    fn kernels(&self) -> Vec<Kernel> {
        kernel(KERNEL).into_iter().collect()
    }
}

/// Whether operand `index` of `add` is an int32 constant of shape 1x..x1 or 1x..x1xC.
fn per_channel_constant(add: &OpView, index: usize) -> bool {
    let Some(t) = add.operand_type(index) else { return false };
    let dims = t.dims();
    add.operand_is_constant(index) && t.element == "i32" && dims.iter().rev().skip(1).all(|&d| d == 1) && !dims.is_empty()
}
