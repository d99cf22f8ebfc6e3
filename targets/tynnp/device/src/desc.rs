//! Job descriptors as targets/tynnp/docs/isa.md (section 5) lays them out in memory, decoded and checked
//! when the CU issues the instruction.

use crate::{error::NpuError, isa};

/// The output-stage block `OUT` (seven words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutBlock {
    /// Address of the `i32` multipliers.
    pub multiplier_addr: u32,
    /// Address of the `i8` shifts.
    pub shift_addr: u32,
    /// Bit 0 per-channel, bit 1 double rounding, bit 2 raw int32 output.
    pub flags: u32,
    /// Output zero point.
    pub output_zp: i32,
    /// Clamp minimum.
    pub min: i32,
    /// Clamp maximum.
    pub max: i32,
}

impl OutBlock {
    /// Per-channel scales.
    pub fn per_channel(&self) -> bool {
        self.flags & 1 != 0
    }
    /// TOSA DOUBLE_ROUND.
    pub fn double_round(&self) -> bool {
        self.flags & 2 != 0
    }
    /// int32 accumulators out, no scaling.
    pub fn raw(&self) -> bool {
        self.flags & 4 != 0
    }
    /// Bytes per output element.
    pub fn element_bytes(&self) -> u32 {
        if self.raw() { 4 } else { 1 }
    }
}

/// `dma.copy`: a strided copy of up to three dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub src: u32,
    pub dst: u32,
    pub row_bytes: u32,
    pub rows: u32,
    pub src_row_stride: i32,
    pub dst_row_stride: i32,
    pub planes: u32,
    pub src_plane_stride: i32,
    pub dst_plane_stride: i32,
}

/// `dma.fill`: fill rows with a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    pub dst: u32,
    pub row_bytes: u32,
    pub rows: u32,
    pub dst_row_stride: i32,
    pub planes: u32,
    pub dst_plane_stride: i32,
    pub value: u8,
}

/// The window geometry convolutions and pooling share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub ih: u32,
    pub iw: u32,
    pub oh: u32,
    pub ow: u32,
    pub kh: u32,
    pub kw: u32,
    pub stride_y: u32,
    pub stride_x: u32,
    pub dilation_y: u32,
    pub dilation_x: u32,
    pub pad_top: u32,
    pub pad_left: u32,
}

impl Window {
    /// The input row and column window tap `(i, j)` of output `(y, x)` reads (may be outside).
    pub fn tap(&self, y: u32, x: u32, i: u32, j: u32) -> (i64, i64) {
        let row = i64::from(y * self.stride_y + i * self.dilation_y) - i64::from(self.pad_top);
        let col = i64::from(x * self.stride_x + j * self.dilation_x) - i64::from(self.pad_left);
        (row, col)
    }
    /// Tells whether `(row, col)` is inside the input.
    pub fn inside(&self, (row, col): (i64, i64)) -> bool {
        row >= 0 && col >= 0 && row < i64::from(self.ih) && col < i64::from(self.iw)
    }
}

/// `nu.conv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv {
    pub input: u32,
    pub ic: u32,
    pub input_zp: i32,
    pub filter: u32,
    pub oc: u32,
    pub filter_zp: i32,
    pub bias: Option<u32>,
    pub output: u32,
    pub window: Window,
    pub out: OutBlock,
}

/// `nu.matmul`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matmul {
    pub a: u32,
    pub m: u32,
    pub k: u32,
    pub a_zp: i32,
    pub a_row_stride: u32,
    pub b: u32,
    pub n: u32,
    pub b_zp: i32,
    pub bias: Option<u32>,
    pub c: u32,
    pub out: OutBlock,
}

/// `vu.dwconv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DwConv {
    pub input: u32,
    pub c: u32,
    pub input_zp: i32,
    pub filter: u32,
    pub mult: u32,
    pub filter_zp: i32,
    pub bias: Option<u32>,
    pub output: u32,
    pub window: Window,
    pub out: OutBlock,
}

/// `vu.pool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    pub average: bool,
    pub input: u32,
    pub c: u32,
    pub output: u32,
    /// Bytes from one pixel to the next in the input and in the output (`c` for dense tensors;
    /// more for a band of a tensor's channels).
    pub pitch: u32,
    pub window: Window,
    pub input_zp: i32,
    pub output_zp: i32,
    pub min: i32,
    pub max: i32,
}

/// The int32 operation of `vu.eltwise`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Max,
    Min,
}

/// One input of `vu.eltwise` with its rescale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub addr: u32,
    /// 1, or 0 to broadcast one value.
    pub stride: u32,
    pub zp: i32,
    /// `0..=30`: applied to `x − zp` before the multiplier.
    pub left_shift: i32,
    pub multiplier: i32,
    /// 0: no multiplier.
    pub shift: i32,
}

/// `vu.eltwise`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eltwise {
    pub op: BinaryOp,
    pub x: Operand,
    pub y: Operand,
    pub output: u32,
    pub count: u32,
    pub out: OutBlock,
}

/// `vu.table`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// 513-entry int16 table with interpolation, else 256-entry int8.
    pub int16: bool,
    pub input: u32,
    pub table: u32,
    pub output: u32,
    pub count: u32,
}

/// `vu.rescale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rescale {
    /// Bytes per input element: 1, 2 or 4.
    pub input_bytes: u32,
    pub input: u32,
    pub output: u32,
    pub count: u32,
    pub channels: u32,
    pub input_zp: i32,
    pub out: OutBlock,
}

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Copy(Copy),
    Fill(Fill),
    Conv(Conv),
    Matmul(Matmul),
    DwConv(DwConv),
    Pool(Pool),
    Eltwise(Eltwise),
    Table(Table),
    Rescale(Rescale),
}

impl Job {
    /// The mnemonic, for reports.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            Job::Copy(_) => "dma.copy",
            Job::Fill(_) => "dma.fill",
            Job::Conv(_) => "nu.conv",
            Job::Matmul(_) => "nu.matmul",
            Job::DwConv(_) => "vu.dwconv",
            Job::Pool(_) => "vu.pool",
            Job::Eltwise(_) => "vu.eltwise",
            Job::Table(_) => "vu.table",
            Job::Rescale(_) => "vu.rescale",
        }
    }
}

/// Which unit kind an opcode drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Dma,
    Nu,
    Vu,
}

/// The descriptor's words (as many as the kind takes), read by the caller from memory.
pub type Words<'a> = &'a [u32];

/// Words a descriptor of this instruction spans (`None`: not a job instruction).
pub fn descriptor_words(opcode: u8, funct3: u8) -> Option<usize> {
    isa::descriptor(custom_of(opcode)?, funct3).map(isa::Descriptor::len)
}

/// The custom opcode (0..=3) of a major opcode.
fn custom_of(opcode: u8) -> Option<u8> {
    [0x0B, 0x2B, 0x5B, 0x7B].iter().position(|&o| o == opcode).map(|k| k as u8)
}

fn out_block(w: Words, at: usize) -> OutBlock {
    OutBlock {
        multiplier_addr: w[at],
        shift_addr: w[at + 1],
        flags: w[at + 2],
        output_zp: w[at + 3] as i32,
        min: w[at + 4] as i32,
        max: w[at + 5] as i32,
    }
}

fn positive(name: &str, value: u32) -> Result<u32, NpuError> {
    if value == 0 { Err(NpuError::Malformed(format!("{name} is 0"))) } else { Ok(value) }
}

fn check_out(out: &OutBlock) -> Result<(), NpuError> {
    if out.flags & !7 != 0 {
        return Err(NpuError::Malformed(format!("reserved output-stage flags {:#x}", out.flags)));
    }
    if !(out.raw() || (-128 <= out.min && out.min <= out.max && out.max <= 127)) {
        return Err(NpuError::Malformed(format!("clamp [{}, {}] is not within int8", out.min, out.max)));
    }
    Ok(())
}

/// The window words of a descriptor, by name (a layout without dilation words has dilation 1).
fn window(word: &dyn Fn(&str) -> Option<u32>) -> Result<Window, NpuError> {
    let need = |name: &str| positive(name, word(name).unwrap_or(0));
    let window = Window {
        ih: need("ih")?,
        iw: need("iw")?,
        oh: need("oh")?,
        ow: need("ow")?,
        kh: need("kh")?,
        kw: need("kw")?,
        stride_y: need("stride_y")?,
        stride_x: need("stride_x")?,
        dilation_y: positive("dilation_y", word("dilation_y").unwrap_or(1))?,
        dilation_x: positive("dilation_x", word("dilation_x").unwrap_or(1))?,
        pad_top: word("pad_top").unwrap_or(0),
        pad_left: word("pad_left").unwrap_or(0),
    };
    Ok(window)
}

/// Decodes the descriptor of instruction `(opcode, funct3, funct7)` from its words (index 0 is
/// `deps[0]`), by the layout of `isa::DESCRIPTORS`. Returns the dependencies and the job, or
/// what is wrong with the descriptor.
pub fn decode(opcode: u8, funct3: u8, funct7: u8, w: Words) -> Result<([u32; 2], Job), NpuError> {
    let unknown = || {
        NpuError::Malformed(format!("no NPU instruction has opcode {opcode:#04x}, funct3 {funct3}, funct7 {funct7}"))
    };
    let layout = custom_of(opcode).and_then(|custom| isa::descriptor(custom, funct3)).ok_or_else(unknown)?;
    if w.len() < layout.len() {
        return Err(NpuError::Malformed(format!(
            "{} needs {} words, {} were read",
            layout.mnemonic,
            layout.len(),
            w.len()
        )));
    }
    let at = |name: &str| layout.at(name);
    let word = |name: &str| w[at(name)];
    let deps = [w[0], w[1]];
    let flags_bias = || if word("job_flags") & 1 != 0 { Some(word("bias")) } else { None };
    let windowed = || window(&|name| layout.words.contains(&name).then(|| word(name)));
    let out = || -> Result<OutBlock, NpuError> {
        let out = out_block(w, at("multiplier"));
        check_out(&out)?;
        Ok(out)
    };
    let job = match (opcode, funct3, funct7) {
        (0x0B, 0, 0) => Job::Copy(Copy {
            src: word("src"),
            dst: word("dst"),
            row_bytes: positive("row_bytes", word("row_bytes"))?,
            rows: positive("rows", word("rows"))?,
            src_row_stride: word("src_row_stride") as i32,
            dst_row_stride: word("dst_row_stride") as i32,
            planes: positive("planes", word("planes"))?,
            src_plane_stride: word("src_plane_stride") as i32,
            dst_plane_stride: word("dst_plane_stride") as i32,
        }),
        (0x0B, 1, 0) => Job::Fill(Fill {
            dst: word("dst"),
            row_bytes: positive("row_bytes", word("row_bytes"))?,
            rows: positive("rows", word("rows"))?,
            dst_row_stride: word("dst_row_stride") as i32,
            planes: positive("planes", word("planes"))?,
            dst_plane_stride: word("dst_plane_stride") as i32,
            value: word("value") as u8,
        }),
        (0x2B, 0, 0) => Job::Conv(Conv {
            input: word("input"),
            ic: positive("ic", word("ic"))?,
            input_zp: word("input_zp") as i32,
            filter: word("filter"),
            oc: positive("oc", word("oc"))?,
            filter_zp: word("filter_zp") as i32,
            bias: flags_bias(),
            output: word("output"),
            window: windowed()?,
            out: out()?,
        }),
        (0x2B, 1, 0) => {
            let out = out()?;
            let k = positive("k", word("k"))?;
            let a_row_stride = word("a_row_stride");
            if a_row_stride < k {
                return Err(NpuError::Malformed(format!("a_row_stride {a_row_stride} is less than k {k}")));
            }
            Job::Matmul(Matmul {
                a: word("a"),
                m: positive("m", word("m"))?,
                k,
                a_zp: word("a_zp") as i32,
                a_row_stride,
                b: word("b"),
                n: positive("n", word("n"))?,
                b_zp: word("b_zp") as i32,
                bias: flags_bias(),
                c: word("c"),
                out,
            })
        }
        (0x5B, 0, 0) => Job::DwConv(DwConv {
            input: word("input"),
            c: positive("c", word("c"))?,
            input_zp: word("input_zp") as i32,
            filter: word("filter"),
            mult: positive("mult", word("mult"))?,
            filter_zp: word("filter_zp") as i32,
            bias: flags_bias(),
            output: word("output"),
            window: windowed()?,
            out: out()?,
        }),
        (0x5B, 1, mode @ (0 | 1)) => {
            let (min, max) = (word("min") as i32, word("max") as i32);
            if !(-128 <= min && min <= max && max <= 127) {
                return Err(NpuError::Malformed(format!("clamp [{min}, {max}] is not within int8")));
            }
            let (c, pitch) = (positive("c", word("c"))?, word("pitch"));
            if pitch < c {
                return Err(NpuError::Malformed(format!("pitch {pitch} is less than c {c}")));
            }
            Job::Pool(Pool {
                average: mode == 1,
                input: word("input"),
                c,
                output: word("output"),
                pitch,
                window: windowed()?,
                input_zp: word("input_zp") as i32,
                output_zp: word("output_zp") as i32,
                min,
                max,
            })
        }
        (0x5B, 2, op @ 0..=4) => {
            let out = out()?;
            let operand = |name: &str| -> Result<Operand, NpuError> {
                let field = |suffix: &str| word(&format!("{name}_{suffix}"));
                let stride = field("stride");
                if stride > 1 {
                    return Err(NpuError::Malformed(format!("{name}_stride {stride} is not 0 or 1")));
                }
                let left_shift = field("left_shift") as i32;
                if !(0..=30).contains(&left_shift) {
                    return Err(NpuError::Malformed(format!("{name}_left_shift {left_shift} is not in 0..=30")));
                }
                Ok(Operand {
                    addr: word(name),
                    stride,
                    zp: field("zp") as i32,
                    left_shift,
                    multiplier: field("multiplier") as i32,
                    shift: field("shift") as i32,
                })
            };
            Job::Eltwise(Eltwise {
                op: [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min][op as usize],
                x: operand("x")?,
                y: operand("y")?,
                output: word("output"),
                count: positive("count", word("count"))?,
                out,
            })
        }
        (0x5B, 3, kind @ (0 | 1)) => Job::Table(Table {
            int16: kind == 1,
            input: word("input"),
            table: word("table"),
            output: word("output"),
            count: positive("count", word("count"))?,
        }),
        (0x5B, 4, kind @ 0..=2) => {
            let out = out()?;
            Job::Rescale(Rescale {
                input_bytes: [1, 2, 4][kind as usize],
                input: word("input"),
                output: word("output"),
                count: positive("count", word("count"))?,
                channels: positive("channels", word("channels"))?,
                input_zp: word("input_zp") as i32,
                out,
            })
        }
        _ => {
            return Err(NpuError::Malformed(format!(
                "no NPU instruction has opcode {opcode:#04x}, funct3 {funct3}, funct7 {funct7}"
            )));
        }
    };
    Ok((deps, job))
}

/// The unit kind an opcode drives.
pub fn unit_kind(opcode: u8) -> Option<UnitKind> {
    match opcode {
        0x0B => Some(UnitKind::Dma),
        0x2B => Some(UnitKind::Nu),
        0x5B => Some(UnitKind::Vu),
        _ => None,
    }
}
