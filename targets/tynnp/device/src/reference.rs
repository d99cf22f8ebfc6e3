//! The plain formulas of targets/tynnp/docs/isa.md section 5, written as directly as possible (64-bit
//! accumulation, no tiling), against which the simulator's units are tested on random operands.

use super::{
    desc::{BinaryOp, Job, OutBlock},
    quant::{OutputStage, apply_scale_32, reciprocal_scale},
};
use std::collections::HashMap;

/// A sparse byte memory for tests.
#[derive(Default, Clone)]
pub struct TestMemory {
    pub bytes: HashMap<u32, u8>,
}

impl TestMemory {
    pub fn put(&mut self, addr: u32, data: &[u8]) {
        for (i, b) in data.iter().enumerate() {
            self.bytes.insert(addr + i as u32, *b);
        }
    }
    pub fn get(&self, addr: u32, len: u32) -> Vec<u8> {
        (0..len).map(|i| *self.bytes.get(&(addr + i)).unwrap_or(&0)).collect()
    }
    fn i8(&self, addr: u32) -> i64 {
        i64::from(self.get(addr, 1)[0] as i8)
    }
    fn i32(&self, addr: u32) -> i64 {
        let b = self.get(addr, 4);
        i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl super::compute::Space for TestMemory {
    fn read(&self, addr: u32, len: u32) -> Result<Vec<u8>, crate::NpuError> {
        Ok(self.get(addr, len))
    }
}

fn stage(m: &TestMemory, out: &OutBlock, channels: u32) -> OutputStage {
    let n = if out.per_channel() { channels } else { 1 };
    OutputStage {
        multipliers: (0..n).map(|c| m.i32(out.multiplier_addr + 4 * c) as i32).collect(),
        shifts: (0..n).map(|c| m.i8(out.shift_addr + c) as i8).collect(),
        double_round: out.double_round(),
        raw: out.raw(),
        output_zp: out.output_zp,
        min: out.min,
        max: out.max,
    }
}

fn emit(out: &mut Vec<u8>, stage: &OutputStage, acc: i64, channel: usize) {
    let acc = i32::try_from(acc).expect("the tests keep accumulators within int32");
    let value = stage.apply(acc, channel).expect("the tests keep scales within the contract");
    if stage.raw {
        out.extend_from_slice(&value.to_le_bytes());
    } else {
        out.push(value as i8 as u8);
    }
}

/// The bytes `job` writes, by the formulas; one `(addr, bytes)` per output.
pub fn run(job: &Job, m: &TestMemory) -> Vec<(u32, Vec<u8>)> {
    match job {
        Job::Copy(d) => {
            let mut writes = Vec::new();
            for p in 0..d.planes as i64 {
                for r in 0..d.rows as i64 {
                    let s =
                        (i64::from(d.src) + p * i64::from(d.src_plane_stride) + r * i64::from(d.src_row_stride)) as u32;
                    let t =
                        (i64::from(d.dst) + p * i64::from(d.dst_plane_stride) + r * i64::from(d.dst_row_stride)) as u32;
                    writes.push((t, m.get(s, d.row_bytes)));
                }
            }
            writes
        }
        Job::Fill(_) => unimplemented!("fill is checked directly"),
        Job::Conv(d) => {
            let w = d.window;
            let st = stage(m, &d.out, d.oc);
            let mut out = Vec::new();
            for y in 0..w.oh as i64 {
                for x in 0..w.ow as i64 {
                    for o in 0..d.oc as i64 {
                        let mut acc = d.bias.map_or(0, |b| m.i32(b + 4 * o as u32));
                        for i in 0..w.kh as i64 {
                            for j in 0..w.kw as i64 {
                                let yy = y * w.stride_y as i64 + i * w.dilation_y as i64 - w.pad_top as i64;
                                let xx = x * w.stride_x as i64 + j * w.dilation_x as i64 - w.pad_left as i64;
                                for c in 0..d.ic as i64 {
                                    let v = if yy < 0 || xx < 0 || yy >= w.ih as i64 || xx >= w.iw as i64 {
                                        0
                                    } else {
                                        m.i8(d.input + ((yy * w.iw as i64 + xx) * d.ic as i64 + c) as u32)
                                            - i64::from(d.input_zp)
                                    };
                                    let f = m
                                        .i8(d.filter
                                            + (((o * w.kh as i64 + i) * w.kw as i64 + j) * d.ic as i64 + c) as u32)
                                        - i64::from(d.filter_zp);
                                    acc += v * f;
                                }
                            }
                        }
                        emit(&mut out, &st, acc, o as usize);
                    }
                }
            }
            vec![(d.output, out)]
        }
        Job::Matmul(d) => {
            let st = stage(m, &d.out, d.n);
            let mut out = Vec::new();
            for row in 0..d.m {
                for n in 0..d.n {
                    let mut acc = if let Some(b) = d.bias { m.i32(b + 4 * n) } else { 0 };
                    for k in 0..d.k {
                        let a = m.i8(d.a + row * d.a_row_stride + k) - i64::from(d.a_zp);
                        let b = m.i8(d.b + n * d.k + k) - i64::from(d.b_zp);
                        acc += a * b;
                    }
                    emit(&mut out, &st, acc, n as usize);
                }
            }
            vec![(d.c, out)]
        }
        Job::DwConv(d) => {
            let w = d.window;
            let channels = d.c * d.mult;
            let st = stage(m, &d.out, channels);
            let mut out = Vec::new();
            for y in 0..w.oh as i64 {
                for x in 0..w.ow as i64 {
                    for ch in 0..d.c {
                        for mu in 0..d.mult {
                            let o = ch * d.mult + mu;
                            let mut acc = if let Some(b) = d.bias { m.i32(b + 4 * o) } else { 0 };
                            for i in 0..w.kh as i64 {
                                for j in 0..w.kw as i64 {
                                    let yy = y * w.stride_y as i64 + i * w.dilation_y as i64 - w.pad_top as i64;
                                    let xx = x * w.stride_x as i64 + j * w.dilation_x as i64 - w.pad_left as i64;
                                    if yy < 0 || xx < 0 || yy >= w.ih as i64 || xx >= w.iw as i64 {
                                        continue;
                                    }
                                    let v = m.i8(d.input + ((yy * w.iw as i64 + xx) as u32) * d.c + ch)
                                        - i64::from(d.input_zp);
                                    let f = m.i8(d.filter + ((i * w.kw as i64 + j) as u32 * d.c + ch) * d.mult + mu)
                                        - i64::from(d.filter_zp);
                                    acc += v * f;
                                }
                            }
                            emit(&mut out, &st, acc, o as usize);
                        }
                    }
                }
            }
            vec![(d.output, out)]
        }
        Job::Pool(d) => {
            let w = d.window;
            let mut out = Vec::new();
            for y in 0..w.oh as i64 {
                for x in 0..w.ow as i64 {
                    for c in 0..d.c {
                        let mut values = Vec::new();
                        for i in 0..w.kh as i64 {
                            for j in 0..w.kw as i64 {
                                let yy = y * w.stride_y as i64 + i - w.pad_top as i64;
                                let xx = x * w.stride_x as i64 + j - w.pad_left as i64;
                                if yy >= 0 && xx >= 0 && yy < w.ih as i64 && xx < w.iw as i64 {
                                    values.push(m.i8(d.input + ((yy * w.iw as i64 + xx) as u32) * d.pitch + c));
                                }
                            }
                        }
                        let value = if d.average {
                            let sum: i64 = values.iter().map(|v| v - i64::from(d.input_zp)).sum();
                            let (mul, shift) = reciprocal_scale(values.len() as u32);
                            i64::from(apply_scale_32(sum as i32, mul, shift, false).unwrap()) + i64::from(d.output_zp)
                        } else {
                            *values.iter().max().unwrap()
                        };
                        out.push(value.clamp(i64::from(d.min), i64::from(d.max)) as i8 as u8);
                    }
                }
            }
            if d.pitch == d.c {
                return vec![(d.output, out)];
            }
            // Pixel p at output + p·pitch.
            let pixels = out.chunks(d.c as usize).zip(0..);
            pixels.map(|(pixel, p): (&[u8], u32)| (d.output + p * d.pitch, pixel.to_vec())).collect()
        }
        Job::Eltwise(d) => {
            let st = stage(m, &d.out, 1);
            let operand = |o: &super::desc::Operand, i: u32| {
                let v = ((m.i8(o.addr + if o.stride == 0 { 0 } else { i }) - i64::from(o.zp)) << o.left_shift) as i32;
                if o.shift == 0 { v } else { apply_scale_32(v, o.multiplier, o.shift, d.out.double_round()).unwrap() }
            };
            let mut out = Vec::new();
            for i in 0..d.count {
                let (a, b) = (i64::from(operand(&d.x, i)), i64::from(operand(&d.y, i)));
                let c = match d.op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Max => a.max(b),
                    BinaryOp::Min => a.min(b),
                };
                emit(&mut out, &st, c, 0);
            }
            vec![(d.output, out)]
        }
        Job::Table(d) => {
            let mut out = Vec::new();
            for i in 0..d.count {
                if d.int16 {
                    let b = m.get(d.input + 2 * i, 2);
                    let v = i64::from(i16::from_le_bytes([b[0], b[1]])) + 32768;
                    let entry = |k: i64| {
                        let t = m.get(d.table + 2 * k as u32, 2);
                        i64::from(i16::from_le_bytes([t[0], t[1]]))
                    };
                    let (base, next) = (entry(v / 128), entry(v / 128 + 1));
                    out.extend_from_slice(&((base * 128 + (next - base) * (v % 128)) as i32).to_le_bytes());
                } else {
                    out.push(m.get(d.table + (m.i8(d.input + i) + 128) as u32, 1)[0]);
                }
            }
            vec![(d.output, out)]
        }
        Job::Rescale(d) => {
            let st = stage(m, &d.out, d.channels);
            let mut out = Vec::new();
            for i in 0..d.count {
                let b = m.get(d.input + i * d.input_bytes, d.input_bytes);
                let v = match b.len() {
                    1 => i64::from(b[0] as i8),
                    2 => i64::from(i16::from_le_bytes([b[0], b[1]])),
                    _ => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                };
                emit(&mut out, &st, v - i64::from(d.input_zp), (i % d.channels) as usize);
            }
            vec![(d.output, out)]
        }
    }
}
