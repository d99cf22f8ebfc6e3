//! Job descriptors as targets/tynnp/docs/isa.md (section 5) lays them out in memory, decoded and checked
//! when the CU issues the instruction.

use crate::error::NpuError;

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
    Some(match (opcode, funct3) {
        (0x0B, 0) => 11,
        (0x0B, 1) => 9,
        (0x2B, 0) => 30,
        (0x2B, 1) => 20,
        (0x5B, 0) => 30,
        (0x5B, 1) => 19,
        (0x5B, 2) => 23,
        (0x5B, 3) => 6,
        (0x5B, 4) => 14,
        _ => return None,
    })
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

fn window(w: Words, ih: usize, oh: usize, kh: usize, strides: usize, pads: usize) -> Result<Window, NpuError> {
    let window = Window {
        ih: positive("ih", w[ih])?,
        iw: positive("iw", w[ih + 1])?,
        oh: positive("oh", w[oh])?,
        ow: positive("ow", w[oh + 1])?,
        kh: positive("kh", w[kh])?,
        kw: positive("kw", w[kh + 1])?,
        stride_y: positive("stride_y", w[strides])?,
        stride_x: positive("stride_x", w[strides + 1])?,
        dilation_y: if pads == strides + 2 { 1 } else { positive("dilation_y", w[strides + 2])? },
        dilation_x: if pads == strides + 2 { 1 } else { positive("dilation_x", w[strides + 3])? },
        pad_top: w[pads],
        pad_left: w[pads + 1],
    };
    Ok(window)
}

/// Decodes the descriptor of instruction `(opcode, funct3, funct7)` from its words (index 0 is
/// `deps[0]`). Returns the dependencies and the job, or what is wrong with the descriptor.
pub fn decode(opcode: u8, funct3: u8, funct7: u8, w: Words) -> Result<([u32; 2], Job), NpuError> {
    let deps = [w[0], w[1]];
    let flags_bias = |at: usize, bias: u32| if w[at] & 1 != 0 { Some(bias) } else { None };
    let job = match (opcode, funct3, funct7) {
        (0x0B, 0, 0) => Job::Copy(Copy {
            src: w[2],
            dst: w[3],
            row_bytes: positive("row_bytes", w[4])?,
            rows: positive("rows", w[5])?,
            src_row_stride: w[6] as i32,
            dst_row_stride: w[7] as i32,
            planes: positive("planes", w[8])?,
            src_plane_stride: w[9] as i32,
            dst_plane_stride: w[10] as i32,
        }),
        (0x0B, 1, 0) => Job::Fill(Fill {
            dst: w[2],
            row_bytes: positive("row_bytes", w[3])?,
            rows: positive("rows", w[4])?,
            dst_row_stride: w[5] as i32,
            planes: positive("planes", w[6])?,
            dst_plane_stride: w[7] as i32,
            value: w[8] as u8,
        }),
        (0x2B, 0, 0) => {
            let out = out_block(w, 23);
            check_out(&out)?;
            Job::Conv(Conv {
                input: w[2],
                ic: positive("ic", w[5])?,
                input_zp: w[6] as i32,
                filter: w[7],
                oc: positive("oc", w[8])?,
                filter_zp: w[11] as i32,
                bias: flags_bias(22, w[12]),
                output: w[13],
                window: window(w, 3, 14, 9, 16, 20)?,
                out,
            })
        }
        (0x2B, 1, 0) => {
            let out = out_block(w, 13);
            check_out(&out)?;
            let k = positive("k", w[4])?;
            let a_row_stride = w[6];
            if a_row_stride < k {
                return Err(NpuError::Malformed(format!("a_row_stride {a_row_stride} is less than k {k}")));
            }
            Job::Matmul(Matmul {
                a: w[2],
                m: positive("m", w[3])?,
                k,
                a_zp: w[5] as i32,
                a_row_stride,
                b: w[7],
                n: positive("n", w[8])?,
                b_zp: w[9] as i32,
                bias: flags_bias(12, w[10]),
                c: w[11],
                out,
            })
        }
        (0x5B, 0, 0) => {
            let out = out_block(w, 23);
            check_out(&out)?;
            Job::DwConv(DwConv {
                input: w[2],
                c: positive("c", w[5])?,
                input_zp: w[6] as i32,
                filter: w[7],
                mult: positive("mult", w[10])?,
                filter_zp: w[11] as i32,
                bias: flags_bias(22, w[12]),
                output: w[13],
                window: window(w, 3, 14, 8, 16, 20)?,
                out,
            })
        }
        (0x5B, 1, mode @ (0 | 1)) => {
            let (min, max) = (w[17] as i32, w[18] as i32);
            if !(-128 <= min && min <= max && max <= 127) {
                return Err(NpuError::Malformed(format!("clamp [{min}, {max}] is not within int8")));
            }
            Job::Pool(Pool {
                average: mode == 1,
                input: w[2],
                c: positive("c", w[5])?,
                output: w[6],
                window: window(w, 3, 7, 9, 11, 13)?,
                input_zp: w[15] as i32,
                output_zp: w[16] as i32,
                min,
                max,
            })
        }
        (0x5B, 2, op @ 0..=4) => {
            let out = out_block(w, 16);
            check_out(&out)?;
            let operand = |at: usize, name: &str| -> Result<Operand, NpuError> {
                let stride = w[at + 1];
                if stride > 1 {
                    return Err(NpuError::Malformed(format!("{name}_stride {stride} is not 0 or 1")));
                }
                let left_shift = w[at + 3] as i32;
                if !(0..=30).contains(&left_shift) {
                    return Err(NpuError::Malformed(format!("{name}_left_shift {left_shift} is not in 0..=30")));
                }
                Ok(Operand {
                    addr: w[at],
                    stride,
                    zp: w[at + 2] as i32,
                    left_shift,
                    multiplier: w[at + 4] as i32,
                    shift: w[at + 5] as i32,
                })
            };
            Job::Eltwise(Eltwise {
                op: [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min][op as usize],
                x: operand(2, "x")?,
                y: operand(8, "y")?,
                output: w[14],
                count: positive("count", w[15])?,
                out,
            })
        }
        (0x5B, 3, kind @ (0 | 1)) => Job::Table(Table {
            int16: kind == 1,
            input: w[2],
            table: w[3],
            output: w[4],
            count: positive("count", w[5])?,
        }),
        (0x5B, 4, kind @ 0..=2) => {
            let out = out_block(w, 7);
            check_out(&out)?;
            Job::Rescale(Rescale {
                input_bytes: [1, 2, 4][kind as usize],
                input: w[2],
                output: w[3],
                count: positive("count", w[4])?,
                channels: positive("channels", w[5])?,
                input_zp: w[6] as i32,
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
