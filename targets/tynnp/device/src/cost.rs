//! How many cycles each job keeps its unit busy (targets/tynnp/docs/isa.md, section 5). A DMA job that
//! touches DDR also needs the DDR port for `ceil(bytes / ddr-bw)` cycles after its latency; the
//! engine schedules that part (`ddr_transfer`).

use super::{desc::Job, params::Params};

fn ceil(a: u64, b: u32) -> u64 {
    a.div_ceil(u64::from(b.max(1)))
}

/// Bytes and lines a DMA job moves (`None` for compute jobs).
pub fn dma_shape(job: &Job) -> Option<(u64, u64)> {
    match job {
        Job::Copy(d) => {
            let lines = u64::from(d.rows) * u64::from(d.planes);
            Some((lines * u64::from(d.row_bytes), lines))
        }
        Job::Fill(d) => {
            let lines = u64::from(d.rows) * u64::from(d.planes);
            Some((lines * u64::from(d.row_bytes), lines))
        }
        _ => None,
    }
}

/// The cycles of a DMA job's transfer through the DDR port (bytes / bandwidth).
pub fn ddr_transfer(bytes: u64, params: &Params) -> u64 {
    ceil(bytes, params.ddr_bytes_per_cycle)
}

/// Cycles `job` keeps its unit busy, the DDR port aside: for a DMA job through DDR the latency
/// and per-line cost (the transfer itself is scheduled on the port); otherwise everything.
pub fn cycles(job: &Job, params: &Params, touches_ddr: bool) -> u64 {
    let lanes = params.vu_lanes;
    match job {
        Job::Copy(_) | Job::Fill(_) => {
            let (bytes, lines) = dma_shape(job).unwrap_or_default();
            if touches_ddr { u64::from(params.ddr_latency) + lines } else { 4 + ceil(bytes, 64) + lines }
        }
        Job::Conv(d) => {
            let w = &d.window;
            let pixels = u64::from(w.oh) * u64::from(w.ow);
            let fill = u64::from(params.nu_rows + params.nu_cols);
            let out_tiles = ceil(u64::from(d.oc), params.nu_cols);
            fill + pixels * u64::from(w.kh * w.kw) * ceil(u64::from(d.ic), params.nu_rows) * out_tiles
                + pixels * out_tiles
        }
        Job::Matmul(d) => {
            let fill = u64::from(params.nu_rows + params.nu_cols);
            let out_tiles = ceil(u64::from(d.n), params.nu_cols);
            fill + u64::from(d.m) * ceil(u64::from(d.k), params.nu_rows) * out_tiles + u64::from(d.m) * out_tiles
        }
        Job::DwConv(d) => {
            let w = &d.window;
            let pixels = u64::from(w.oh) * u64::from(w.ow);
            8 + pixels * u64::from(w.kh * w.kw + 1) * ceil(u64::from(d.c * d.mult), lanes)
        }
        Job::Pool(d) => {
            let w = &d.window;
            let pixels = u64::from(w.oh) * u64::from(w.ow);
            8 + pixels * u64::from(w.kh * w.kw + 1) * ceil(u64::from(d.c), lanes)
        }
        Job::Eltwise(d) => 8 + 2 * ceil(u64::from(d.count), lanes),
        Job::Table(d) => 8 + ceil(u64::from(d.count), lanes) + ceil(if d.int16 { 513 } else { 256 }, lanes),
        Job::Rescale(d) => 8 + ceil(u64::from(d.count), lanes),
    }
}

/// Output pixels times kernel taps, in 64 bits (descriptor fields are 32-bit).
fn window_positions(w: &super::desc::Window) -> u64 {
    u64::from(w.oh) * u64::from(w.ow) * u64::from(w.kh) * u64::from(w.kw)
}

/// The multiply-accumulates `job` does (convolutions and matrix products; 0 for the others).
pub fn macs(job: &Job) -> u64 {
    match job {
        Job::Conv(d) => window_positions(&d.window) * u64::from(d.ic) * u64::from(d.oc),
        Job::Matmul(d) => u64::from(d.m) * u64::from(d.n) * u64::from(d.k),
        Job::DwConv(d) => window_positions(&d.window) * u64::from(d.c) * u64::from(d.mult),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::{Conv, Copy, OutBlock, Window};

    #[test]
    fn hand_computed_costs() {
        let p = Params::default();
        let copy = Job::Copy(Copy {
            src: 0x8000_0000,
            dst: 0x1000_0000,
            row_bytes: 100,
            rows: 3,
            src_row_stride: 100,
            dst_row_stride: 128,
            planes: 1,
            src_plane_stride: 0,
            dst_plane_stride: 0,
        });
        // DDR: 64 latency + 3 lines on the unit; 300 bytes / 16 = 19 cycles on the port.
        assert_eq!(cycles(&copy, &p, true), 67);
        assert_eq!(ddr_transfer(300, &p), 19);
        // On chip: 4 + ceil(300 / 64) + 3 = 12.
        assert_eq!(cycles(&copy, &p, false), 12);
        let out = OutBlock { multiplier_addr: 0, shift_addr: 0, flags: 0, output_zp: 0, min: -128, max: 127 };
        let window = Window {
            ih: 10,
            iw: 10,
            oh: 8,
            ow: 8,
            kh: 3,
            kw: 3,
            stride_y: 1,
            stride_x: 1,
            dilation_y: 1,
            dilation_x: 1,
            pad_top: 0,
            pad_left: 0,
        };
        let conv = Job::Conv(Conv {
            input: 0,
            ic: 20,
            input_zp: 0,
            filter: 0,
            oc: 40,
            filter_zp: 0,
            bias: None,
            output: 0,
            window,
            out,
        });
        // 32 + 64 pixels · 9 taps · ceil(20/16)=2 · ceil(40/16)=3 + 64 · 3 = 32 + 3456 + 192.
        assert_eq!(cycles(&conv, &p, false), 3680);
    }
}
