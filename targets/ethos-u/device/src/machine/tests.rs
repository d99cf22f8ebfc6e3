//! Each operation by hand: streams written command by command, run on a machine of two memories
//! (region 0 the first, region 1 the second), the results worked out on paper.

use super::*;
use crate::commands::{self, Word};
use crate::payload::Config;
use crate::scales::RECORD_BYTES;
use crate::weights::Layout;

/// A command stream under construction, its commands given by name and their fields by value.
#[derive(Default)]
struct Asm(Vec<u32>);

impl Asm {
    /// Appends command `name` with `fields`, each by name and value.
    fn cmd(&mut self, name: &str, fields: &[(&str, u64)]) -> &mut Self {
        let command = commands::by_name(name).unwrap_or_else(|| panic!("no command {name}"));
        let (mut param, mut payload) = (0u64, 0u64);
        for &(field, value) in fields {
            let f = command.field(field).unwrap_or_else(|| panic!("{name} has no field {field}"));
            match f.word {
                Word::P => param |= (value & ((1 << f.width) - 1)) << f.lsb,
                Word::W => payload |= (value & ((1 << f.width) - 1)) << f.lsb,
                Word::A => {
                    param |= value >> 32;
                    payload |= value & 0xffff_ffff;
                }
            }
        }
        self.0.push(u32::from(command.code) | (param as u32) << 16);
        if command.long() {
            self.0.push(payload as u32);
        }
        self
    }

    /// A feature map `which` (`IFM`, `IFM2`, `OFM`) of `[h, w, c]` signed elements of `bytes`
    /// each, NHWC, in region `region` at `base`, with zero point `zero` (the precision's other
    /// fields 0: the 16-bit operand scales, double rounding, per-channel scales).
    fn map(&mut self, which: &str, region: u64, base: u64, [h, w, c]: [u64; 3], bytes: u64, zero: u64) -> &mut Self {
        let set = |what: &str| format!("NPU_SET_{which}_{what}");
        self.cmd(&set("REGION"), &[("region", region)]);
        for k in 0..4 {
            self.cmd(&set(&format!("BASE{k}")), &[("addr", base)]);
        }
        self.cmd(&set("HEIGHT0_M1"), &[("height_m1", h - 1)]);
        self.cmd(&set("HEIGHT1_M1"), &[("height_m1", h - 1)]);
        self.cmd(&set("WIDTH0_M1"), &[("width_m1", w - 1)]);
        if which != "IFM2" {
            self.cmd(&set("DEPTH_M1"), &[("depth_m1", c - 1)]);
        }
        if which == "OFM" {
            self.cmd("NPU_SET_OFM_HEIGHT_M1", &[("height_m1", h - 1)]);
            self.cmd("NPU_SET_OFM_WIDTH_M1", &[("width_m1", w - 1)]);
        }
        self.cmd(&set("STRIDE_C"), &[("addr", bytes)]);
        self.cmd(&set("STRIDE_X"), &[("addr", bytes * c)]);
        self.cmd(&set("STRIDE_Y"), &[("addr", bytes * c * w)]);
        self.cmd(&set("ZERO_POINT"), &[("zero_point", zero)]);
        let precision = [("activation_type", 1), ("activation_precision", bytes.trailing_zeros() as u64)];
        self.cmd(&set("PRECISION"), &precision)
    }

    /// No padding, a `kw x kh` kernel at `stride` in both directions.
    fn kernel(&mut self, [kw, kh]: [u64; 2], stride: u64) -> &mut Self {
        for side in ["TOP", "LEFT", "BOTTOM", "RIGHT"] {
            self.cmd(&format!("NPU_SET_IFM_PAD_{side}"), &[("pad", 0)]);
        }
        self.cmd("NPU_SET_KERNEL_WIDTH_M1", &[("width_m1", kw - 1)]);
        self.cmd("NPU_SET_KERNEL_HEIGHT_M1", &[("height_m1", kh - 1)]);
        self.cmd("NPU_SET_KERNEL_STRIDE", &[("stride_x_lsb", stride - 1), ("stride_y_lsb", stride - 1)])
    }

    /// The activation: a clamp to int8's range (`0xff80..0x7f`), no table.
    fn clamp(&mut self) -> &mut Self {
        self.cmd("NPU_SET_ACTIVATION", &[("activation_function", 0)]);
        self.cmd("NPU_SET_ACTIVATION_MIN", &[("clip_boundary", 0xff80)]);
        self.cmd("NPU_SET_ACTIVATION_MAX", &[("clip_boundary", 0x7f)])
    }

    /// Ends the stream and runs it on a U55-128 whose region 0 is `flash` and region 1 `sram`;
    /// returns the outcome and the machine.
    fn execute(&mut self, flash: Vec<u8>, sram: Vec<u8>) -> (Result<(), EthosUError>, Machine) {
        self.cmd("NPU_OP_STOP", &[("mask", 0xffff)]);
        let mut machine = Machine::new(U55_128, vec![flash, sram], vec![(0, 0), (1, 0)]);
        (machine.run(&self.0, |_, _| {}), machine)
    }

    /// Runs the stream ([`Asm::execute`]); returns region 1 afterwards.
    fn run(&mut self, flash: Vec<u8>, sram: Vec<u8>) -> Vec<u8> {
        let (outcome, machine) = self.execute(flash, sram);
        outcome.unwrap_or_else(|e| panic!("{e}"));
        machine.memories[1].clone()
    }

    /// Runs the stream ([`Asm::execute`]), which must fail; returns the error's message.
    fn fails(&mut self, flash: Vec<u8>, sram: Vec<u8>) -> String {
        match self.execute(flash, sram).0 {
            Ok(()) => panic!("the stream ran without an error"),
            Err(e) => e.to_string(),
        }
    }
}

/// The configuration the hand-written streams run on.
const U55_128: Config = Config { product: 0, macs: 128, shram_kib: 24, cmd_stream_version: 0, arch: (1, 0, 6) };

/// `values` as bytes of int8.
fn int8(values: &[i8]) -> Vec<u8> {
    values.iter().map(|&v| v as u8).collect()
}

#[test]
fn a_dma_copies_its_bytes_between_regions() {
    let mut asm = Asm::default();
    asm.cmd("NPU_SET_DMA0_SRC_REGION", &[("region", 0)])
        .cmd("NPU_SET_DMA0_SRC", &[("addr", 4)])
        .cmd("NPU_SET_DMA0_DST_REGION", &[("region", 1)])
        .cmd("NPU_SET_DMA0_DST", &[("addr", 2)])
        .cmd("NPU_SET_DMA0_LEN", &[("addr", 3)])
        .cmd("NPU_OP_DMA_START", &[])
        .cmd("NPU_OP_DMA_WAIT", &[("k", 0)]);
    assert_eq!(asm.run((0..8).collect(), vec![0; 6]), [0, 0, 4, 5, 6, 0]);
}

#[test]
fn a_max_pool_takes_each_channels_largest() {
    // A 2x2x2 IFM at 0 of region 1, its channels interleaved; a 2x2 pool at stride 2 writes
    // the 1x1x2 OFM at 8: max(3, -7, 100, 0) = 100 and max(-1, -2, -128, -3) = -1.
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [2, 2, 2], 1, 0)
        .map("OFM", 1, 8, [1, 1, 2], 1, 0)
        .kernel([2, 2], 2)
        .clamp()
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_POOL", &[("pooling_mode", 0)]);
    let out = asm.run(vec![], [int8(&[3, -1, -7, -2, 100, -128, 0, -3]), vec![0; 2]].concat());
    assert_eq!(&out[8..], int8(&[100, -1]));
}

#[test]
fn an_average_pool_scales_the_sum_and_rounds() {
    // 1, 2, 3, 5 sum to 11; Vela's scale for 4 elements, (2^33 + 2^2) / 4 at shift 33, makes
    // 11 / 4 = 2.75 and rounds to 3; with the IFM's zero point 1 (sum 7, 1.75) and the OFM's
    // -4 it is 2 - 4 = -2.
    let run = |zero_in: u64, zero_out: u64| {
        let mut asm = Asm::default();
        asm.map("IFM", 1, 0, [2, 2, 1], 1, zero_in)
            .map("OFM", 1, 4, [1, 1, 1], 1, zero_out)
            .kernel([2, 2], 2)
            .clamp()
            .cmd("NPU_SET_OFM_SCALE", &[("scale", ((1 << 33) + (1 << 2)) / 4), ("shift", 33)])
            .cmd("NPU_OP_POOL", &[("pooling_mode", 1)]);
        asm.run(vec![], vec![1, 2, 3, 5, 0])[4] as i8
    };
    assert_eq!(run(0, 0), 3);
    assert_eq!(run(1, 0xfffc), -2);
}

#[test]
fn elementwise_operations_take_each_pair_of_elements() {
    // ADD with both operands' 16-bit scales 1 and the OFM's 1: sums clamped to int8 (the IFM
    // less its zero point 10). MAX against a scalar IFM2 of 3.
    let ifm = int8(&[110, -100, 50, 7]);
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 1, 4], 1, 10)
        .map("IFM2", 1, 4, [1, 1, 4], 1, 0)
        .map("OFM", 1, 8, [1, 1, 4], 1, 0)
        .clamp()
        .cmd("NPU_SET_IFM2_BROADCAST", &[])
        .cmd("NPU_SET_OPA_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_SET_OPB_SCALE", &[("scale", 1)])
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_ELEMENTWISE", &[("elementwise_mode", 1)]);
    let out = asm.run(vec![], [ifm.clone(), int8(&[100, -50, -60, 1]), vec![0; 4]].concat());
    assert_eq!(&out[8..], int8(&[127, -128, -20, -2]));
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 1, 4], 1, 0)
        .map("IFM2", 1, 4, [1, 1, 4], 1, 0)
        .map("OFM", 1, 8, [1, 1, 4], 1, 0)
        .clamp()
        .cmd("NPU_SET_IFM2_BROADCAST", &[("broadcast_constant", 1)])
        .cmd("NPU_SET_IFM2_SCALAR", &[("scalar", 3)])
        .cmd("NPU_SET_OPA_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_SET_OPB_SCALE", &[("scale", 1)])
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_ELEMENTWISE", &[("elementwise_mode", 4)]);
    let out = asm.run(vec![], [int8(&[1, 5, -2, 3]), vec![0; 8]].concat());
    assert_eq!(&out[8..], int8(&[3, 5, 3, 3]));
}

#[test]
fn a_convolution_weighs_scales_and_rounds_each_channel() {
    // A 1x1 convolution of a 1x2x1 IFM (3, -4; zero point 1) by the weight 2, bias 5, scaled by
    // 2^30 at shift 31 (a half, rounded half up): ((3 - 1) · 2 + 5) / 2 = 4.5 -> 5 and
    // ((-4 - 1) · 2 + 5) / 2 = -2.5 -> -2. The weight stream holds the weight where the U55-128
    // reads it among the zeros of its block, uncompressed (9-bit sign-magnitude values).
    let layout = Layout {
        ifm_ublock: 8,
        ofm_ublock: 8,
        ofm_depth: 1,
        kernel: [1, 1],
        ifm_depth: 1,
        ofm_block_depth: 8,
        depthwise: false,
        part_kernel: false,
        ifm_bits: 8,
        decomposition: [8, 8],
    };
    let order = layout.order();
    let weights: Vec<u32> = order.iter().map(|p| if *p == Some([0, 0, 0, 0]) { 4 } else { 0 }).collect();
    let stream = crate::weights::tests::uncompressed(&weights);
    let mut record = [0u8; RECORD_BYTES];
    record[..5].copy_from_slice(&5i64.to_le_bytes()[..5]);
    record[5..9].copy_from_slice(&(1u32 << 30).to_le_bytes());
    record[9] = 31;
    let flash = [record.to_vec(), stream.clone()].concat();
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 2, 1], 1, 1)
        .map("OFM", 1, 2, [1, 2, 1], 1, 0)
        .kernel([1, 1], 1)
        .clamp()
        .cmd("NPU_SET_OFM_BLK_HEIGHT_M1", &[("height_m1", 0)])
        .cmd("NPU_SET_OFM_BLK_WIDTH_M1", &[("width_m1", 1)])
        .cmd("NPU_SET_OFM_BLK_DEPTH_M1", &[("depth_m1", 7)])
        .cmd("NPU_SET_WEIGHT_REGION", &[("region", 0)])
        .cmd("NPU_SET_WEIGHT_BASE", &[("addr", RECORD_BYTES as u64)])
        .cmd("NPU_SET_WEIGHT_LENGTH", &[("length", stream.len() as u64)])
        .cmd("NPU_SET_SCALE_REGION", &[("region", 0)])
        .cmd("NPU_SET_SCALE_BASE", &[("addr", 0)])
        .cmd("NPU_SET_SCALE_LENGTH", &[("length", RECORD_BYTES as u64)])
        .cmd("NPU_OP_CONV", &[]);
    let out = asm.run(flash, [int8(&[3, -4]), vec![0; 2]].concat());
    assert_eq!(&out[2..], int8(&[5, -2]));
}

#[test]
fn bytes_nothing_wrote_are_carried_by_a_dma_and_stop_the_kernel_that_reads_them() {
    // Region 1 holds nothing written but its bytes 0..3 (the caller stored them); a DMA copies
    // bytes 0..4 to 4..8, so byte 7 holds nothing written either, and a 2x2 max pool over
    // 4..8 stops at element (1, 1, 0), byte 7; the pool over 0..4 stops at byte 3.
    let run = |ifm: u64| {
        let mut asm = Asm::default();
        asm.cmd("NPU_SET_DMA0_SRC_REGION", &[("region", 1)])
            .cmd("NPU_SET_DMA0_SRC", &[("addr", 0)])
            .cmd("NPU_SET_DMA0_DST_REGION", &[("region", 1)])
            .cmd("NPU_SET_DMA0_DST", &[("addr", 4)])
            .cmd("NPU_SET_DMA0_LEN", &[("addr", 4)])
            .cmd("NPU_OP_DMA_START", &[])
            .cmd("NPU_OP_DMA_WAIT", &[("k", 0)])
            .map("IFM", 1, ifm, [2, 2, 1], 1, 0)
            .map("OFM", 1, 8, [1, 1, 1], 1, 0)
            .kernel([2, 2], 2)
            .clamp()
            .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
            .cmd("NPU_OP_POOL", &[("pooling_mode", 0)])
            .cmd("NPU_OP_STOP", &[("mask", 0xffff)]);
        let mut machine = Machine::new(U55_128, vec![vec![], vec![0; 9]], vec![(0, 0), (1, 0)]);
        machine.forget(1, 0..9);
        machine.store(1, 0, &[1, 2, 3]).unwrap();
        let outcome = machine.run(&asm.0, |_, _| {});
        (outcome, machine.unwritten(1, 4..8), machine.unwritten(1, 8..9))
    };
    let (outcome, copied, ofm) = run(4);
    let message = outcome.unwrap_err().to_string();
    assert!(
        message.contains("(NPU_OP_POOL): the IFM's element (1, 1, 0) at 0x7 of region 1: nothing wrote it"),
        "{message}"
    );
    assert_eq!((copied, ofm), (Some(7), Some(8)));
    let message = run(0).0.unwrap_err().to_string();
    assert!(message.contains("element (1, 1, 0) at 0x3 of region 1"), "{message}");
}

#[test]
fn a_lookup_table_nothing_wrote_stops_the_kernel() {
    // A max pool whose activation is table 0, which no DMA filled.
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 1, 1], 1, 0)
        .map("OFM", 1, 1, [1, 1, 1], 1, 0)
        .kernel([1, 1], 1)
        .cmd("NPU_SET_ACTIVATION", &[("activation_function", 16), ("activation_clip_range", 3)])
        .cmd("NPU_SET_ACTIVATION_MIN", &[("clip_boundary", 0xff80)])
        .cmd("NPU_SET_ACTIVATION_MAX", &[("clip_boundary", 0x7f)])
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_POOL", &[("pooling_mode", 0)]);
    let message = asm.fails(vec![], vec![5, 0]);
    assert!(message.contains("lookup table 0") && message.contains("nothing wrote"), "{message}");
}

#[test]
fn an_activation_whose_minimum_is_above_its_maximum_is_an_error() {
    // A 1x1 max pool clamped to 127..-128: no value lies between them.
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 1, 1], 1, 0)
        .map("OFM", 1, 1, [1, 1, 1], 1, 0)
        .kernel([1, 1], 1)
        .cmd("NPU_SET_ACTIVATION", &[("activation_function", 0)])
        .cmd("NPU_SET_ACTIVATION_MIN", &[("clip_boundary", 0x7f)])
        .cmd("NPU_SET_ACTIVATION_MAX", &[("clip_boundary", 0xff80)])
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_POOL", &[("pooling_mode", 0)]);
    let message = asm.fails(vec![], vec![5, 0]);
    assert!(
        message.ends_with(
            "an activation whose minimum (127) is above its maximum (-128) is not supported by the simulator yet"
        ),
        "{message}"
    );
}

#[test]
fn a_feature_map_larger_than_its_region_is_an_error_before_the_kernel_runs() {
    // An OFM of 300x300x1 elements in a region of 2 bytes.
    let mut asm = Asm::default();
    asm.map("IFM", 1, 0, [1, 1, 1], 1, 0)
        .map("OFM", 1, 1, [300, 300, 1], 1, 0)
        .kernel([1, 1], 1)
        .clamp()
        .cmd("NPU_SET_OFM_SCALE", &[("scale", 1), ("shift", 0)])
        .cmd("NPU_OP_POOL", &[("pooling_mode", 0)]);
    let message = asm.fails(vec![], vec![5, 0]);
    assert!(
        message.ends_with("the OFM of 300x300x1 elements of 1 bytes is larger than region 1 (2 bytes)"),
        "{message}"
    );
}

#[test]
fn a_strided_dma_is_an_error_not_a_copy_of_one_run() {
    let mut asm = Asm::default();
    asm.cmd("NPU_SET_DMA0_SRC_REGION", &[("region", 0), ("stride_mode", 1)])
        .cmd("NPU_SET_DMA0_SRC", &[("addr", 0)])
        .cmd("NPU_SET_DMA0_DST_REGION", &[("region", 1)])
        .cmd("NPU_SET_DMA0_DST", &[("addr", 0)])
        .cmd("NPU_SET_DMA0_LEN", &[("addr", 2)])
        .cmd("NPU_OP_DMA_START", &[]);
    let message = asm.fails(vec![1, 2], vec![0, 0]);
    assert!(message.contains("(NPU_OP_DMA_START): a strided DMA"), "{message}");
}
