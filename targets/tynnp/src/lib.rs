//! tynnp: umac's TY-NNP-style NPU (docs/tynnp/isa.md), driven by its RV32 control unit.
//!
//! First stage of the compiler path: int8 NHWC convolutions (`tosa.conv2d` with its bias, an
//! optional `tosa.rescale` to int8 and `tosa.clamp`) become one neural-unit job each. The job's
//! tensors are copied whole from DDR into the global buffer DM by DMA, the NU convolves them with
//! the output stage of the contract, a DMA copies the result back and the control unit waits for
//! it. The code is the control unit's: `replace_call_extern` defines each call as a function that
//! writes the descriptors and issues the custom instructions (`llvm.inline_asm`), compiled into
//! the model's RV32 object. A convolution whose tensors do not fit DM is a compile error naming
//! the sizes. Ops the NPU does not take run on the control unit.

mod codegen;

use umac_backend::{
    Backend, Composite, Error, ExternArg, ExternCall, ExternCallSite, OpView, Pattern, Replacement, Strategy,
    TargetAttr, TargetAttrs, op,
};
use umac_sim::npu::{Params, params::DM_BASE};

/// The target's name.
const NAME: &str = "tynnp";
/// The function each convolution calls.
const CONV: &str = "tynnp_conv2d";

/// The backend.
pub struct Tynnp;

/// What the registry lists.
pub static BACKEND: Tynnp = Tynnp;

/// The hardware parameters as target attributes, with the contract's names (section 1).
const ATTRIBUTES: [(&str, &str); 10] = [
    ("nu-rows", "NU array rows: input channels per cycle"),
    ("nu-cols", "NU array columns: output channels per cycle"),
    ("dm-kib", "global buffer DM, KiB"),
    ("vu", "vector units"),
    ("vu-lanes", "int32 lanes per vector unit"),
    ("vm-kib", "buffer VM of each vector unit, KiB"),
    ("dma", "DMA channels"),
    ("ddr-bw", "DDR bytes per cycle"),
    ("ddr-latency", "DDR latency, cycles"),
    ("queue", "jobs each unit's queue holds"),
];

/// The NPU the attributes describe (their ranges are the contract's).
pub fn params(attributes: &TargetAttrs) -> Result<Params, Error> {
    let text: Vec<String> = ATTRIBUTES.iter().map(|(name, _)| format!("-{name}={}", attributes.int(name))).collect();
    Params::parse(&text.join(" ")).map_err(|e| Error::Target(format!("{NAME}: {e}")))
}

fn default_of(name: &str, p: &Params) -> i64 {
    i64::from(match name {
        "nu-rows" => p.nu_rows,
        "nu-cols" => p.nu_cols,
        "dm-kib" => p.dm_bytes >> 10,
        "vu" => p.vu_count,
        "vu-lanes" => p.vu_lanes,
        "vm-kib" => p.vm_bytes >> 10,
        "dma" => p.dma_channels,
        "ddr-bw" => p.ddr_bytes_per_cycle,
        "ddr-latency" => p.ddr_latency,
        _ => p.queue_depth,
    })
}

impl Backend for Tynnp {
    fn name(&self) -> &'static str {
        NAME
    }

    fn attributes(&self) -> Vec<TargetAttr> {
        let defaults = Params::default();
        ATTRIBUTES.iter().map(|&(name, help)| TargetAttr::int(name, default_of(name, &defaults), help)).collect()
    }

    fn patterns(&self, _attributes: &TargetAttrs) -> Vec<Pattern> {
        let conv = op("tosa.conv2d")
            .static_rank(0, 4)
            .element_type(0, "i8")
            .element_type(1, "i8")
            .element_type(2, "i32")
            .result_element_type("i32")
            .when("batch 1", |o| o.operand_type(0).is_some_and(|t| t.dims().first() == Some(&1)))
            .when("constant zero points", |o| (3..5).all(|i| o.operand_ints(i).is_some_and(|v| v.len() == 1)))
            .when("the int32 accumulation cannot overflow (kh·kw·ic·255·255 < 2^31)", |o| {
                o.operand_type(1).is_some_and(|w| {
                    let d = w.dims();
                    d.len() == 4 && d[1] * d[2] * d[3] * 255 * 255 < 1 << 31
                })
            });
        let rescale = op("tosa.rescale")
            .attr_is("scale32", "true")
            .attr_is("input_unsigned", "false")
            .attr_is("output_unsigned", "false")
            .result_element_type("i8")
            .when("rounds SINGLE_ROUND or DOUBLE_ROUND", |o| {
                matches!(o.attr_text("rounding_mode").as_deref(), Some("SINGLE_ROUND" | "DOUBLE_ROUND"))
            })
            .when("constant scales in the output stage's ranges, input zero point 0", |o| {
                let fits = |i: usize, ok: fn(i64) -> bool| o.operand_ints(i).is_some_and(|v| v.iter().all(|&x| ok(x)));
                fits(1, |m| (0..=i64::from(i32::MAX)).contains(&m))
                    && fits(2, |s| (2..=62).contains(&s))
                    && fits(3, |z| z == 0)
                    && o.operand_ints(4).is_some_and(|v| v.len() == 1)
            });
        let clamp = op("tosa.clamp").when("int8 bounds", |o| {
            let int8 = |v: Option<i64>| v.is_some_and(|v| (-128..=127).contains(&v));
            int8(o.int("min_val")) && int8(o.int("max_val"))
        });
        vec![Pattern::new(&format!("{NAME}.conv2d"), conv).optional(rescale).optional(clamp)]
    }

    fn strategy(&self, composite: &Composite, attributes: &TargetAttrs) -> Result<Strategy, Error> {
        let params = params(attributes)?;
        let conv = composite.get("tosa.conv2d").ok_or("no convolution")?;
        let job = ConvJob::new(conv, composite.get("tosa.rescale"), composite.get("tosa.clamp"))?;
        let layout = job.layout(&params)?;
        let operand = |role: &str, index: usize| ExternArg::Operand { role: role.into(), index };
        let mut call = ExternCall::new(CONV)
            .arg("input", operand("tosa.conv2d", 0))
            .arg("filter", operand("tosa.conv2d", 1))
            .arg("bias", operand("tosa.conv2d", 2));
        call = match composite.get("tosa.rescale") {
            Some(_) => call.arg("multiplier", operand("tosa.rescale", 1)).arg("shift", operand("tosa.rescale", 2)),
            None => call
                .arg("multiplier", ExternArg::Zeros { element: "i32", len: 1 })
                .arg("shift", ExternArg::Zeros { element: "i8", len: 1 }),
        };
        for (name, value) in job.scalars().into_iter().chain(layout.scalars()) {
            call = call.arg(name, ExternArg::I32(value));
        }
        Ok(Strategy::Extern(call))
    }

    fn replace_call_extern(&self, call: &ExternCallSite) -> Option<Replacement> {
        (call.callee == CONV).then(|| Replacement::Definition(codegen::conv2d(CONV)))
    }
}

/// One `nu.conv` job: the convolution's shapes, zero points and output stage.
struct ConvJob {
    input: [i64; 4],
    filter: [i64; 4],
    output: [i64; 4],
    stride: [i64; 2],
    dilation: [i64; 2],
    pad: [i64; 4],
    input_zp: i64,
    filter_zp: i64,
    /// OUT: flags, output zero point, bounds; per-channel scale count.
    out_flags: i64,
    output_zp: i64,
    min: i64,
    max: i64,
    scales: i64,
}

/// The byte offsets in DM of one job's tensors.
struct Layout {
    input: i64,
    filter: i64,
    bias: i64,
    multiplier: i64,
    shift: i64,
    output: i64,
    bytes: [i64; 6],
}

fn dims4(t: Option<umac_backend::TensorType>, what: &str) -> Result<[i64; 4], Error> {
    t.map(|t| t.dims())
        .and_then(|d| <[i64; 4]>::try_from(d).ok())
        .ok_or_else(|| Error::Unsupported(format!("the {what} is not a static rank-4 tensor")))
}

impl ConvJob {
    fn new(conv: &OpView, rescale: Option<&OpView>, clamp: Option<&OpView>) -> Result<ConvJob, Error> {
        let ints = |name: &str, n: usize| {
            conv.ints(name).filter(|v| v.len() == n).ok_or(Error::Unsupported(format!("conv2d without {name}")))
        };
        let scalar = |o: &OpView, i: usize, what: &str| {
            o.operand_ints(i).and_then(|v| v.first().copied()).ok_or(Error::Unsupported(format!("no constant {what}")))
        };
        let (stride, dilation, pad) = (ints("stride", 2)?, ints("dilation", 2)?, ints("pad", 4)?);
        let output = dims4(conv.result_type(), "result")?;
        let (mut out_flags, mut output_zp, mut min, mut max, mut scales) = (4, 0, -128, 127, 1);
        if let Some(r) = rescale {
            let multipliers = r.operand_ints(1).ok_or("no constant multipliers")?;
            scales = multipliers.len() as i64;
            let per_channel = scales > 1;
            if per_channel && scales != output[3] {
                return Err(format!("{scales} multipliers for {} output channels", output[3]).into());
            }
            let double = r.attr_text("rounding_mode").as_deref() == Some("DOUBLE_ROUND");
            out_flags = i64::from(per_channel) | i64::from(double) << 1;
            output_zp = scalar(r, 4, "output zero point")?;
        }
        if let Some(c) = clamp {
            if rescale.is_none() {
                return Err("a clamp of int32 accumulators (the NU clamps int8 results)".into());
            }
            min = c.int("min_val").ok_or("clamp without min_val")?.max(-128);
            max = c.int("max_val").ok_or("clamp without max_val")?.min(127);
        }
        Ok(ConvJob {
            input: dims4(conv.operand_type(0), "input")?,
            filter: dims4(conv.operand_type(1), "filter")?,
            output,
            stride: [stride[0], stride[1]],
            dilation: [dilation[0], dilation[1]],
            pad: [pad[0], pad[1], pad[2], pad[3]],
            input_zp: scalar(conv, 3, "input zero point")?,
            filter_zp: scalar(conv, 4, "filter zero point")?,
            out_flags,
            output_zp,
            min,
            max,
            scales,
        })
    }

    /// Whether the output is raw int32.
    fn raw(&self) -> bool {
        self.out_flags & 4 != 0
    }

    /// The DM layout of the job's tensors: each 16-byte aligned, in operand order.
    fn layout(&self, params: &Params) -> Result<Layout, Error> {
        let [_, ih, iw, ic] = self.input;
        let [oc, kh, kw, _] = self.filter;
        let [_, oh, ow, _] = self.output;
        let bytes = [
            ih * iw * ic,
            oc * kh * kw * ic,
            4 * oc,
            4 * self.scales,
            self.scales,
            oh * ow * oc * if self.raw() { 4 } else { 1 },
        ];
        let mut offsets = [0i64; 6];
        let mut end = 0;
        for (o, b) in offsets.iter_mut().zip(bytes) {
            *o = end;
            end = (end + b + 15) / 16 * 16;
        }
        if end > i64::from(params.dm_bytes) {
            let names = ["input", "filter", "bias", "multipliers", "shifts", "output"];
            let parts: Vec<String> = names.iter().zip(bytes).map(|(n, b)| format!("{n} {b}")).collect();
            return Err(Error::Unsupported(format!(
                "the convolution's tensors need {end} bytes of DM ({}), DM has {} (-dm-kib={}); tiling is not done yet",
                parts.join(", "),
                params.dm_bytes,
                params.dm_bytes >> 10
            )));
        }
        let at = |i: usize| i64::from(DM_BASE) + offsets[i];
        Ok(Layout { input: at(0), filter: at(1), bias: at(2), multiplier: at(3), shift: at(4), output: at(5), bytes })
    }

    /// The descriptor's scalar fields, named as the definition takes them.
    fn scalars(&self) -> Vec<(&'static str, i64)> {
        let [_, ih, iw, ic] = self.input;
        let [oc, kh, kw, _] = self.filter;
        let [_, oh, ow, _] = self.output;
        vec![
            ("ih", ih),
            ("iw", iw),
            ("ic", ic),
            ("input_zp", self.input_zp),
            ("oc", oc),
            ("kh", kh),
            ("kw", kw),
            ("filter_zp", self.filter_zp),
            ("oh", oh),
            ("ow", ow),
            ("stride_y", self.stride[0]),
            ("stride_x", self.stride[1]),
            ("dilation_y", self.dilation[0]),
            ("dilation_x", self.dilation[1]),
            ("pad_top", self.pad[0]),
            ("pad_left", self.pad[2]),
            ("out_flags", self.out_flags),
            ("output_zp", self.output_zp),
            ("min", self.min),
            ("max", self.max),
        ]
    }
}

impl Layout {
    fn scalars(&self) -> Vec<(&'static str, i64)> {
        let [input, filter, bias, multiplier, shift, output] = self.bytes;
        vec![
            ("dm_input", self.input),
            ("dm_filter", self.filter),
            ("dm_bias", self.bias),
            ("dm_multiplier", self.multiplier),
            ("dm_shift", self.shift),
            ("dm_output", self.output),
            ("input_bytes", input),
            ("filter_bytes", filter),
            ("bias_bytes", bias),
            ("multiplier_bytes", multiplier),
            ("shift_bytes", shift),
            ("output_bytes", output),
        ]
    }
}
