//! The jobs tynnp runs a composite as (targets/tynnp/docs/isa.md, section 5): `nu.conv` for a
//! convolution, `vu.dwconv` for a depthwise convolution, `vu.pool` for average and max pooling —
//! the descriptor each needs, taken from the composite's shapes, attributes and constants, and
//! the job's constants (filter, bias, multipliers, shifts) packed at compile time into one
//! record in the layout of its DM regions, so one DMA copy brings them in.

use crate::kernel::code::{Field, Field::*, JobCode};
use umac_backend::{Composite, Error, ExternArg, OpView, TensorType};

/// What a window job (depthwise convolution, pooling) split into bands of output rows changes
/// per band: where its input starts, its rows, its top padding, its output rows and where they go.
pub(crate) const ROWS: [Field; 5] = [Dm("input"), Scalar("ih"), Scalar("pad_top"), Scalar("oh"), Dm("output")];

/// The banded field of a pooling's channels: a band of a tile with fewer output rows than bands
/// takes some of its channels over all its rows (`schedule::tiling::Bands`), a band of rows
/// every channel. Its descriptor's `c` is the band's channels, `pitch` the tensor's (`c`).
pub(crate) const CHANNELS: &str = "channels";

/// What a pooling split into bands changes per band: [`ROWS`] and its channels.
const POOL_BANDS: [Field; 6] =
    [Dm("input"), Scalar("ih"), Scalar("pad_top"), Scalar("oh"), Dm("output"), Scalar(CHANNELS)];

/// What an elementwise job split into bands of elements changes per band.
pub(crate) const ELEMENTS: [Field; 4] = [Dm("x"), Dm("y"), Dm("output"), Scalar("count")];

const CONV_SCALARS: [&str; 20] = [
    "ih",
    "iw",
    "ic",
    "input_zp",
    "oc",
    "kh",
    "kw",
    "filter_zp",
    "oh",
    "ow",
    "stride_y",
    "stride_x",
    "dilation_y",
    "dilation_x",
    "pad_top",
    "pad_left",
    "out_flags",
    "output_zp",
    "min",
    "max",
];

/// `nu.conv` (custom-1, funct3 0).
pub static CONV: JobCode = CONV_CODE;

/// `nu.conv` of a convolution with its kernel columns folded into its input channels.
pub static CONV_FOLDED: JobCode = JobCode { callee: "tynnp_conv2d_folded", folded: true, ..CONV_CODE };

/// `nu.conv` of a convolution with its kernel rows and columns folded into its input channels.
pub static CONV_IM2COL: JobCode = JobCode { callee: "tynnp_conv2d_im2col", folded: true, im2col: true, ..CONV_CODE };

/// The role of the reshape of a constant filter in a convolution composite.
pub(crate) const FILTER_RESHAPE: &str = "filter.reshape";

/// The DM regions of a convolution's packed constants.
const WEIGHTS: [&str; 4] = ["filter", "bias", "multiplier", "shift"];

const CONV_CODE: JobCode = JobCode {
    callee: "tynnp_conv2d",
    what: "convolution",
    packed: &WEIGHTS,
    scalars: &CONV_SCALARS,
    // job_flags: bias present.
    aliases: &[("job_flags", Const(1)), ("reserved", Const(0))],
    insn: (1, 0, 0, 0),
    banded: &ROWS,
    folded: false,
    im2col: false,
    units: false,
    element_bytes: (1, 1),
};

/// `vu.dwconv` (custom-2, funct3 0) on the vector units.
pub static DWCONV: JobCode = JobCode {
    callee: "tynnp_dwconv2d",
    what: "depthwise convolution",
    packed: &WEIGHTS,
    // `ic` is the channel count c, `oc` the depth multiplier.
    scalars: &CONV_SCALARS,
    aliases: &[("c", Scalar("ic")), ("mult", Scalar("oc")), ("job_flags", Const(1)), ("reserved", Const(0))],
    insn: (2, 0, 0, 0),
    banded: &ROWS,
    folded: false,
    im2col: false,
    units: true,
    element_bytes: (1, 1),
};

const POOL_SCALARS: [&str; 15] = [
    "ih",
    "iw",
    "c",
    "oh",
    "ow",
    "kh",
    "kw",
    "stride_y",
    "stride_x",
    "pad_top",
    "pad_left",
    "input_zp",
    "output_zp",
    "min",
    "max",
];

/// `vu.pool` average (custom-2, funct3 1, funct7 1) on the vector units.
pub static AVG_POOL: JobCode = POOL_CODE;

/// `vu.pool` maximum (funct7 0).
pub static MAX_POOL: JobCode = JobCode { callee: "tynnp_max_pool2d", insn: (2, 1, 0, 0), ..POOL_CODE };

const POOL_CODE: JobCode = JobCode {
    callee: "tynnp_avg_pool2d",
    what: "pooling",
    packed: &[],
    scalars: &POOL_SCALARS,
    aliases: &[("c", Scalar(CHANNELS)), ("pitch", Scalar("c"))],
    insn: (2, 1, 1, 0),
    banded: &POOL_BANDS,
    folded: false,
    im2col: false,
    units: true,
    element_bytes: (1, 1),
};

/// The scalars of one `vu.eltwise` input, in descriptor order after its DM address and stride.
const X: [&str; 4] = ["x_zp", "x_left_shift", "x_multiplier", "x_shift"];
const Y: [&str; 4] = ["y_zp", "y_left_shift", "y_multiplier", "y_shift"];

const ELTWISE_SCALARS: [&str; 13] =
    [X[0], X[1], X[2], X[3], Y[0], Y[1], Y[2], Y[3], "count", "out_flags", "output_zp", "min", "max"];

/// `vu.eltwise` add (custom-2, funct3 2, funct7 0) on the vector units.
pub static ADD: JobCode = ELTWISE_CODE;

/// `vu.eltwise` sub (funct7 1).
pub static SUB: JobCode = JobCode { callee: "tynnp_sub", insn: (2, 2, 1, 0), ..ELTWISE_CODE };

const ELTWISE_CODE: JobCode = JobCode {
    callee: "tynnp_add",
    what: "elementwise op",
    packed: &["multiplier", "shift"],
    scalars: &ELTWISE_SCALARS,
    // One byte per element of each input.
    aliases: &[("x_stride", Const(1)), ("y_stride", Const(1)), ("reserved", Const(0))],
    insn: (2, 2, 0, 0),
    banded: &ELEMENTS,
    folded: false,
    im2col: false,
    units: true,
    element_bytes: (1, 1),
};

/// Every kind of job, as `describe_call` finds a kernel's.
pub static CODES: [&JobCode; 10] =
    [&CONV, &CONV_FOLDED, &CONV_IM2COL, &DWCONV, &AVG_POOL, &MAX_POOL, &ADD, &SUB, &TABLE, &TABLE16];

/// What a table lookup split into bands of elements changes per band.
pub(crate) const LOOKUPS: [Field; 3] = [Dm("input"), Dm("output"), Scalar("count")];

/// `vu.table` of int8 (custom-2, funct3 3, funct7 0) on the vector units: a 256-entry int8 table.
pub static TABLE: JobCode = TABLE_CODE;

/// `vu.table` of int16 (funct7 1): a 513-entry int16 table, interpolated, int32 results.
pub static TABLE16: JobCode =
    JobCode { callee: "tynnp_table16", insn: (2, 3, 1, 0), element_bytes: (2, 4), ..TABLE_CODE };

const TABLE_CODE: JobCode = JobCode {
    callee: "tynnp_table",
    what: "table lookup",
    packed: &["table"],
    scalars: &["count"],
    aliases: &[],
    insn: (2, 3, 0, 0),
    banded: &LOOKUPS,
    folded: false,
    im2col: false,
    units: true,
    element_bytes: (1, 1),
};

/// One job of a composite: its code, the tensors it copies in tile by tile, its constants, the
/// descriptor's scalars and the bytes of each tiled tensor and of the output.
pub struct Job {
    pub code: &'static JobCode,
    /// The tensors copied in tile by tile (the input, or `x` and `y`).
    pub operands: Vec<ExternArg>,
    /// The bytes of each of [`JobCode::packed`]'s regions, as the job reads them in DM.
    pub constants: Vec<Vec<u8>>,
    pub scalars: Vec<(&'static str, i64)>,
    /// The bytes of each tiled tensor, then of the output.
    pub bytes: Vec<i64>,
    /// How many output pixels a convolution's job packs into the NU's columns (`pixels.rs`).
    pub pixels: i64,
}

impl Job {
    /// The descriptor scalar `name`.
    pub fn scalar(&self, name: &str) -> Result<i64, Error> {
        self.scalars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| Error::Invalid(format!("the {} has no {name}", self.code.what)))
    }

    /// The constants as one record laid out as their DM regions are (each from a 16-byte
    /// boundary, zeros between), copied into DM by one DMA; `None` for a job without constants.
    pub fn packed(&self) -> Option<Vec<u8>> {
        let mut record = Vec::new();
        for part in &self.constants {
            record.resize(record.len().next_multiple_of(16), 0);
            record.extend_from_slice(part);
        }
        (!record.is_empty()).then_some(record)
    }

    /// The regions of the packed constants: name and bytes.
    pub fn constant_regions(&self) -> impl Iterator<Item = (String, i64)> + '_ {
        self.code.packed.iter().zip(&self.constants).map(|(name, part)| (name.to_string(), part.len() as i64))
    }
}

/// The little-endian bytes of `values` of `width` bytes each (1 or 4).
pub(crate) fn bytes_of(values: &[i64], width: usize) -> Vec<u8> {
    values.iter().flat_map(|&v| (v as i32).to_le_bytes().into_iter().take(width)).collect()
}

/// The values of constant operand `index` of `o`.
fn constant_of(o: &OpView, index: usize, what: &str) -> Result<Vec<i64>, Error> {
    o.operand_ints(index).ok_or_else(|| Error::Unsupported(format!("the {what} is not a constant")))
}

fn dims4(t: Option<TensorType>, what: &str) -> Result<[i64; 4], Error> {
    t.map(|t| t.dims())
        .and_then(|d| <[i64; 4]>::try_from(d).ok())
        .ok_or_else(|| Error::Unsupported(format!("the {what} is not a static rank-4 tensor")))
}

fn ints(o: &OpView, name: &str, n: usize) -> Result<Vec<i64>, Error> {
    o.ints(name).filter(|v| v.len() == n).ok_or(Error::Unsupported(format!("{} without {name}", o.name())))
}

fn scalar(o: &OpView, i: usize, what: &str) -> Result<i64, Error> {
    o.operand_ints(i).and_then(|v| v.first().copied()).ok_or(Error::Unsupported(format!("no constant {what}")))
}

fn operand(role: &str, index: usize) -> ExternArg {
    ExternArg::Operand { role: role.into(), index }
}

/// The output stage of a convolution composite.
struct OutputStage {
    /// The bytes of the multipliers (int32) and shifts (int8).
    constants: Vec<Vec<u8>>,
    /// `out_flags`, `output_zp`, `min`, `max`.
    scalars: Vec<(&'static str, i64)>,
}

fn output_stage(composite: &Composite, channels: i64) -> Result<OutputStage, Error> {
    let (mut flags, mut output_zp, mut min, mut max) = (4, 0, -128, 127);
    let rescale = composite.get("tosa.rescale");
    let constants = match rescale {
        Some(r) => {
            let scales = r.operand_ints(1).ok_or("no constant multipliers")?.len() as i64;
            let per_channel = scales > 1;
            if per_channel && scales != channels {
                return Err(format!("{scales} multipliers for {channels} output channels").into());
            }
            let double = r.attr_text("rounding_mode").as_deref() == Some("DOUBLE_ROUND");
            flags = i64::from(per_channel) | i64::from(double) << 1;
            output_zp = scalar(r, 4, "output zero point")?;
            vec![bytes_of(&constant_of(r, 1, "multiplier")?, 4), bytes_of(&constant_of(r, 2, "shift")?, 1)]
        }
        // Raw accumulators: the unit reads neither.
        None => vec![vec![0; 4], vec![0]],
    };
    if let Some(c) = composite.get("tosa.clamp") {
        if rescale.is_none() {
            return Err("a clamp of int32 accumulators (the output stage clamps int8 results)".into());
        }
        min = c.int("min_val").ok_or("clamp without min_val")?.max(-128);
        max = c.int("max_val").ok_or("clamp without max_val")?.min(127);
    }
    let scalars = vec![("out_flags", flags), ("output_zp", output_zp), ("min", min), ("max", max)];
    Ok(OutputStage { constants, scalars })
}

/// `nu.conv` or `vu.dwconv` for a (depthwise) convolution composite.
pub fn convolution(composite: &Composite, depthwise: bool) -> Result<Job, Error> {
    let role = if depthwise { "tosa.depthwise_conv2d" } else { "tosa.conv2d" };
    let conv = composite.get(role).ok_or("no convolution")?;
    let (stride, dilation, pad) = (ints(conv, "stride", 2)?, ints(conv, "dilation", 2)?, ints(conv, "pad", 4)?);
    // A leading slice of the input: the job reads the whole tensor (the pattern checked it
    // reads nothing past the slice).
    let (input, input_type) = match composite.get("input.slice") {
        Some(slice) => (operand("input.slice", 0), slice.operand_type(0)),
        None => (operand(role, 0), conv.operand_type(0)),
    };
    let [_, ih, iw, ic] = dims4(input_type, "input")?;
    let filter = dims4(conv.operand_type(1), "filter")?;
    let [_, oh, ow, channels] = dims4(conv.result_type(), "result")?;
    // The descriptor's (oc, kh, kw): for depthwise (multiplier, kh, kw) from HWCM.
    let (oc, kh, kw) = if depthwise { (filter[3], filter[0], filter[1]) } else { (filter[0], filter[1], filter[2]) };
    let OutputStage { constants: scales, scalars: out } = output_stage(composite, channels)?;
    let raw = out[0].1 & 4 != 0;
    // The filter's bytes, also through a reshape (which leaves them in place).
    let weights = match composite.get(FILTER_RESHAPE) {
        Some(reshape) => constant_of(reshape, 0, "filter")?,
        None => constant_of(conv, 1, "filter")?,
    };
    // TOSA broadcasts a one-element bias (a layer without one: the converter gives zero).
    let mut bias = constant_of(conv, 2, "bias")?;
    if bias.len() == 1 {
        bias = vec![bias[0]; channels as usize];
    }
    let mut constants = vec![bytes_of(&weights, 1), bytes_of(&bias, 4)];
    constants.extend(scales);
    let mut scalars = vec![
        ("ih", ih),
        ("iw", iw),
        ("ic", ic),
        ("input_zp", scalar(conv, 3, "input zero point")?),
        ("oc", oc),
        ("kh", kh),
        ("kw", kw),
        ("filter_zp", scalar(conv, 4, "filter zero point")?),
        ("oh", oh),
        ("ow", ow),
        ("stride_y", stride[0]),
        ("stride_x", stride[1]),
        ("dilation_y", dilation[0]),
        ("dilation_x", dilation[1]),
        ("pad_top", pad[0]),
        ("pad_left", pad[2]),
    ];
    scalars.extend(out);
    let bytes = vec![ih * iw * ic, oh * ow * channels * if raw { 4 } else { 1 }];
    let code = if depthwise { &DWCONV } else { &CONV };
    Ok(Job { code, operands: vec![input], constants, scalars, bytes, pixels: 1 })
}

/// `vu.pool` for `tosa.avg_pool2d` or `tosa.max_pool2d`.
pub fn pool(composite: &Composite) -> Result<Job, Error> {
    let (role, average) = match composite.get("tosa.avg_pool2d") {
        Some(_) => ("tosa.avg_pool2d", true),
        None => ("tosa.max_pool2d", false),
    };
    let p = composite.get(role).ok_or("no pooling")?;
    let (kernel, stride, pad) = (ints(p, "kernel", 2)?, ints(p, "stride", 2)?, ints(p, "pad", 4)?);
    let [_, ih, iw, c] = dims4(p.operand_type(0), "input")?;
    let [_, oh, ow, _] = dims4(p.result_type(), "result")?;
    let (input_zp, output_zp) =
        if average { (scalar(p, 1, "input zero point")?, scalar(p, 2, "output zero point")?) } else { (0, 0) };
    let scalars = vec![
        ("ih", ih),
        ("iw", iw),
        ("c", c),
        ("oh", oh),
        ("ow", ow),
        ("kh", kernel[0]),
        ("kw", kernel[1]),
        ("stride_y", stride[0]),
        ("stride_x", stride[1]),
        ("pad_top", pad[0]),
        ("pad_left", pad[2]),
        ("input_zp", input_zp),
        ("output_zp", output_zp),
        ("min", -128),
        ("max", 127),
    ];
    Ok(Job {
        code: if average { &AVG_POOL } else { &MAX_POOL },
        operands: vec![operand(role, 0)],
        constants: Vec::new(),
        scalars,
        bytes: vec![ih * iw * c, oh * ow * c],
        pixels: 1,
    })
}

/// `vu.eltwise` for a quantized add or sub composite: each input's `rescale` by a power of two
/// (the left shift, role `<input>.shift`) and optional `rescale` (its multiplier, role
/// `<input>.scale`), the int32 op, the output rescale and clamp. Every rescale of the composite
/// rounds DOUBLE_ROUND or has a shift of at most 31 (the patterns check it), so the one
/// double-round flag of the job serves them all.
pub fn eltwise(composite: &Composite, sub: bool) -> Result<Job, Error> {
    let role = if sub { "tosa.sub" } else { "tosa.add" };
    let root = composite.get(role).ok_or("no elementwise op")?;
    let count: i64 = root.result_type().ok_or("the result is not a tensor")?.dims().iter().product();
    let OutputStage { constants, scalars: mut out } = output_stage(composite, 1)?;
    out[0].1 |= 2;
    let mut scalars = Vec::new();
    let mut operands = Vec::new();
    for (input, names) in [("x", X), ("y", Y)] {
        let shift = composite.get(&format!("{input}.shift")).ok_or("no input rescale")?;
        let (power, right) = (scalar(shift, 1, "multiplier")?, scalar(shift, 2, "shift")?);
        let left = i64::from(power.trailing_zeros()) - right;
        let (multiplier, shift_by) = match composite.get(&format!("{input}.scale")) {
            Some(scale) => (scalar(scale, 1, "input multiplier")?, scalar(scale, 2, "input shift")?),
            None => (0, 0),
        };
        let zp = scalar(shift, 3, "input zero point")?;
        scalars.extend(names.into_iter().zip([zp, left, multiplier, shift_by]));
        operands.push(operand(&format!("{input}.shift"), 0));
    }
    scalars.push(("count", count));
    scalars.extend(out);
    Ok(Job {
        code: if sub { &SUB } else { &ADD },
        operands,
        constants,
        scalars,
        bytes: vec![count, count, count],
        pixels: 1,
    })
}

/// `vu.table` for a `tosa.table`: int8 to int8 through 256 entries, or int16 to int32 through 513.
pub fn table(composite: &Composite) -> Result<Job, Error> {
    let t = composite.get("tosa.table").ok_or("no table")?;
    let result = t.result_type().ok_or("the result is not a tensor")?;
    let count: i64 = result.dims().iter().product();
    let wide = result.element == "i32";
    let (code, entry) = if wide { (&TABLE16, 2) } else { (&TABLE, 1) };
    let (input, output) = code.element_bytes;
    Ok(Job {
        code,
        operands: vec![operand("tosa.table", 0)],
        constants: vec![bytes_of(&constant_of(t, 1, "table")?, entry)],
        scalars: vec![("count", count)],
        bytes: vec![count * input, count * output],
        pixels: 1,
    })
}
