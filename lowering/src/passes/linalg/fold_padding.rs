//! `umac-fold-padding`: a convolution, depthwise convolution or pooling over a `tensor.pad`
//! reads the unpadded input directly, with bounds checks, so no padded copy of the input (not
//! even a per-tile window) is ever materialized. TFLite Micro's kernels work the same way.
//!
//! The named op becomes a `linalg.generic` with the same iteration space and the same
//! arithmetic (so results are bit-identical); the input is read with `tensor.extract` at
//! `(n, oh·s + kh·d - pad, ow·s + kw·d - pad, c)`, and positions outside the input read the pad
//! value instead. The generic keeps the named op's name in `umac.op`.
//! ```mlir
//! %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] { tensor.yield %c-128_i8 }
//! %y = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%p, %w, %izp, %wzp) outs(%init)
//! // becomes
//! %y = linalg.generic {umac.op = "depthwise_conv_2d_nhwc_hwcm_q", ...} ins(%w) outs(%init) {
//!   ... %in = arith.andi (unsigned bounds checks of ih, iw) ... %v = tensor.extract %x[...] ...
//!   %xv = arith.select %in, %v, %c-128_i8 ... }
//! ```
//! Supported: `conv_2d_nhwc_fhwc[_q]`, `depthwise_conv_2d_nhwc_hwcm[_q]`, `pooling_nhwc_sum`,
//! `pooling_nhwc_max` on integer and float types with static shapes, padding on H and W only,
//! and a constant pad value. Anything else is left as it is (still correct, with the padded copy).

use crate::{
    Error,
    options::{OptionKind, OptionSpec, OptionValues},
    pass::{UmacPass, boxed, replace_with},
    registry::{PassInfo, PassKind},
    windows::{Bounds, Window, padding, pair, width},
};
use melior::ir::{OperationRef, TypeLike, ValueLike, operation::OperationLike};
use mlir_sys::*;
use umac_dialects::{
    build::{Attr, Builder, Value, projection},
    ir::{attribute, collect, element_type, op_name, static_tensor_shape},
};

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    name: "umac-fold-padding",
    summary: "Read a padded convolution/pooling input in place with bounds checks instead of materializing tensor.pad",
    anchor: "any",
    options: &[OptionSpec {
        name: "wide-interiors",
        kind: OptionKind::Bool,
        default: "true",
        help: "record the interior of a convolution over 16 or more input channels too (its dot products run on vectors or the DSP extension)",
    }],
    kind: PassKind::Pass(|options: &OptionValues| {
        boxed(FoldPadding { wide_interiors: options.bool("wide-interiors") })
    }),
};

struct FoldPadding {
    /// Whether a convolution over 16 or more input channels records its interior.
    wide_interiors: bool,
}

/// What a supported op computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Conv { quantized: bool },
    Depthwise { quantized: bool },
    PoolSum,
    PoolMax,
}

fn kind_of(name: &str) -> Option<Kind> {
    Some(match name {
        "linalg.conv_2d_nhwc_fhwc" => Kind::Conv { quantized: false },
        "linalg.conv_2d_nhwc_fhwc_q" => Kind::Conv { quantized: true },
        "linalg.depthwise_conv_2d_nhwc_hwcm" => Kind::Depthwise { quantized: false },
        "linalg.depthwise_conv_2d_nhwc_hwcm_q" => Kind::Depthwise { quantized: true },
        "linalg.pooling_nhwc_sum" => Kind::PoolSum,
        "linalg.pooling_nhwc_max" => Kind::PoolMax,
        _ => return None,
    })
}

impl UmacPass for FoldPadding {
    fn run(&mut self, operation: OperationRef) -> Result<(), Error> {
        for raw in collect(operation, |op| kind_of(&op_name(op)).is_some()) {
            // SAFETY: each op is alive until it is replaced, one at a time; the pad it reads
            // stays (other users may need it) and is erased by canonicalization when dead.
            let op = unsafe { OperationRef::from_raw(raw) };
            let Some(kind) = kind_of(&op_name(&op)) else { continue };
            // SAFETY: as above.
            let Some(fold) = (unsafe { Fold::of(&op, kind, self.wide_interiors) }) else { continue };
            replace_with(op, |b| vec![fold.write(b)])?;
        }
        Ok(())
    }
}

/// Static shape and element type of a ranked tensor.
fn shape_of(ty: MlirType) -> Option<(Vec<i64>, MlirType)> {
    Some((static_tensor_shape(ty)?, element_type(ty)))
}

/// A foldable op: what its `linalg.generic` reads and computes.
struct Fold {
    kind: Kind,
    /// The unpadded input, the second operand (weights or the pooling window), the
    /// accumulator, and the zero points of a quantized convolution.
    source: MlirValue,
    second: MlirValue,
    init: MlirValue,
    /// (each with how its width compares with the accumulator's).
    zero_points: Option<[(MlirValue, std::cmp::Ordering); 2]>,
    window: Window,
    /// The input's height and width, and the pad value.
    size: [i64; 2],
    pad: MlirAttribute,
    float: bool,
    /// The loops, the window's loop positions (kh, kw), the channel loop, the second operand's
    /// and the output's indexing.
    loops: usize,
    kh: usize,
    kw: usize,
    channel: usize,
    w_map: Vec<usize>,
    y_map: Vec<usize>,
    /// The named op's name without `linalg.`, and the output rows and columns whose window lies
    /// inside the input (`umac.interior`), when recorded.
    short: String,
    interior: Option<[i64; 4]>,
}

impl Fold {
    /// The fold of `op`, or `None` when `op` is not a foldable case.
    ///
    /// # Safety
    /// `op` must be live.
    unsafe fn of(op: &OperationRef, kind: Kind, wide_interiors: bool) -> Option<Fold> {
        unsafe {
            let raw = op.to_raw();
            let input = mlirOperationGetOperand(raw, 0);
            if !mlirValueIsAOpResult(input) {
                return None;
            }
            let (source, [top, left], pad) = padding(mlirOpResultGetOwner(input))?;
            let (x_dims, x_element) = shape_of(mlirValueGetType(source))?;
            let result = op.result(0).ok()?;
            let (y_dims, y_element) = shape_of(result.r#type().to_raw())?;
            let integer = mlirTypeIsAInteger(x_element) && mlirTypeIsAInteger(y_element);
            let float = mlirTypeIsAFloat(x_element) && mlirTypeIsAFloat(y_element);
            let quantized = matches!(kind, Kind::Conv { quantized: true } | Kind::Depthwise { quantized: true });
            if !(integer || float && !quantized) || x_dims.len() != 4 {
                return None;
            }
            let strides = pair(attribute(raw, "strides")?)?;
            let dilations = pair(attribute(raw, "dilations")?)?;
            if strides.iter().chain(&dilations).any(|v| *v < 1) {
                return None;
            }
            let second = mlirOperationGetOperand(raw, 1);
            let (w_dims, _) = shape_of(mlirValueGetType(second))?;
            let init = mlirOperationGetOperand(raw, mlirOperationGetNumOperands(raw) - 1);
            let (loops, kh, kw, channel, w_map, y_map) = match kind {
                Kind::Conv { .. } => (7, 4, 5, 6, vec![3, 4, 5, 6], vec![0, 1, 2, 3]),
                Kind::Depthwise { .. } => (7, 5, 6, 3, vec![5, 6, 3, 4], vec![0, 1, 2, 3, 4]),
                Kind::PoolSum | Kind::PoolMax => (6, 4, 5, 3, vec![4, 5], vec![0, 1, 2, 3]),
            };
            let zero_points = quantized.then(|| {
                [2, 3].map(|i| {
                    let point = mlirOperationGetOperand(raw, i);
                    (point, width(mlirValueGetType(point)).cmp(&width(y_element)))
                })
            });
            // The output rows and columns whose whole window lies inside the input: there the
            // bounds checks always pass (`umac-split-borders` uses this).
            let (window_h, window_w) = match kind {
                Kind::Conv { .. } => (w_dims[1], w_dims[2]),
                Kind::Depthwise { .. } | Kind::PoolSum | Kind::PoolMax => (w_dims[0], w_dims[1]),
            };
            let range = |top: i64, size: i64, window: i64, stride: i64, dilation: i64, out: i64| {
                let lo = (top + stride - 1) / stride;
                let hi = ((size - 1 + top - (window - 1) * dilation).div_euclid(stride) + 1).min(out);
                (lo.min(out), hi.max(0))
            };
            let (oh_lo, oh_hi) = range(top, x_dims[1], window_h, strides[0], dilations[0], y_dims[1]);
            let (ow_lo, ow_hi) = range(left, x_dims[2], window_w, strides[1], dilations[1], y_dims[2]);
            // Every kind records its interior, also a convolution over 16 or more input
            // channels, whose innermost loop reads them contiguously, where its dot products run
            // on vectors or the DSP extension (umac-vectorize-dot-products): without the split
            // every one of them checks the bounds (IC, whose convolutions have 16 to 64
            // channels, takes 9.66M instructions on Cortex-M55 and 40.3M on Cortex-M4 unsplit,
            // 7.21M and 31.8M split). Without them (`wide_interiors` false: RV32IM, Cortex-M3),
            // LLVM unswitches the scalar loop on the invariant check, and the split costs more
            // than it saves (IC on RV32IM: 69.7M instructions unsplit, 74.1M split).
            let wide = matches!(kind, Kind::Conv { .. }) && x_dims[3] >= 16;
            let interior =
                ((wide_interiors || !wide) && oh_lo < oh_hi && ow_lo < ow_hi).then_some([oh_lo, oh_hi, ow_lo, ow_hi]);
            Some(Fold {
                kind,
                source,
                second,
                init,
                zero_points,
                window: Window { strides, dilations, origin: [top, left] },
                size: [x_dims[1], x_dims[2]],
                pad,
                float,
                loops,
                kh,
                kw,
                channel,
                w_map,
                y_map,
                short: op_name(op).trim_start_matches("linalg.").to_string(),
                interior,
            })
        }
    }

    /// Writes the `linalg.generic` (and the values it reads) in front of the named op; returns
    /// its result.
    fn write(&self, b: &mut Builder) -> Value {
        let [x, w, init] = [self.source, self.second, self.init].map(|v| b.existing(v));
        let ye = b.element_of(b.type_of(init));
        let [zero, height, width] = Bounds::indices(b, self.size);
        let zero_acc = if self.float {
            b.op1("arith.constant", &[], ye, &[("value", Attr::Float(ye, 0.0))])
        } else {
            b.constant(ye, 0)
        };
        let bounds = Bounds { zero, height, width, pad: Bounds::pad(b, self.pad) };
        // The zero points in the accumulator's type, as the named op casts them.
        let zero_points = self.zero_points.map(|points| {
            points.map(|(point, width)| {
                let point = b.existing(point);
                match width {
                    std::cmp::Ordering::Equal => b.addi(point, zero_acc),
                    std::cmp::Ordering::Less => b.op1("arith.extsi", &[point], ye, &[]),
                    std::cmp::Ordering::Greater => b.op1("arith.trunci", &[point], ye, &[]),
                }
            })
        });
        // The arithmetic of the named op's body: integers sign-extended to the accumulator's
        // type, floats extended (the same operations on the same values: bit-identical
        // results).
        let float = self.float;
        let (add, mul, max, extend) = if float {
            ("arith.addf", "arith.mulf", "arith.maximumf", "arith.extf")
        } else {
            ("arith.addi", "arith.muli", "arith.maxsi", "arith.extsi")
        };
        // A value in the accumulator's type (a float of that type is used as it is: no
        // identity arithmetic, as -0.0 + 0.0 is +0.0).
        let widen = |b: &mut Builder, value: Value| {
            if b.type_of(value) != ye {
                b.op1(extend, &[value], ye, &[])
            } else if float {
                value
            } else {
                b.addi(value, zero_acc)
            }
        };
        let parallel = self.y_map.len();
        let iterators: Vec<&str> =
            (0..self.loops).map(|d| if d < parallel { "parallel" } else { "reduction" }).collect();
        let maps = [
            Attr::Map(self.loops, &projection(self.loops, &self.w_map)),
            Attr::Map(self.loops, &projection(self.loops, &self.y_map)),
        ];
        let mut attributes = vec![("umac.op", Attr::Str(&self.short))];
        if let Some(interior) = &self.interior {
            attributes.push(("umac.interior", Attr::I64Array(interior)));
        }
        let kind = self.kind;
        b.generic([&[w], &[init]], &maps, &iterators, &attributes, |b, args| {
            let (wv, acc) = (args[0], args[1]);
            let loops = [0, 1, 2, self.kh, self.kw, self.channel].map(|d| b.linalg_index(d as i64));
            let xv = self.window.read(b, x, loops, Some(&bounds));
            let xw = widen(b, xv);
            let result = match kind {
                Kind::Conv { .. } | Kind::Depthwise { .. } => {
                    let ww = widen(b, wv);
                    let product = match zero_points {
                        Some([izp, wzp]) => {
                            let xs = b.op1("arith.subi", &[xw, izp], ye, &[]);
                            let ws = b.op1("arith.subi", &[ww, wzp], ye, &[]);
                            b.muli(xs, ws)
                        }
                        None => b.op1(mul, &[xw, ww], ye, &[]),
                    };
                    b.op1(add, &[acc, product], ye, &[])
                }
                Kind::PoolSum => b.op1(add, &[acc, xw], ye, &[]),
                Kind::PoolMax => b.op1(max, &[acc, xw], ye, &[]),
            };
            vec![result]
        })[0]
    }
}
