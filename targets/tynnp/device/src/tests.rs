//! Every job kind against the plain formulas (`reference.rs`) on random descriptors and operands,
//! with random array and lane sizes so that every tiling edge is crossed; then descriptors
//! decoded from their memory layout, and the rejections of bad ones.

use super::{
    NpuError,
    compute::execute,
    desc::{
        BinaryOp, Conv, Copy, DwConv, Eltwise, Job, Matmul, Operand, OutBlock, Pool, Rescale, Table, Window, decode,
    },
    params::Params,
    reference::{TestMemory, run},
};
use umac_runtime::testdata::Rng;

/// Uniform in `low..=high`, as u32.
fn u(rng: &mut Rng, low: u32, high: u32) -> u32 {
    rng.range(i64::from(low), i64::from(high)) as u32
}

/// Places operands one after another from a base address.
struct Placer {
    next: u32,
}

impl Placer {
    fn put(&mut self, m: &mut TestMemory, data: &[u8]) -> u32 {
        let addr = self.next;
        m.put(addr, data);
        self.next += (data.len() as u32).next_multiple_of(16) + 16;
        addr
    }
    fn reserve(&mut self, n: u32) -> u32 {
        let addr = self.next;
        self.next += n.next_multiple_of(16) + 16;
        addr
    }
}

fn random_params(rng: &mut Rng) -> Params {
    Params { nu_rows: u(rng, 1, 20), nu_cols: u(rng, 1, 20), vu_lanes: u(rng, 1, 20), ..Params::default() }
}

/// A random output stage for `channels` channels (raw int32 one time in eight).
fn random_out(rng: &mut Rng, m: &mut TestMemory, at: &mut Placer, channels: u32) -> OutBlock {
    let per_channel = rng.coin();
    let n = if per_channel { channels } else { 1 };
    let multipliers: Vec<u8> =
        (0..n).flat_map(|_| (rng.range(1 << 29, i64::from(i32::MAX)) as i32).to_le_bytes()).collect();
    let shifts: Vec<u8> = (0..n).map(|_| rng.range(30, 40) as u8).collect();
    let (min, max) = (rng.range(-128, 0) as i32, rng.range(0, 127) as i32);
    let raw = rng.next().is_multiple_of(8);
    OutBlock {
        multiplier_addr: at.put(m, &multipliers),
        shift_addr: at.put(m, &shifts),
        flags: u32::from(per_channel) | u32::from(rng.coin()) << 1 | u32::from(raw) << 2,
        output_zp: rng.range(-20, 20) as i32,
        min,
        max,
    }
}

fn random_window(rng: &mut Rng, dilation: bool) -> Window {
    let (kh, kw) = (u(rng, 1, 4), u(rng, 1, 4));
    let (sy, sx) = (u(rng, 1, 3), u(rng, 1, 3));
    let (dy, dx) = if dilation { (u(rng, 1, 2), u(rng, 1, 2)) } else { (1, 1) };
    let (pt, pl) = (u(rng, 0, kh - 1), u(rng, 0, kw - 1));
    let (pb, pr) = (u(rng, 0, kh - 1), u(rng, 0, kw - 1));
    let ih = u(rng, (kh - 1) * dy + 1, 9);
    let iw = u(rng, (kw - 1) * dx + 1, 9);
    let oh = (ih + pt + pb - (kh - 1) * dy - 1) / sy + 1;
    let ow = (iw + pl + pr - (kw - 1) * dx - 1) / sx + 1;
    Window {
        ih,
        iw,
        oh,
        ow,
        kh,
        kw,
        stride_y: sy,
        stride_x: sx,
        dilation_y: dy,
        dilation_x: dx,
        pad_top: pt,
        pad_left: pl,
    }
}

fn random_job(kind: u32, rng: &mut Rng, m: &mut TestMemory) -> Job {
    let mut at = Placer { next: 0x1000_0000 };
    let zp = |rng: &mut Rng| rng.range(-128, 127) as i32;
    let bias = |rng: &mut Rng, m: &mut TestMemory, at: &mut Placer, n: u32| {
        rng.coin().then(|| {
            let b: Vec<u8> = (0..n).flat_map(|_| (rng.range(-50_000, 50_000) as i32).to_le_bytes()).collect();
            at.put(m, &b)
        })
    };
    match kind {
        0 => {
            let (rows, planes, row_bytes) = (u(rng, 1, 5), u(rng, 1, 3), u(rng, 1, 40));
            let src = at.put(m, &rng.bytes((row_bytes * rows * planes * 3) as usize));
            Job::Copy(Copy {
                src,
                dst: at.reserve(row_bytes * rows * planes * 3),
                row_bytes,
                rows,
                src_row_stride: (row_bytes + u(rng, 0, 5)) as i32,
                dst_row_stride: (row_bytes + u(rng, 0, 5)) as i32,
                planes,
                src_plane_stride: (row_bytes * rows + u(rng, 0, 40)) as i32 + 5 * 4,
                dst_plane_stride: (row_bytes * rows + u(rng, 0, 40)) as i32 + 5 * 4,
            })
        }
        1 => {
            let w = random_window(rng, true);
            let (ic, oc) = (u(rng, 1, 40), u(rng, 1, 40));
            let input = at.put(m, &rng.bytes((w.ih * w.iw * ic) as usize));
            let filter = at.put(m, &rng.bytes((oc * w.kh * w.kw * ic) as usize));
            let bias = bias(rng, m, &mut at, oc);
            let out = random_out(rng, m, &mut at, oc);
            let (input_zp, filter_zp) = (zp(rng), if rng.coin() { 0 } else { zp(rng) });
            Job::Conv(Conv { input, ic, input_zp, filter, oc, filter_zp, bias, output: at.reserve(1), window: w, out })
        }
        2 => {
            let (mm, k, n) = (u(rng, 1, 6), u(rng, 1, 50), u(rng, 1, 40));
            let a_row_stride = k + u(rng, 0, 3);
            let a = at.put(m, &rng.bytes((mm * a_row_stride) as usize));
            let b = at.put(m, &rng.bytes((n * k) as usize));
            let bias = bias(rng, m, &mut at, n);
            let out = random_out(rng, m, &mut at, n);
            Job::Matmul(Matmul {
                a,
                m: mm,
                k,
                a_zp: zp(rng),
                a_row_stride,
                b,
                n,
                b_zp: zp(rng),
                bias,
                c: at.reserve(1),
                out,
            })
        }
        3 => {
            let w = random_window(rng, true);
            let (c, mult) = (u(rng, 1, 40), u(rng, 1, 3));
            let input = at.put(m, &rng.bytes((w.ih * w.iw * c) as usize));
            let filter = at.put(m, &rng.bytes((w.kh * w.kw * c * mult) as usize));
            let bias = bias(rng, m, &mut at, c * mult);
            let out = random_out(rng, m, &mut at, c * mult);
            Job::DwConv(DwConv {
                input,
                c,
                input_zp: zp(rng),
                filter,
                mult,
                filter_zp: zp(rng),
                bias,
                output: at.reserve(1),
                window: w,
                out,
            })
        }
        4 => {
            let mut w = random_window(rng, false);
            // Every window keeps at least one element inside the input (pads < kernel).
            w.pad_top = w.pad_top.min(w.kh - 1);
            w.pad_left = w.pad_left.min(w.kw - 1);
            let c = u(rng, 1, 40);
            // Dense half the time, else a band of the channels of wider pixels.
            let pitch = if rng.coin() { c } else { c + u(rng, 1, 24) };
            let input = at.put(m, &rng.bytes((w.ih * w.iw * pitch) as usize));
            Job::Pool(Pool {
                average: rng.coin(),
                input,
                c,
                output: at.reserve(1),
                pitch,
                window: w,
                input_zp: zp(rng),
                output_zp: rng.range(-20, 20) as i32,
                min: rng.range(-128, 0) as i32,
                max: rng.range(0, 127) as i32,
            })
        }
        5 => {
            let count = u(rng, 1, 100);
            let op = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min][u(rng, 0, 4) as usize];
            // Inputs within int32's contract: |x - zp| < 2^8, so `a` < 2^(8 + left_shift) without
            // a multiplier and < 2^(8 + left_shift + 31 - shift) with one. Sums stay below 2^30
            // each; products below 2^15 each.
            let (max_left, min_shift) = if op == BinaryOp::Mul { (0, 24) } else { (10, 20) };
            let operand = |rng: &mut Rng, m: &mut TestMemory, at: &mut Placer| {
                let stride = u32::from(!rng.next().is_multiple_of(4));
                let addr = at.put(m, &rng.bytes((count) as usize));
                let rescale = rng.coin();
                Operand {
                    addr,
                    stride,
                    zp: zp(rng),
                    left_shift: rng.range(0, if rescale { max_left } else { 3 * max_left / 2 + 6 }) as i32,
                    multiplier: if rescale { rng.range(1 << 29, i64::from(i32::MAX)) as i32 } else { 0 },
                    shift: if rescale { rng.range(min_shift, 40) as i32 } else { 0 },
                }
            };
            let (x, y) = (operand(rng, m, &mut at), operand(rng, m, &mut at));
            let out = random_out(rng, m, &mut at, 1);
            Job::Eltwise(Eltwise { op, x, y, output: at.reserve(1), count, out })
        }
        6 => {
            let (int16, count) = (rng.coin(), u(rng, 1, 100));
            let input = at.put(m, &rng.bytes((count * if int16 { 2 } else { 1 }) as usize));
            let table = at.put(m, &rng.bytes((if int16 { 513 * 2 } else { 256 }) as usize));
            Job::Table(Table { int16, input, table, output: at.reserve(1), count })
        }
        _ => {
            let input_bytes = [1, 2, 4][u(rng, 0, 2) as usize];
            let (count, channels) = (u(rng, 1, 100), u(rng, 1, 8));
            let mut data = rng.bytes((count * input_bytes) as usize);
            if input_bytes == 4 {
                // int32 inputs well inside the range apply_scale_32 keeps exact.
                for chunk in data.chunks_exact_mut(4) {
                    chunk.copy_from_slice(&(rng.range(-1 << 24, 1 << 24) as i32).to_le_bytes());
                }
            }
            let input = at.put(m, &data);
            let out = random_out(rng, m, &mut at, channels);
            Job::Rescale(Rescale { input_bytes, input, output: at.reserve(1), count, channels, input_zp: zp(rng), out })
        }
    }
}

#[test]
fn every_job_kind_matches_the_formulas_on_random_operands() {
    let mut rng = Rng(0x7e55_2026);
    for round in 0..1600 {
        let kind = round % 8;
        let mut m = TestMemory::default();
        let job = random_job(kind, &mut rng, &mut m);
        let params = random_params(&mut rng);
        let effect = execute(&job, &params, &m).unwrap_or_else(|e| panic!("round {round}: {job:?}: {e}"));
        let expected = run(&job, &m);
        assert_eq!(effect.writes, expected, "round {round}, {params:?}, {job:?}");
        assert!(!effect.reads.is_empty());
    }
}

#[test]
fn descriptors_decode_from_their_layout() {
    // nu.conv: every field at its documented offset.
    let mut w = [0u32; 30];
    let fields: [(usize, u32); 24] = [
        (0, 0x0100_0001),
        (2, 0x1000_0000),
        (3, 5),
        (4, 6),
        (5, 7),
        (6, (-3i32) as u32),
        (7, 0x1000_1000),
        (8, 8),
        (9, 3),
        (10, 2),
        (11, 0),
        (12, 0x1000_2000),
        (13, 0x1000_3000),
        (14, 3),
        (15, 5),
        (16, 1),
        (17, 1),
        (18, 1),
        (19, 1),
        (20, 0),
        (21, 0),
        (22, 1),
        (25, 2),
        (28, 127),
    ];
    for (i, v) in fields {
        w[i] = v;
    }
    w[27] = (-128i32) as u32;
    let (deps, job) = decode(0x2B, 0, 0, &w).unwrap();
    assert_eq!(deps, [0x0100_0001, 0]);
    let Job::Conv(c) = job else { panic!() };
    assert_eq!(
        (c.input, c.ic, c.input_zp, c.oc, c.bias, c.output),
        (0x1000_0000, 7, -3, 8, Some(0x1000_2000), 0x1000_3000)
    );
    assert_eq!((c.window.ih, c.window.iw, c.window.kh, c.window.kw, c.window.oh, c.window.ow), (5, 6, 3, 2, 3, 5));
    assert!(c.out.double_round() && !c.out.per_channel());
    w[22] = 0;
    assert!(matches!(decode(0x2B, 0, 0, &w).unwrap().1, Job::Conv(Conv { bias: None, .. })));
    // Rejections name the field.
    w[5] = 0;
    assert_eq!(decode(0x2B, 0, 0, &w).unwrap_err(), NpuError::Malformed("ic is 0".into()));
    w[5] = 7;
    w[28] = 200;
    assert!(decode(0x2B, 0, 0, &w).unwrap_err().to_string().contains("clamp [-128, 200]"));
    assert!(decode(0x2B, 2, 0, &w).unwrap_err().to_string().contains("no NPU instruction"));
    assert!(decode(0x5B, 1, 2, &[0; 20]).unwrap_err().to_string().contains("no NPU instruction"));
    // vu.pool: c at +20, pitch (the last word) at least c.
    let mut p = [0u32; 20];
    for (i, v) in [(2, 0x1000_0000), (3, 2), (4, 2), (5, 16), (6, 0x1000_0100), (7, 1), (8, 1), (9, 2), (10, 2)]
        .into_iter()
        .chain([(11, 1), (12, 1), (19, 64)])
    {
        p[i] = v;
    }
    let Job::Pool(d) = decode(0x5B, 1, 1, &p).unwrap().1 else { panic!() };
    assert_eq!((d.average, d.input, d.c, d.output, d.pitch), (true, 0x1000_0000, 16, 0x1000_0100, 64));
    p[19] = 15;
    assert_eq!(decode(0x5B, 1, 1, &p).unwrap_err().to_string(), "pitch 15 is less than c 16");
    // vu.eltwise: each input's zero point, left shift, multiplier and shift, then OUT at +64.
    let mut e = [0u32; 23];
    for (i, v) in
        [(2, 0x1000_0000), (3, 1), (4, 128), (5, 20), (6, 1 << 30), (7, 33), (8, 0x1000_0100), (10, -4i32 as u32)]
            .into_iter()
            .chain([(11, 19), (14, 0x1000_0200), (15, 256), (18, 2), (20, -128i32 as u32), (21, 127)])
    {
        e[i] = v;
    }
    let Job::Eltwise(d) = decode(0x5B, 2, 1, &e).unwrap().1 else { panic!() };
    assert_eq!((d.op, d.x.zp, d.x.left_shift, d.x.multiplier, d.x.shift), (BinaryOp::Sub, 128, 20, 1 << 30, 33));
    assert_eq!((d.y.stride, d.y.zp, d.y.left_shift, d.y.shift, d.output, d.count), (0, -4, 19, 0, 0x1000_0200, 256));
    assert!(d.out.double_round() && (d.out.min, d.out.max) == (-128, 127));
    e[11] = 31;
    assert_eq!(decode(0x5B, 2, 1, &e).unwrap_err().to_string(), "y_left_shift 31 is not in 0..=30");
}
