//! What each job computes, shaped as the hardware computes it: the NU as an array of
//! `nu-rows × nu-cols` MACs over channel tiles, the VUs `vu-lanes` channels or elements at a time.
//! Every read and write a job makes is recorded, for the hazard checker and the statistics.
//! `reference.rs` (tests) holds the plain formulas these are checked against.

use super::{
    desc::{BinaryOp, Copy, Fill, Job, OutBlock, Window},
    params::Params,
    quant::{OutputStage, apply_scale_32, reciprocal_scale},
};
use crate::error::NpuError;

/// Memory as a job sees it.
pub trait Space {
    /// `len` bytes at `addr`, or why they cannot be read.
    fn read(&self, addr: u32, len: u32) -> Result<Vec<u8>, NpuError>;
}

/// What a job did: the ranges it read, the bytes it writes, and the MACs it did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effect {
    /// `(addr, len)` of every read.
    pub reads: Vec<(u32, u32)>,
    /// Every write, in order.
    pub writes: Vec<(u32, Vec<u8>)>,
    /// Useful multiply-accumulates.
    pub macs: u64,
}

struct Reader<'a> {
    space: &'a dyn Space,
    reads: Vec<(u32, u32)>,
}

impl Reader<'_> {
    fn bytes(&mut self, addr: u32, len: u32) -> Result<Vec<u8>, NpuError> {
        let data = self.space.read(addr, len)?;
        self.reads.push((addr, len));
        Ok(data)
    }
    /// `pixels` pixels of `c` bytes each, `pitch` bytes apart from `addr`, gathered dense.
    fn pixels(&mut self, addr: u32, pixels: u32, c: u32, pitch: u32) -> Result<Vec<u8>, NpuError> {
        if pitch == c {
            return self.bytes(addr, pixels * c);
        }
        let mut data = Vec::with_capacity((pixels * c) as usize);
        for p in 0..pixels {
            data.extend(self.bytes(pixel_address(addr, p, pitch)?, c)?);
        }
        Ok(data)
    }
    fn i32s(&mut self, addr: u32, count: u32) -> Result<Vec<i32>, NpuError> {
        let bytes = self.bytes(addr, count * 4)?;
        Ok(bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    /// The output stage of `out` for `channels` channels.
    fn stage(&mut self, out: &OutBlock, channels: u32) -> Result<OutputStage, NpuError> {
        let (multipliers, shifts) = if out.raw() {
            (Vec::new(), Vec::new())
        } else {
            let n = if out.per_channel() { channels } else { 1 };
            let shifts = self.bytes(out.shift_addr, n)?.into_iter().map(|b| b as i8).collect();
            (self.i32s(out.multiplier_addr, n)?, shifts)
        };
        Ok(OutputStage {
            multipliers,
            shifts,
            double_round: out.double_round(),
            raw: out.raw(),
            output_zp: out.output_zp,
            min: out.min,
            max: out.max,
        })
    }
}

fn scaled(stage: &OutputStage, acc: i32, channel: usize) -> Result<i32, NpuError> {
    stage.apply(acc, channel).ok_or_else(|| {
        NpuError::Arithmetic(format!(
            "output stage of channel {channel}: multiplier/shift outside TOSA's contract (or an int32 overflow)"
        ))
    })
}

fn lines(rows: u32, planes: u32, row: i32, plane: i32, base: u32) -> impl Iterator<Item = u32> {
    (0..planes).flat_map(move |p| (0..rows).map(move |r| base.wrapping_add((p as i32 * plane + r as i32 * row) as u32)))
}

fn copy(d: &Copy, r: &mut Reader) -> Result<Vec<(u32, Vec<u8>)>, NpuError> {
    let sources = lines(d.rows, d.planes, d.src_row_stride, d.src_plane_stride, d.src);
    let targets = lines(d.rows, d.planes, d.dst_row_stride, d.dst_plane_stride, d.dst);
    sources.zip(targets).map(|(s, t)| Ok((t, r.bytes(s, d.row_bytes)?))).collect()
}

fn fill(d: &Fill) -> Vec<(u32, Vec<u8>)> {
    lines(d.rows, d.planes, d.dst_row_stride, d.dst_plane_stride, d.dst)
        .map(|t| (t, vec![d.value; d.row_bytes as usize]))
        .collect()
}

/// The input value at `(row, col, channel)` minus the zero point (0 in the padding).
/// The address of pixel `p` of a tensor at `addr` whose pixels are `pitch` bytes apart.
fn pixel_address(addr: u32, p: u32, pitch: u32) -> Result<u32, NpuError> {
    u32::try_from(u64::from(addr) + u64::from(p) * u64::from(pitch))
        .map_err(|_| NpuError::Memory(format!("pixel {p} of the tensor at {addr:#010x} lies past the address space")))
}

/// Dense pixels of `c` bytes written `pitch` bytes apart from `addr`: one write, or one a pixel.
fn strided_writes(addr: u32, dense: Vec<u8>, c: u32, pitch: u32) -> Result<Vec<(u32, Vec<u8>)>, NpuError> {
    if pitch == c {
        return Ok(vec![(addr, dense)]);
    }
    let pixels = dense.chunks(c as usize).zip(0..);
    pixels.map(|(pixel, p)| Ok((pixel_address(addr, p, pitch)?, pixel.to_vec()))).collect()
}

fn tap_value(input: &[u8], w: &Window, at: (i64, i64), channels: u32, channel: u32, zp: i32) -> i32 {
    if !w.inside(at) {
        return 0;
    }
    let index = (at.0 as usize * w.iw as usize + at.1 as usize) * channels as usize + channel as usize;
    i32::from(input[index] as i8) - zp
}

/// Runs `job` against `space`: its reads, its writes and its MACs.
pub fn execute(job: &Job, params: &Params, space: &dyn Space) -> Result<Effect, NpuError> {
    let mut r = Reader { space, reads: Vec::new() };
    let writes = match job {
        Job::Copy(d) => copy(d, &mut r)?,
        Job::Fill(d) => fill(d),
        Job::Conv(d) => {
            let w = &d.window;
            let input = r.bytes(d.input, w.ih * w.iw * d.ic)?;
            let filter = r.bytes(d.filter, d.oc * w.kh * w.kw * d.ic)?;
            let bias = match d.bias {
                Some(addr) => r.i32s(addr, d.oc)?,
                None => vec![0; d.oc as usize],
            };
            let stage = r.stage(&d.out, d.oc)?;
            let mut out = vec![0u8; (w.oh * w.ow * d.oc) as usize * stage.element_bytes()];
            let (rows, cols) = (params.nu_rows, params.nu_cols);
            for y in 0..w.oh {
                for x in 0..w.ow {
                    // One output pixel; the array takes `cols` output channels at a time and
                    // `rows` input channels of one window tap per cycle.
                    for o0 in (0..d.oc).step_by(cols as usize) {
                        let o1 = (o0 + cols).min(d.oc);
                        let mut acc: Vec<i32> = (o0..o1).map(|o| bias[o as usize]).collect();
                        for i in 0..w.kh {
                            for j in 0..w.kw {
                                let at = w.tap(y, x, i, j);
                                for c0 in (0..d.ic).step_by(rows as usize) {
                                    for c in c0..(c0 + rows).min(d.ic) {
                                        let v = tap_value(&input, w, at, d.ic, c, d.input_zp);
                                        for (lane, o) in (o0..o1).enumerate() {
                                            let k = ((o * w.kh + i) * w.kw + j) * d.ic + c;
                                            let f = i32::from(filter[k as usize] as i8) - d.filter_zp;
                                            acc[lane] = acc[lane].wrapping_add(v.wrapping_mul(f));
                                        }
                                    }
                                }
                            }
                        }
                        for (lane, o) in (o0..o1).enumerate() {
                            let value = scaled(&stage, acc[lane], o as usize)?;
                            stage.store(&mut out, ((y * w.ow + x) * d.oc + o) as usize, value);
                        }
                    }
                }
            }
            vec![(d.output, out)]
        }
        Job::Matmul(d) => {
            let mut a = Vec::with_capacity((d.m * d.k) as usize);
            for row in 0..d.m {
                a.extend(r.bytes(d.a + row * d.a_row_stride, d.k)?);
            }
            let b = r.bytes(d.b, d.n * d.k)?;
            let bias = match d.bias {
                Some(addr) => r.i32s(addr, d.n)?,
                None => vec![0; d.n as usize],
            };
            let stage = r.stage(&d.out, d.n)?;
            let mut out = vec![0u8; (d.m * d.n) as usize * stage.element_bytes()];
            for row in 0..d.m {
                for n0 in (0..d.n).step_by(params.nu_cols as usize) {
                    let n1 = (n0 + params.nu_cols).min(d.n);
                    let mut acc: Vec<i32> = (n0..n1).map(|n| bias[n as usize]).collect();
                    for k0 in (0..d.k).step_by(params.nu_rows as usize) {
                        for k in k0..(k0 + params.nu_rows).min(d.k) {
                            let x = i32::from(a[(row * d.k + k) as usize] as i8) - d.a_zp;
                            for (lane, n) in (n0..n1).enumerate() {
                                let y = i32::from(b[(n * d.k + k) as usize] as i8) - d.b_zp;
                                acc[lane] = acc[lane].wrapping_add(x.wrapping_mul(y));
                            }
                        }
                    }
                    for (lane, n) in (n0..n1).enumerate() {
                        let value = scaled(&stage, acc[lane], n as usize)?;
                        stage.store(&mut out, (row * d.n + n) as usize, value);
                    }
                }
            }
            vec![(d.c, out)]
        }
        Job::DwConv(d) => {
            let w = &d.window;
            let channels = d.c * d.mult;
            let input = r.bytes(d.input, w.ih * w.iw * d.c)?;
            let filter = r.bytes(d.filter, w.kh * w.kw * channels)?;
            let bias = match d.bias {
                Some(addr) => r.i32s(addr, channels)?,
                None => vec![0; channels as usize],
            };
            let stage = r.stage(&d.out, channels)?;
            let mut out = vec![0u8; (w.oh * w.ow * channels) as usize * stage.element_bytes()];
            for y in 0..w.oh {
                for x in 0..w.ow {
                    // `vu-lanes` output channels at a time, one window tap per cycle.
                    for o0 in (0..channels).step_by(params.vu_lanes as usize) {
                        let o1 = (o0 + params.vu_lanes).min(channels);
                        let mut acc: Vec<i32> = (o0..o1).map(|o| bias[o as usize]).collect();
                        for i in 0..w.kh {
                            for j in 0..w.kw {
                                let at = w.tap(y, x, i, j);
                                for (lane, o) in (o0..o1).enumerate() {
                                    let v = tap_value(&input, w, at, d.c, o / d.mult, d.input_zp);
                                    let f =
                                        i32::from(filter[((i * w.kw + j) * channels + o) as usize] as i8) - d.filter_zp;
                                    acc[lane] = acc[lane].wrapping_add(v.wrapping_mul(f));
                                }
                            }
                        }
                        for (lane, o) in (o0..o1).enumerate() {
                            let value = scaled(&stage, acc[lane], o as usize)?;
                            stage.store(&mut out, ((y * w.ow + x) * channels + o) as usize, value);
                        }
                    }
                }
            }
            vec![(d.output, out)]
        }
        Job::Pool(d) => {
            let w = &d.window;
            let input = r.pixels(d.input, w.ih * w.iw, d.c, d.pitch)?;
            let mut out = vec![0u8; (w.oh * w.ow * d.c) as usize];
            for y in 0..w.oh {
                for x in 0..w.ow {
                    for c0 in (0..d.c).step_by(params.vu_lanes as usize) {
                        for c in c0..(c0 + params.vu_lanes).min(d.c) {
                            let (mut sum, mut count, mut best) = (0i32, 0u32, i32::MIN);
                            for i in 0..w.kh {
                                for j in 0..w.kw {
                                    let at = w.tap(y, x, i, j);
                                    if w.inside(at) {
                                        let v = tap_value(&input, w, at, d.c, c, 0);
                                        sum = sum.wrapping_add(v - d.input_zp);
                                        best = best.max(v);
                                        count += 1;
                                    }
                                }
                            }
                            let value = if count == 0 {
                                return Err(NpuError::Malformed(format!(
                                    "pooling window of output ({y}, {x}) lies entirely in the padding"
                                )));
                            } else if d.average {
                                let (m, s) = reciprocal_scale(count);
                                let v = apply_scale_32(sum, m, s, false)
                                    .ok_or_else(|| NpuError::Arithmetic("average out of int32".into()))?;
                                v.saturating_add(d.output_zp).clamp(d.min, d.max)
                            } else {
                                best.clamp(d.min, d.max)
                            };
                            out[((y * w.ow + x) * d.c + c) as usize] = value as i8 as u8;
                        }
                    }
                }
            }
            strided_writes(d.output, out, d.c, d.pitch)?
        }
        Job::Eltwise(d) => {
            let fetch = |r: &mut Reader, o: &super::desc::Operand| -> Result<Vec<i32>, NpuError> {
                let values = r.bytes(o.addr, if o.stride == 0 { 1 } else { d.count })?;
                values
                    .iter()
                    .map(|&b| {
                        let v =
                            i32::try_from((i64::from(b as i8) - i64::from(o.zp)) << o.left_shift).map_err(|_| {
                                NpuError::Arithmetic(format!("(input - {}) << {} overflows int32", o.zp, o.left_shift))
                            })?;
                        if o.shift == 0 {
                            Ok(v)
                        } else {
                            apply_scale_32(v, o.multiplier, o.shift, d.out.double_round())
                                .ok_or_else(|| NpuError::Arithmetic("input rescale outside TOSA's contract".into()))
                        }
                    })
                    .collect()
            };
            let (xs, ys) = (fetch(&mut r, &d.x)?, fetch(&mut r, &d.y)?);
            let stage = r.stage(&d.out, 1)?;
            let mut out = vec![0u8; d.count as usize * stage.element_bytes()];
            for i0 in (0..d.count as usize).step_by(params.vu_lanes as usize) {
                for i in i0..(i0 + params.vu_lanes as usize).min(d.count as usize) {
                    let a = xs[if d.x.stride == 0 { 0 } else { i }];
                    let b = ys[if d.y.stride == 0 { 0 } else { i }];
                    let c = match d.op {
                        BinaryOp::Add => a.wrapping_add(b),
                        BinaryOp::Sub => a.wrapping_sub(b),
                        BinaryOp::Mul => a.wrapping_mul(b),
                        BinaryOp::Max => a.max(b),
                        BinaryOp::Min => a.min(b),
                    };
                    stage.store(&mut out, i, scaled(&stage, c, 0)?);
                }
            }
            vec![(d.output, out)]
        }
        Job::Table(d) => {
            if d.int16 {
                let input = r.bytes(d.input, d.count * 2)?;
                let table: Vec<i32> = r
                    .bytes(d.table, 513 * 2)?
                    .chunks_exact(2)
                    .map(|c| i32::from(i16::from_le_bytes([c[0], c[1]])))
                    .collect();
                let mut out = Vec::with_capacity(d.count as usize * 4);
                for c in input.chunks_exact(2) {
                    let v = (i32::from(i16::from_le_bytes([c[0], c[1]])) + 32768) as usize;
                    let (base, next) = (table[v >> 7], table[(v >> 7) + 1]);
                    let value = (base << 7) + (next - base) * (v & 127) as i32;
                    out.extend_from_slice(&value.to_le_bytes());
                }
                vec![(d.output, out)]
            } else {
                let input = r.bytes(d.input, d.count)?;
                let table = r.bytes(d.table, 256)?;
                vec![(d.output, input.iter().map(|&b| table[(i32::from(b as i8) + 128) as usize]).collect())]
            }
        }
        Job::Rescale(d) => {
            let input = r.bytes(d.input, d.count * d.input_bytes)?;
            let stage = r.stage(&d.out, d.channels)?;
            let mut out = vec![0u8; d.count as usize * stage.element_bytes()];
            for (i, c) in input.chunks_exact(d.input_bytes as usize).enumerate() {
                let v = match c.len() {
                    1 => i32::from(c[0] as i8),
                    2 => i32::from(i16::from_le_bytes([c[0], c[1]])),
                    _ => i32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                };
                let value = scaled(&stage, v.wrapping_sub(d.input_zp), i % d.channels as usize)?;
                stage.store(&mut out, i, value);
            }
            vec![(d.output, out)]
        }
    };
    Ok(Effect { reads: r.reads, writes, macs: super::cost::macs(job) })
}
