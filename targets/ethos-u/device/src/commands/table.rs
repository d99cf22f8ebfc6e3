//! The 97 commands of the Ethos-U55/U65 register command stream (architecture 1.0.6, the version
//! Vela 5.2 writes), each with its opcode and fields: where each field's bits lie (in the 16-bit
//! parameter of the command word, in the 32-bit payload word of a long command, or an address
//! of 40 bits, the payload below the parameter's low byte) and how it reads. Facts of the
//! hardware interface, as Arm's Ethos-U core driver describes its registers
//! (`ethosu65_interface.h`, Apache-2.0) and Vela names their values; the names are Vela's, so a
//! listing of a stream reads as Vela's `--verbose-register-command-stream` does.

use super::{Command, Field, Show, Values, Word};

const fn c(code: u16, name: &'static str, fields: &'static [Field]) -> Command {
    Command { code, name, fields }
}

const fn f(name: &'static str, word: Word, lsb: u8, width: u8, show: Show) -> Field {
    Field { name, word, lsb, width, show }
}

use Show::{Dec, Enum, Hex};
use Word::{A, P, W};

const ACC_FORMAT: &Values = &[(0, "ACC_FORMAT_I32"), (1, "ACC_FORMAT_I40"), (2, "ACC_FORMAT_F16")];
const ACTIVATION_CLIP_RANGE: &Values = &[
    (0, "ACTIVATION_CLIP_RANGE_OFM_PRECISION"),
    (2, "ACTIVATION_CLIP_RANGE_FORCE_UINT8"),
    (3, "ACTIVATION_CLIP_RANGE_FORCE_INT8"),
    (5, "ACTIVATION_CLIP_RANGE_FORCE_INT16"),
];
const ACTIVATION_FORMAT: &Values = &[(0, "ACTIVATION_FORMAT_NHWC"), (1, "ACTIVATION_FORMAT_NHCWB16")];
const ACTIVATION_FUNCTION: &Values = &[
    (0, "ACTIVATION_FUNCTION_RELU"),
    (3, "ACTIVATION_FUNCTION_TANH"),
    (4, "ACTIVATION_FUNCTION_SIGMOID"),
    (16, "ACTIVATION_FUNCTION_TABLE_0"),
    (17, "ACTIVATION_FUNCTION_TABLE_1"),
    (18, "ACTIVATION_FUNCTION_TABLE_2"),
    (19, "ACTIVATION_FUNCTION_TABLE_3"),
    (20, "ACTIVATION_FUNCTION_TABLE_4"),
    (21, "ACTIVATION_FUNCTION_TABLE_5"),
    (22, "ACTIVATION_FUNCTION_TABLE_6"),
    (23, "ACTIVATION_FUNCTION_TABLE_7"),
];
const ACTIVATION_PRECISION: &Values = &[
    (0, "ACTIVATION_PRECISION_B8"),
    (1, "ACTIVATION_PRECISION_B16"),
    (2, "ACTIVATION_PRECISION_B32"),
    (3, "ACTIVATION_PRECISION_B64"),
];
const ACTIVATION_TYPE: &Values = &[(0, "ACTIVATION_TYPE_UNSIGNED"), (1, "ACTIVATION_TYPE_SIGNED")];
const BROADCAST_MODE: &Values = &[(0, "BROADCAST_MODE_DISABLE"), (1, "BROADCAST_MODE_ENABLE")];
const DMA_REGION_MODE: &Values = &[(0, "DMA_REGION_MODE_EXTERNAL"), (1, "DMA_REGION_MODE_INTERNAL")];
const DMA_STRIDE_MODE: &Values = &[(0, "DMA_STRIDE_MODE_D1"), (1, "DMA_STRIDE_MODE_D2"), (2, "DMA_STRIDE_MODE_D3")];
const ELEMENTWISE_MODE: &Values = &[
    (0, "ELEMENTWISE_MODE_MUL"),
    (1, "ELEMENTWISE_MODE_ADD"),
    (2, "ELEMENTWISE_MODE_SUB"),
    (3, "ELEMENTWISE_MODE_MIN"),
    (4, "ELEMENTWISE_MODE_MAX"),
    (5, "ELEMENTWISE_MODE_LRELU"),
    (6, "ELEMENTWISE_MODE_ABS"),
    (7, "ELEMENTWISE_MODE_CLZ"),
    (8, "ELEMENTWISE_MODE_SHR"),
    (9, "ELEMENTWISE_MODE_SHL"),
];
const IFM2_OPERAND_ORDER: &Values = &[(0, "IFM2_OPERAND_ORDER_ORDER_B"), (1, "IFM2_OPERAND_ORDER_ORDER_A")];
const IFM_SCALE_MODE: &Values =
    &[(0, "IFM_SCALE_MODE_OPA_OPB_16"), (1, "IFM_SCALE_MODE_OPA_32"), (2, "IFM_SCALE_MODE_OPB_32")];
const IFM_UPSCALE_MODE: &Values =
    &[(0, "IFM_UPSCALE_MODE_NONE"), (1, "IFM_UPSCALE_MODE_NEAREST"), (2, "IFM_UPSCALE_MODE_ZEROS")];
const KERNEL_DECOMPOSITION: &Values = &[(0, "KERNEL_DECOMPOSITION_D8X8"), (1, "KERNEL_DECOMPOSITION_D4X4")];
const KERNEL_DILATION: &Values = &[(0, "KERNEL_DILATION_NONE"), (1, "KERNEL_DILATION_X2")];
const OFM_SCALE_MODE: &Values = &[(0, "OFM_SCALE_MODE_PER_CHANNEL"), (1, "OFM_SCALE_MODE_GLOBAL")];
const PARALLEL_MODE: &Values = &[(0, "PARALLEL_MODE_SINGLE_CORE"), (1, "PARALLEL_MODE_DUAL_CORE_DEPTH")];
const POOLING_MODE: &Values = &[(0, "POOLING_MODE_MAX"), (1, "POOLING_MODE_AVERAGE"), (2, "POOLING_MODE_REDUCE_SUM")];
const ROUND_MODE: &Values = &[(0, "ROUND_MODE_DBL"), (1, "ROUND_MODE_TRUNCATE"), (2, "ROUND_MODE_NATURAL")];
const WEIGHT_ORDER: &Values = &[(0, "WEIGHT_ORDER_DEPTH_FIRST"), (1, "WEIGHT_ORDER_PART_KERNEL_FIRST")];

/// Every command, by code.
pub(super) static COMMANDS: [Command; 97] = [
    c(0x0000, "NPU_OP_STOP", &[f("mask", P, 0, 16, Dec)]),
    c(0x0001, "NPU_OP_IRQ", &[f("mask", P, 0, 16, Dec)]),
    c(0x0002, "NPU_OP_CONV", &[]),
    c(0x0003, "NPU_OP_DEPTHWISE", &[]),
    c(0x0005, "NPU_OP_POOL", &[f("pooling_mode", P, 0, 3, Enum(POOLING_MODE))]),
    c(0x0006, "NPU_OP_ELEMENTWISE", &[f("elementwise_mode", P, 0, 6, Enum(ELEMENTWISE_MODE))]),
    c(0x0010, "NPU_OP_DMA_START", &[]),
    c(0x0011, "NPU_OP_DMA_WAIT", &[f("k", P, 0, 4, Dec)]),
    c(0x0012, "NPU_OP_KERNEL_WAIT", &[f("n", P, 0, 2, Dec)]),
    c(0x0013, "NPU_OP_PMU_MASK", &[f("enable", P, 0, 1, Dec)]),
    c(0x0100, "NPU_SET_IFM_PAD_TOP", &[f("pad", P, 0, 7, Dec)]),
    c(0x0101, "NPU_SET_IFM_PAD_LEFT", &[f("pad", P, 0, 7, Dec)]),
    c(0x0102, "NPU_SET_IFM_PAD_RIGHT", &[f("pad", P, 0, 8, Dec)]),
    c(0x0103, "NPU_SET_IFM_PAD_BOTTOM", &[f("pad", P, 0, 8, Dec)]),
    c(0x0104, "NPU_SET_IFM_DEPTH_M1", &[f("depth_m1", P, 0, 16, Dec)]),
    c(
        0x0105,
        "NPU_SET_IFM_PRECISION",
        &[
            f("activation_type", P, 0, 1, Enum(ACTIVATION_TYPE)),
            f("activation_precision", P, 2, 2, Enum(ACTIVATION_PRECISION)),
            f("activation_format", P, 6, 2, Enum(ACTIVATION_FORMAT)),
            f("scale_mode", P, 8, 2, Enum(IFM_SCALE_MODE)),
            f("round_mode", P, 14, 2, Enum(ROUND_MODE)),
        ],
    ),
    c(0x0107, "NPU_SET_IFM_UPSCALE", &[f("mode", P, 0, 2, Enum(IFM_UPSCALE_MODE))]),
    c(0x0109, "NPU_SET_IFM_ZERO_POINT", &[f("zero_point", P, 0, 16, Dec)]),
    c(0x010a, "NPU_SET_IFM_WIDTH0_M1", &[f("width_m1", P, 0, 16, Dec)]),
    c(0x010b, "NPU_SET_IFM_HEIGHT0_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x010c, "NPU_SET_IFM_HEIGHT1_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x010d, "NPU_SET_IFM_IB_END", &[f("ib_end", P, 0, 6, Dec)]),
    c(0x010f, "NPU_SET_IFM_REGION", &[f("region", P, 0, 3, Dec)]),
    c(0x0111, "NPU_SET_OFM_WIDTH_M1", &[f("width_m1", P, 0, 16, Dec)]),
    c(0x0112, "NPU_SET_OFM_HEIGHT_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x0113, "NPU_SET_OFM_DEPTH_M1", &[f("depth_m1", P, 0, 16, Dec)]),
    c(
        0x0114,
        "NPU_SET_OFM_PRECISION",
        &[
            f("activation_type", P, 0, 1, Enum(ACTIVATION_TYPE)),
            f("activation_precision", P, 1, 2, Enum(ACTIVATION_PRECISION)),
            f("activation_format", P, 6, 2, Enum(ACTIVATION_FORMAT)),
            f("scale_mode", P, 8, 1, Enum(OFM_SCALE_MODE)),
            f("round_mode", P, 14, 2, Enum(ROUND_MODE)),
        ],
    ),
    c(0x0115, "NPU_SET_OFM_BLK_WIDTH_M1", &[f("width_m1", P, 0, 6, Dec)]),
    c(0x0116, "NPU_SET_OFM_BLK_HEIGHT_M1", &[f("height_m1", P, 0, 5, Dec)]),
    c(0x0117, "NPU_SET_OFM_BLK_DEPTH_M1", &[f("depth_m1", P, 0, 7, Dec)]),
    c(0x0118, "NPU_SET_OFM_ZERO_POINT", &[f("zero_point", P, 0, 16, Dec)]),
    c(0x011a, "NPU_SET_OFM_WIDTH0_M1", &[f("width_m1", P, 0, 16, Dec)]),
    c(0x011b, "NPU_SET_OFM_HEIGHT0_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x011c, "NPU_SET_OFM_HEIGHT1_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x011f, "NPU_SET_OFM_REGION", &[f("region", P, 0, 3, Dec)]),
    c(0x0120, "NPU_SET_KERNEL_WIDTH_M1", &[f("width_m1", P, 0, 16, Dec)]),
    c(0x0121, "NPU_SET_KERNEL_HEIGHT_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(
        0x0122,
        "NPU_SET_KERNEL_STRIDE",
        &[
            f("stride_x_lsb", P, 0, 1, Dec),
            f("stride_y_lsb", P, 1, 1, Dec),
            f("weight_order", P, 2, 1, Enum(WEIGHT_ORDER)),
            f("dilation_x", P, 3, 1, Enum(KERNEL_DILATION)),
            f("dilation_y", P, 4, 1, Enum(KERNEL_DILATION)),
            f("decomposition", P, 5, 1, Enum(KERNEL_DECOMPOSITION)),
            f("stride_x_msb", P, 6, 1, Dec),
            f("stride_y_msb", P, 9, 1, Dec),
        ],
    ),
    c(0x0123, "NPU_SET_PARALLEL_MODE", &[f("parallel_mode", P, 0, 1, Enum(PARALLEL_MODE))]),
    c(0x0124, "NPU_SET_ACC_FORMAT", &[f("acc_format", P, 0, 2, Enum(ACC_FORMAT))]),
    c(
        0x0125,
        "NPU_SET_ACTIVATION",
        &[
            f("activation_function", P, 0, 5, Enum(ACTIVATION_FUNCTION)),
            f("activation_clip_range", P, 12, 3, Enum(ACTIVATION_CLIP_RANGE)),
        ],
    ),
    c(0x0126, "NPU_SET_ACTIVATION_MIN", &[f("clip_boundary", P, 0, 16, Dec)]),
    c(0x0127, "NPU_SET_ACTIVATION_MAX", &[f("clip_boundary", P, 0, 16, Dec)]),
    c(0x0128, "NPU_SET_WEIGHT_REGION", &[f("region", P, 0, 3, Dec)]),
    c(0x0129, "NPU_SET_SCALE_REGION", &[f("region", P, 0, 3, Dec)]),
    c(0x012d, "NPU_SET_AB_START", &[f("ab_start", P, 0, 6, Dec)]),
    c(0x012f, "NPU_SET_BLOCKDEP", &[f("blockdep", P, 0, 2, Dec)]),
    c(
        0x0130,
        "NPU_SET_DMA0_SRC_REGION",
        &[
            f("region", P, 0, 3, Dec),
            f("region_mode", P, 8, 1, Enum(DMA_REGION_MODE)),
            f("stride_mode", P, 9, 2, Enum(DMA_STRIDE_MODE)),
        ],
    ),
    c(
        0x0131,
        "NPU_SET_DMA0_DST_REGION",
        &[
            f("region", P, 0, 3, Dec),
            f("region_mode", P, 8, 1, Enum(DMA_REGION_MODE)),
            f("stride_mode", P, 9, 2, Enum(DMA_STRIDE_MODE)),
        ],
    ),
    c(0x0132, "NPU_SET_DMA0_SIZE0", &[f("size", P, 0, 16, Dec)]),
    c(0x0133, "NPU_SET_DMA0_SIZE1", &[f("size", P, 0, 16, Dec)]),
    c(
        0x0180,
        "NPU_SET_IFM2_BROADCAST",
        &[
            f("broadcast_h", P, 0, 1, Enum(BROADCAST_MODE)),
            f("broadcast_w", P, 1, 1, Enum(BROADCAST_MODE)),
            f("broadcast_c", P, 2, 1, Enum(BROADCAST_MODE)),
            f("operand_order", P, 6, 1, Enum(IFM2_OPERAND_ORDER)),
            f("broadcast_constant", P, 7, 1, Enum(BROADCAST_MODE)),
        ],
    ),
    c(0x0181, "NPU_SET_IFM2_SCALAR", &[f("scalar", P, 0, 16, Dec)]),
    c(
        0x0185,
        "NPU_SET_IFM2_PRECISION",
        &[
            f("activation_type", P, 0, 1, Enum(ACTIVATION_TYPE)),
            f("activation_precision", P, 2, 2, Enum(ACTIVATION_PRECISION)),
            f("activation_format", P, 6, 2, Enum(ACTIVATION_FORMAT)),
        ],
    ),
    c(0x0189, "NPU_SET_IFM2_ZERO_POINT", &[f("zero_point", P, 0, 16, Dec)]),
    c(0x018a, "NPU_SET_IFM2_WIDTH0_M1", &[f("width_m1", P, 0, 16, Dec)]),
    c(0x018b, "NPU_SET_IFM2_HEIGHT0_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x018c, "NPU_SET_IFM2_HEIGHT1_M1", &[f("height_m1", P, 0, 16, Dec)]),
    c(0x018d, "NPU_SET_IFM2_IB_START", &[f("ib_start", P, 0, 6, Dec)]),
    c(0x018f, "NPU_SET_IFM2_REGION", &[f("region", P, 0, 3, Dec)]),
    c(0x4000, "NPU_SET_IFM_BASE0", &[f("addr", A, 0, 40, Hex)]),
    c(0x4001, "NPU_SET_IFM_BASE1", &[f("addr", A, 0, 40, Hex)]),
    c(0x4002, "NPU_SET_IFM_BASE2", &[f("addr", A, 0, 40, Hex)]),
    c(0x4003, "NPU_SET_IFM_BASE3", &[f("addr", A, 0, 40, Hex)]),
    c(0x4004, "NPU_SET_IFM_STRIDE_X", &[f("addr", A, 0, 40, Hex)]),
    c(0x4005, "NPU_SET_IFM_STRIDE_Y", &[f("addr", A, 0, 40, Hex)]),
    c(0x4006, "NPU_SET_IFM_STRIDE_C", &[f("addr", A, 0, 40, Hex)]),
    c(0x4010, "NPU_SET_OFM_BASE0", &[f("addr", A, 0, 40, Hex)]),
    c(0x4011, "NPU_SET_OFM_BASE1", &[f("addr", A, 0, 40, Hex)]),
    c(0x4012, "NPU_SET_OFM_BASE2", &[f("addr", A, 0, 40, Hex)]),
    c(0x4013, "NPU_SET_OFM_BASE3", &[f("addr", A, 0, 40, Hex)]),
    c(0x4014, "NPU_SET_OFM_STRIDE_X", &[f("addr", A, 0, 40, Hex)]),
    c(0x4015, "NPU_SET_OFM_STRIDE_Y", &[f("addr", A, 0, 40, Hex)]),
    c(0x4016, "NPU_SET_OFM_STRIDE_C", &[f("addr", A, 0, 40, Hex)]),
    c(0x4020, "NPU_SET_WEIGHT_BASE", &[f("addr", A, 0, 40, Hex)]),
    c(0x4021, "NPU_SET_WEIGHT_LENGTH", &[f("length", W, 0, 32, Dec)]),
    c(0x4022, "NPU_SET_SCALE_BASE", &[f("addr", A, 0, 40, Hex)]),
    c(0x4023, "NPU_SET_SCALE_LENGTH", &[f("length", W, 0, 20, Dec)]),
    c(0x4024, "NPU_SET_OFM_SCALE", &[f("shift", P, 0, 6, Dec), f("scale", W, 0, 32, Dec)]),
    c(0x4025, "NPU_SET_OPA_SCALE", &[f("shift", P, 0, 6, Dec), f("scale", W, 0, 32, Dec)]),
    c(0x4026, "NPU_SET_OPB_SCALE", &[f("scale", W, 0, 16, Dec)]),
    c(0x4030, "NPU_SET_DMA0_SRC", &[f("addr", A, 0, 40, Hex)]),
    c(0x4031, "NPU_SET_DMA0_DST", &[f("addr", A, 0, 40, Hex)]),
    c(0x4032, "NPU_SET_DMA0_LEN", &[f("addr", A, 0, 40, Hex)]),
    c(0x4033, "NPU_SET_DMA0_SKIP0", &[f("addr", A, 0, 40, Hex)]),
    c(0x4034, "NPU_SET_DMA0_SKIP1", &[f("addr", A, 0, 40, Hex)]),
    c(0x4080, "NPU_SET_IFM2_BASE0", &[f("addr", A, 0, 40, Hex)]),
    c(0x4081, "NPU_SET_IFM2_BASE1", &[f("addr", A, 0, 40, Hex)]),
    c(0x4082, "NPU_SET_IFM2_BASE2", &[f("addr", A, 0, 40, Hex)]),
    c(0x4083, "NPU_SET_IFM2_BASE3", &[f("addr", A, 0, 40, Hex)]),
    c(0x4084, "NPU_SET_IFM2_STRIDE_X", &[f("addr", A, 0, 40, Hex)]),
    c(0x4085, "NPU_SET_IFM2_STRIDE_Y", &[f("addr", A, 0, 40, Hex)]),
    c(0x4086, "NPU_SET_IFM2_STRIDE_C", &[f("addr", A, 0, 40, Hex)]),
    c(0x4090, "NPU_SET_WEIGHT1_BASE", &[f("addr", A, 0, 40, Hex)]),
    c(0x4091, "NPU_SET_WEIGHT1_LENGTH", &[f("length", W, 0, 32, Dec)]),
    c(0x4092, "NPU_SET_SCALE1_BASE", &[f("addr", A, 0, 40, Hex)]),
    c(0x4093, "NPU_SET_SCALE1_LENGTH", &[f("length", W, 0, 20, Dec)]),
];
