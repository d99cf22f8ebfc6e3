//! vanilla: the tutorial accelerator (docs/adding-an-accelerator.md). It claims int8 NHWC
//! convolutions — `tosa.conv2d` with an optional bias `tosa.add`, `tosa.rescale` and
//! `tosa.clamp` after it — and computes each with one call of its C kernel,
//! `vanilla_conv2d_s8` (`kernels/vanilla.c`, declared in `include/umac/vanilla.h`).

use umac_backend::{
    Backend, Composite, Error, ExternArg, ExternCall, Kernel, OpView, Param, Pattern, Phase, PhasePass, SourceFile,
    Strategy, TargetAttr, TargetAttrs, kernel::Scalar, op, requantize_to_int8,
};

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
                o.operand_type(1).is_some_and(|w| {
                    w.dims().get(1..3).is_some_and(|hw| hw.iter().all(|d| (1..=dimension).contains(d)))
                })
            });
        let bias =
            op("tosa.add").when("adds an int32 constant per channel", |o| (0..2).any(|i| per_channel_constant(o, i)));
        let rescale = requantize_to_int8();
        let clamp = op("tosa.clamp");
        vec![Pattern::new(&format!("{NAME}.conv2d"), conv).optional(bias).optional(rescale).optional(clamp)]
    }

    fn strategy(&self, composite: &Composite, _attributes: &TargetAttrs) -> Result<Strategy, Error> {
        let conv = composite.get("tosa.conv2d").ok_or("no convolution")?;
        let dims = |o: &OpView, i: usize| o.operand_type(i).map(|t| t.dims()).unwrap_or_default();
        let (input, filter, output) =
            (dims(conv, 0), dims(conv, 1), conv.result_type().map(|t| t.dims()).unwrap_or_default());
        let ints =
            |name: &str, n: usize| conv.ints(name).filter(|v| v.len() == n).ok_or(format!("conv2d without {name}"));
        let (pad, stride, dilation) = (ints("pad", 4)?, ints("stride", 2)?, ints("dilation", 2)?);
        if input.len() != 4 || filter.len() != 4 || output.len() != 4 {
            return Err("conv2d operands are not rank 4".into());
        }
        let operand = |role: &str, index: usize| ExternArg::Operand { role: role.into(), index };
        let zeros = |element: &'static str| ExternArg::Zeros { element, len: 1 };
        let conv_operand = |i: usize| operand("tosa.conv2d", i);
        let mut call = ExternCall::new(KERNEL)
            .arg("input", conv_operand(0))
            .arg("filter", conv_operand(1))
            .arg("bias", conv_operand(2))
            .arg("input_zp", conv_operand(3))
            .arg("filter_zp", conv_operand(4));
        let add_len = match composite.get("tosa.add") {
            Some(add) => {
                let index = (0..2).find(|&i| per_channel_constant(add, i)).ok_or("bias add without a constant")?;
                call = call.arg("add", operand("tosa.add", index));
                dims(add, index).iter().product()
            }
            None => {
                call = call.arg("add", zeros("i32"));
                0
            }
        };
        let rescale = composite.get("tosa.rescale");
        let (rounding, scale_len, low, high) = match rescale {
            Some(r) => {
                let names = ["multiplier", "shift", "rescale_input_zp", "output_zp"];
                for (name, index) in names.into_iter().zip(1..5) {
                    call = call.arg(name, operand("tosa.rescale", index));
                }
                let rounding = if r.attr_text("rounding_mode").as_deref() == Some("DOUBLE_ROUND") { 2 } else { 1 };
                (rounding, dims(r, 1).iter().product(), -128, 127)
            }
            None => {
                let absent = [("multiplier", "i32"), ("shift", "i8"), ("rescale_input_zp", "i32"), ("output_zp", "i8")];
                for (name, element) in absent {
                    call = call.arg(name, zeros(element));
                }
                (0, 1, i64::from(i32::MIN), i64::from(i32::MAX))
            }
        };
        let clamp = composite.get("tosa.clamp");
        let bound = |name: &str, default: i64| clamp.and_then(|c| c.int(name)).unwrap_or(default);
        let scalars = [
            ("batch", input[0]),
            ("in_h", input[1]),
            ("in_w", input[2]),
            ("in_c", input[3]),
            ("out_h", output[1]),
            ("out_w", output[2]),
            ("out_c", output[3]),
            ("k_h", filter[1]),
            ("k_w", filter[2]),
            ("pad_top", pad[0]),
            ("pad_left", pad[2]),
            ("stride_h", stride[0]),
            ("stride_w", stride[1]),
            ("dilation_h", dilation[0]),
            ("dilation_w", dilation[1]),
            ("bias_len", dims(conv, 2).iter().product()),
            ("add_len", add_len),
            ("rounding", rounding),
            ("scale_len", scale_len),
            ("clamp_min", bound("min_val", low)),
            ("clamp_max", bound("max_val", high)),
        ];
        for (name, value) in scalars {
            call = call.arg(name, ExternArg::I32(value));
        }
        Ok(Strategy::Extern(call))
    }

    fn passes(&self, _attributes: &TargetAttrs) -> Vec<PhasePass> {
        // Drop the constants legalization left unused in vanilla's functions.
        vec![PhasePass { phase: Phase::PostLegalization, pipeline: "canonicalize".into() }]
    }

    fn includes(&self) -> String {
        "#include \"umac/vanilla.h\"\n".into()
    }

    fn kernels(&self) -> Vec<Kernel> {
        vec![conv2d_s8()]
    }
}

unsafe extern "C" {
    /// The kernel compiled into this crate by `build.rs`; only its address is taken (umac's JITs
    /// call it with the arguments its prototype names).
    fn vanilla_conv2d_s8();
}

/// `vanilla_conv2d_s8`, as `include/umac/vanilla.h` declares it.
fn conv2d_s8() -> Kernel {
    let int32 = Param::int32;
    let mut parameters = vec![
        Param::input("input", Scalar::I8),
        Param::input("filter", Scalar::I8),
        Param::input("bias", Scalar::I32),
        Param::input("input_zp", Scalar::I8),
        Param::input("filter_zp", Scalar::I8),
        Param::input("add", Scalar::I32),
        Param::input("multiplier", Scalar::I32),
        Param::input("shift", Scalar::I8),
        Param::input("rescale_input_zp", Scalar::I32),
        Param::input("output_zp", Scalar::I8),
    ];
    parameters.extend(
        [
            "batch",
            "in_h",
            "in_w",
            "in_c",
            "out_h",
            "out_w",
            "out_c",
            "k_h",
            "k_w",
            "pad_top",
            "pad_left",
            "stride_h",
            "stride_w",
            "dilation_h",
            "dilation_w",
            "bias_len",
            "add_len",
            "rounding",
            "scale_len",
            "clamp_min",
            "clamp_max",
        ]
        .map(int32),
    );
    // int8 after a rescale, int32 without one.
    parameters.push(Param::output("output", None));
    Kernel {
        symbol: KERNEL,
        parameters,
        address: vanilla_conv2d_s8 as *const () as usize,
        source: SourceFile { path: "vanilla.c", text: include_str!("../kernels/vanilla.c") },
        headers: vec![SourceFile { path: "umac/vanilla.h", text: include_str!("../include/umac/vanilla.h") }],
    }
}

/// Whether operand `index` of `add` is an int32 constant of shape 1x..x1 or 1x..x1xC.
fn per_channel_constant(add: &OpView, index: usize) -> bool {
    let Some(t) = add.operand_type(index) else { return false };
    let dims = t.dims();
    add.operand_is_constant(index)
        && t.element == "i32"
        && dims.iter().rev().skip(1).all(|&d| d == 1)
        && !dims.is_empty()
}

#[cfg(test)]
mod tests {
    /// The prototype umac checks calls against and writes into generated headers is the one
    /// vanilla.h declares (up to whitespace), so the C compiler sees one function.
    #[test]
    fn the_prototype_is_the_headers() {
        let kernel = super::conv2d_s8();
        let header: String = kernel.headers[0].text.split_whitespace().collect::<Vec<_>>().join(" ");
        let prototype: String = kernel.prototype().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(header.contains(&prototype), "{prototype}");
    }
}
