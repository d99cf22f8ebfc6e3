//! The IR of one `tfl.unidirectional_sequence_lstm`, written with a builder in front of the op:
//! the state loaded, the time steps in an `scf.for` over tensors (TOSA for the fully connected layers, rescales, products and sums; a
//! `linalg.generic` for TFLite's integer sigmoid and tanh), each step's hidden state written into
//! the output, and the state stored back.
//!
//! The arithmetic is TFLite Micro's LSTM kernel (`lstm_eval.h`), step for step:
//! - each gate: `FC(x_t) + bias` and `FC(h)` (no bias), each rescaled to int16 at 2^-12, summed
//!   with saturation, then sigmoid (the cell gate: its activation) to int16 at 2^-15;
//! - `c = sat(f·c ⟶ cell scale) + sat(i·g ⟶ cell scale)` with saturation, clipped to the
//!   quantized cell clip when there is one;
//! - `h = tanh(c)·o` rescaled to the hidden state's scale and zero point.
//!
//! The nonlinearities are TFLite's table-based int16 `Logistic` and `Tanh` (256 entries of
//! sigmoid(i/24) in 0.16 fixed point, linear interpolation between them). Float LSTMs use the
//! same structure with TOSA's float ops.

use umac_dialects::build::{Attr, Builder, Cmp, Ty, Value, projection};

/// What one LSTM computes, as the pass read it from the op and its attributes.
#[derive(Clone, Debug)]
pub struct Lstm {
    /// Batch, time steps, input features, state features.
    pub batch: i64,
    pub steps: i64,
    pub features: i64,
    pub state: i64,
    /// The input (and output) is `[time, batch, features]` instead of `[batch, time, features]`.
    pub time_major: bool,
    /// The cell gate's activation is tanh (else sigmoid).
    pub cell_tanh: bool,
    /// Integer parameters; `None` for a float LSTM.
    pub quantized: Option<Quantized>,
    /// The float cell clip (0: none).
    pub cell_clip: f32,
    /// The symbols of the hidden and cell state's globals.
    pub globals: [String; 2],
}

/// The integer LSTM's parameters (int8 activations, int8 weights, int32 biases, int16 cell).
#[derive(Clone, Debug)]
pub struct Quantized {
    pub input_zero_point: i64,
    pub hidden_zero_point: i64,
    /// Multiplier and TOSA shift of each gate's input and recurrent fully connected layer, gates
    /// in TFLite's order (input, forget, cell, output).
    pub input_fc: [(i32, i8); 4],
    pub recurrent_fc: [(i32, i8); 4],
    /// Forget gate x cell, input gate x cell gate (both to the cell scale), tanh(cell) x output
    /// gate (to the hidden state).
    pub forget_cell: (i32, i8),
    pub input_cell: (i32, i8),
    pub hidden: (i32, i8),
    /// The cell clip in the cell's scale (0: none).
    pub cell_clip: i64,
    /// log2 of the cell state's scale.
    pub cell_scale_power: i32,
}

/// TFLite's `QuantizeMultiplier` as a TOSA rescale's multiplier and shift (`real = m · 2^-s`);
/// `None` when the shift is out of TOSA's range (a multiplier of 2^29 or more).
pub fn quantize_multiplier(real: f64) -> Option<(i32, i8)> {
    if real == 0.0 {
        return Some((0, 31));
    }
    // frexp: real = q · 2^exp with q in [0.5, 1).
    let mut exp = real.abs().log2().floor() as i32 + 1;
    let mut q = real / 2f64.powi(exp);
    while q.abs() >= 1.0 {
        q /= 2.0;
        exp += 1;
    }
    while q.abs() < 0.5 {
        q *= 2.0;
        exp -= 1;
    }
    let mut fixed = (q * 2f64.powi(31)).round() as i64;
    if fixed == 1 << 31 {
        fixed /= 2;
        exp += 1;
    }
    if exp < -31 {
        return Some((0, 31));
    }
    let shift = 31 - exp;
    (2..=62).contains(&shift).then_some((fixed as i32, shift as i8))
}

/// TFLite's `sigmoid_table_uint16` (tensorflow/lite/kernels/internal/common.h, Apache-2.0):
/// sigmoid(i/24) in 0.16 fixed point, which TFLite's int16 `Logistic` and `Tanh` interpolate
/// (one table for the reader and this pass).
pub use umac_frontend::tflite::SIGMOID_TABLE;

/// The constants of one step that every gate shares: the weights as 1x1 filters, the recurrent
/// layers' zero bias, the zero points of the input, the hidden state and the weights, and
/// TFLite's sigmoid table (integer LSTMs).
struct Shared {
    filters: Vec<Value>,
    zero_bias: Value,
    zero_points: [Value; 3],
    table: Option<Value>,
}

/// TFLite's `ShapedType::kDynamic`: a dynamic offset among a slice's static ones.
const DYNAMIC: i64 = i64::MIN;

impl Lstm {
    fn element(&self) -> Ty {
        if self.quantized.is_some() { Ty::I8 } else { Ty::F32 }
    }

    /// `[batch, 1, 1, n]` tensors: the layout of the state and of the gates (a fully connected
    /// layer is a 1x1 `tosa.conv2d` over `batch` pixels).
    fn row(&self, b: &Builder, n: i64, element: Ty) -> Ty {
        b.tensor(&[self.batch, 1, 1, n], element)
    }

    /// The sequence of `n` features an input or output is.
    fn sequence(&self, b: &Builder, n: i64) -> Ty {
        let (outer, inner) = if self.time_major { (self.steps, self.batch) } else { (self.batch, self.steps) };
        b.tensor(&[outer, inner, n], self.element())
    }

    /// One step's slice of a sequence of `n` features of `element`, and where it starts in the
    /// sequence (`DYNAMIC`: the step).
    fn step_slice(&self, b: &Builder, n: i64, element: Ty) -> (Ty, [i64; 3], [i64; 3]) {
        if self.time_major {
            (b.tensor(&[1, self.batch, n], element), [DYNAMIC, 0, 0], [1, self.batch, n])
        } else {
            (b.tensor(&[self.batch, 1, n], element), [0, DYNAMIC, 0], [self.batch, 1, n])
        }
    }

    /// The element types of the weights, biases and hidden and cell state.
    fn types(&self) -> (Ty, Ty, Ty, Ty) {
        if self.quantized.is_some() { (Ty::I8, Ty::I32, Ty::I8, Ty::I16) } else { (Ty::F32, Ty::F32, Ty::F32, Ty::F32) }
    }

    /// The state's global `k` (0: hidden, 1: cell) with TFLite's initial value, written with `b`
    /// (at the module's top level).
    pub fn write_global(&self, b: &mut Builder, k: usize) {
        let (_, _, hidden, cell) = self.types();
        let ty = self.row(b, self.state, [hidden, cell][k]);
        let init = match (&self.quantized, k) {
            (Some(q), 0) => Attr::Dense(ty, &[q.hidden_zero_point]),
            (Some(_), _) => Attr::Dense(ty, &[0]),
            (None, _) => Attr::Float(ty, 0.0),
        };
        let attributes = [
            ("sym_name", Attr::Str(&self.globals[k])),
            ("sym_visibility", Attr::Str("private")),
            ("is_mutable", Attr::Unit),
            ("type", Attr::Type(ty)),
            ("value", init),
        ];
        b.op("ml_program.global", &[], &[], &attributes);
    }

    /// Writes what replaces the op with `b` (in front of it; its arguments are the op's
    /// operands): the state loaded, the loop over the time steps, the state stored; returns the
    /// output.
    pub fn write(&self, b: &mut Builder) -> Value {
        let (weight, bias, hidden, cell) = self.types();
        let (s, i) = (self.state, self.features);
        let x = b.arg(0);
        let filters = (0..8)
            .map(|k| {
                let n = if k < 4 { i } else { s };
                let shape = b.tosa_shape(&[s, 1, 1, n]);
                let filter = b.tensor(&[s, 1, 1, n], weight);
                b.op1("tosa.reshape", &[b.arg(1 + k), shape], filter, &[])
            })
            .collect();
        let biases = b.tensor(&[s], bias);
        let zero_bias = self.splat(b, biases, 0);
        let (input_zp, hidden_zp) =
            self.quantized.as_ref().map_or((0, 0), |q| (q.input_zero_point, q.hidden_zero_point));
        let zero_points = [(input_zp, self.element()), (hidden_zp, hidden), (0, weight)].map(|(value, element)| {
            let one = b.tensor(&[1], element);
            self.splat(b, one, value)
        });
        let (hidden_row, cell_row) = (self.row(b, s, hidden), self.row(b, s, cell));
        let [h0, c0] = [(0, hidden_row), (1, cell_row)]
            .map(|(k, ty)| b.op1("ml_program.global_load", &[], ty, &[("global", Attr::Symbol(&self.globals[k]))]));
        let output = self.sequence(b, s);
        let out0 = b.op1("tensor.empty", &[], output, &[]);
        let [lower, step, upper] = [0, 1, self.steps].map(|v| b.constant(Ty::Index, v));
        let table = self.quantized.as_ref().map(|_| {
            let values: Vec<i64> = SIGMOID_TABLE.iter().map(|&v| i64::from(v)).collect();
            let ty = b.tensor(&[256], Ty::I32);
            b.op1("arith.constant", &[], ty, &[("value", Attr::Dense(ty, &values))])
        });
        let shared = Shared { filters, zero_bias, zero_points, table };
        let last = b.for_loop([lower, upper, step], &[h0, c0, out0], &[], |b, t, carried| {
            let [h, c, out] = [carried[0], carried[1], carried[2]];
            let (slice, offsets, sizes) = self.step_slice(b, i, self.element());
            let xt = self.extract_slice(b, (x, t), slice, offsets, sizes);
            let shape = b.tosa_shape(&[self.batch, 1, 1, i]);
            let row = self.row(b, i, self.element());
            let x4 = b.op1("tosa.reshape", &[xt, shape], row, &[]);
            let forget = self.gate(b, 1, true, (x4, h), &shared);
            let input = self.gate(b, 0, true, (x4, h), &shared);
            let cell_gate = self.gate(b, 2, !self.cell_tanh, (x4, h), &shared);
            let c_new = self.update_cell(b, (forget, input, cell_gate), c);
            let output_gate = self.gate(b, 3, true, (x4, h), &shared);
            let h_new = self.update_hidden(b, c_new, output_gate, shared.table);
            // Written in place of the carried state, so that the loop keeps one buffer of each.
            let h_kept = b.named_linalg("linalg.copy", [&[h_new], &[h]], &[])[0];
            let c_kept = b.named_linalg("linalg.copy", [&[c_new], &[c]], &[])[0];
            let (slice, offsets, sizes) = self.step_slice(b, s, hidden);
            let shape = b.tosa_shape(&sizes);
            let h3 = b.op1("tosa.reshape", &[h_new, shape], slice, &[]);
            let out = self.insert_slice(b, h3, (out, t), offsets, sizes);
            vec![h_kept, c_kept, out]
        });
        for (state, global) in last.iter().zip(&self.globals) {
            b.op("ml_program.global_store", &[*state], &[], &[("global", Attr::Symbol(global))]);
        }
        last[2]
    }

    /// A constant tensor of `ty` filled with `value` (an integer, or as a float for a float LSTM).
    fn splat(&self, b: &mut Builder, ty: Ty, value: i64) -> Value {
        match b.element_of(ty) {
            Ty::F32 => b.op1("tosa.const", &[], ty, &[("values", Attr::Float(ty, value as f64))]),
            _ => b.tosa_const(ty, &[value]),
        }
    }

    /// `tensor.extract_slice` of `source` at `offsets` (`DYNAMIC`: `step`) of `sizes`, unit strides.
    fn extract_slice(
        &self,
        b: &mut Builder,
        (source, step): (Value, Value),
        ty: Ty,
        offsets: [i64; 3],
        sizes: [i64; 3],
    ) -> Value {
        let segments = [1, 1, 0, 0];
        b.op1("tensor.extract_slice", &[source, step], ty, &slice_attributes(&offsets, &sizes, &segments))
    }

    /// `tensor.insert_slice` of `source` into `dest` at `offsets` (`DYNAMIC`: `step`) of `sizes`.
    fn insert_slice(
        &self,
        b: &mut Builder,
        source: Value,
        (dest, step): (Value, Value),
        offsets: [i64; 3],
        sizes: [i64; 3],
    ) -> Value {
        let segments = [1, 1, 1, 0, 0];
        let ty = b.type_of(dest);
        b.op1("tensor.insert_slice", &[source, dest, step], ty, &slice_attributes(&offsets, &sizes, &segments))
    }

    /// Gate `k` (TFLite's order: input, forget, cell, output) of the step: the activation of
    /// `FC(x_t) + bias + FC(h)`.
    fn gate(&self, b: &mut Builder, k: usize, sigmoid: bool, (x4, h): (Value, Value), shared: &Shared) -> Value {
        let cell = self.types().3;
        let acc = if self.quantized.is_some() { Ty::I32 } else { Ty::F32 };
        let result = self.row(b, self.state, acc);
        let attributes = [
            ("acc_type", Attr::Type(acc)),
            ("dilation", Attr::I64Array(&[1, 1])),
            ("pad", Attr::I64Array(&[0, 0, 0, 0])),
            ("stride", Attr::I64Array(&[1, 1])),
        ];
        let (weight_zp, bias) = (shared.zero_points[2], b.arg(12 + k));
        let mut conv = |input: Value, filter: Value, bias: Value, zp: Value| {
            b.op1("tosa.conv2d", &[input, filter, bias, zp, weight_zp], result, &attributes)
        };
        let from_x = conv(x4, shared.filters[k], bias, shared.zero_points[0]);
        let from_h = conv(h, shared.filters[4 + k], shared.zero_bias, shared.zero_points[1]);
        let Some(q) = &self.quantized else {
            let sum = b.op1("tosa.add", &[from_x, from_h], result, &[]);
            let op = if sigmoid { "tosa.sigmoid" } else { "tosa.tanh" };
            return b.op1(op, &[sum], result, &[]);
        };
        let gx = self.rescale(b, from_x, q.input_fc[k], cell, 0);
        let gh = self.rescale(b, from_h, q.recurrent_fc[k], cell, 0);
        let sum = self.saturating_add(b, gx, gh);
        // Sigmoid: TFLite's Logistic(0, 0); tanh: its Tanh at a 2^-12 input.
        let table = shared.table.expect("an integer LSTM has the sigmoid table");
        if sigmoid { self.sigmoid(b, sum, table) } else { self.tanh(b, sum, -12, table) }
    }

    /// `c = f·c + i·g`, clipped.
    fn update_cell(&self, b: &mut Builder, (forget, input, cell_gate): (Value, Value, Value), c: Value) -> Value {
        let row = self.row(b, self.state, self.types().3);
        let Some(q) = &self.quantized else {
            let shift = self.no_shift(b);
            let fc = b.op1("tosa.mul", &[forget, c, shift], row, &[]);
            let ig = b.op1("tosa.mul", &[input, cell_gate, shift], row, &[]);
            let sum = b.op1("tosa.add", &[fc, ig], row, &[]);
            if self.cell_clip > 0.0 {
                let clip = f64::from(self.cell_clip);
                return clamp(b, sum, Attr::Float(Ty::F32, clip), Attr::Float(Ty::F32, -clip));
            }
            return sum;
        };
        let fc = self.product(b, forget, c, q.forget_cell, Ty::I16, 0);
        let ig = self.product(b, input, cell_gate, q.input_cell, Ty::I16, 0);
        let sum = self.saturating_add(b, fc, ig);
        if q.cell_clip > 0 {
            return clamp(b, sum, Attr::Int(Ty::I16, q.cell_clip), Attr::Int(Ty::I16, -q.cell_clip));
        }
        sum
    }

    /// `h = tanh(c)·o`.
    fn update_hidden(&self, b: &mut Builder, cell: Value, output: Value, table: Option<Value>) -> Value {
        let Some((q, table)) = self.quantized.as_ref().zip(table) else {
            let row = self.row(b, self.state, Ty::F32);
            let tanh = b.op1("tosa.tanh", &[cell], row, &[]);
            let shift = self.no_shift(b);
            return b.op1("tosa.mul", &[tanh, output, shift], row, &[]);
        };
        let tanh = self.tanh(b, cell, q.cell_scale_power, table);
        self.product(b, tanh, output, q.hidden, Ty::I8, q.hidden_zero_point)
    }

    /// The shift operand of a `tosa.mul` that shifts nothing.
    fn no_shift(&self, b: &mut Builder) -> Value {
        let ty = b.tensor(&[1], Ty::I8);
        b.tosa_const(ty, &[0])
    }

    /// A TOSA rescale of an int32 `[batch, 1, 1, state]` tensor to `element` (DOUBLE_ROUND, as
    /// TFLite's `MultiplyByQuantizedMultiplier`), which saturates.
    fn rescale(
        &self,
        b: &mut Builder,
        value: Value,
        (multiplier, shift): (i32, i8),
        element: Ty,
        zero_point: i64,
    ) -> Value {
        let constants =
            [(Ty::I32, i64::from(multiplier)), (Ty::I8, i64::from(shift)), (Ty::I32, 0), (element, zero_point)];
        let [m, s, izp, ozp] = constants.map(|(ty, value)| {
            let one = b.tensor(&[1], ty);
            b.tosa_const(one, &[value])
        });
        let attributes = [
            ("input_unsigned", Attr::Bool(false)),
            ("output_unsigned", Attr::Bool(false)),
            ("per_channel", Attr::Bool(false)),
            ("rounding_mode", Attr::Parsed("#tosa.rounding_mode<DOUBLE_ROUND>")),
            ("scale32", Attr::Bool(true)),
        ];
        let result = self.row(b, self.state, element);
        b.op1("tosa.rescale", &[value, m, s, izp, ozp], result, &attributes)
    }

    /// TFLite's `MulElementwise` of two int16 tensors: the int32 product rescaled to `element`.
    fn product(&self, b: &mut Builder, x: Value, y: Value, scale: (i32, i8), element: Ty, zero_point: i64) -> Value {
        let r32 = self.row(b, self.state, Ty::I32);
        let [x32, y32] = [x, y].map(|v| b.op1("tosa.cast", &[v], r32, &[]));
        let shift = self.no_shift(b);
        let p = b.op1("tosa.mul", &[x32, y32, shift], r32, &[]);
        self.rescale(b, p, scale, element, zero_point)
    }

    /// The int16 sum of two int16 tensors, saturated.
    fn saturating_add(&self, b: &mut Builder, x: Value, y: Value) -> Value {
        let (r16, r32) = (self.row(b, self.state, Ty::I16), self.row(b, self.state, Ty::I32));
        let [x32, y32] = [x, y].map(|v| b.op1("tosa.cast", &[v], r32, &[]));
        let sum = b.op1("tosa.add", &[x32, y32], r32, &[]);
        let clamped = clamp(b, sum, Attr::Int(Ty::I32, 32767), Attr::Int(Ty::I32, -32768));
        b.op1("tosa.cast", &[clamped], r16, &[])
    }

    /// An elementwise int16 → int16 `linalg.generic` whose body `body` writes (from the input
    /// widened to i32 to the i32 it returns).
    fn elementwise(&self, b: &mut Builder, x: Value, body: impl FnOnce(&mut Builder, Value) -> Value) -> Value {
        let row = self.row(b, self.state, Ty::I16);
        let empty = b.op1("tensor.empty", &[], row, &[]);
        let identity = projection(4, &[0, 1, 2, 3]);
        let maps = [Attr::Map(4, &identity), Attr::Map(4, &identity)];
        b.generic([&[x], &[empty]], &maps, &["parallel"; 4], &[], |b, elements| {
            let a = b.op1("arith.extsi", &[elements[0]], Ty::I32, &[]);
            let y = body(b, a);
            vec![b.op1("arith.trunci", &[y], Ty::I16, &[])]
        })[0]
    }

    /// TFLite's int16 `Logistic(0, 0)`: `v = 3x`, interpolated in the table at 9 fractional
    /// bits.
    fn sigmoid(&self, b: &mut Builder, x: Value, table: Value) -> Value {
        self.elementwise(b, x, |b, a| {
            let three = b.constant(Ty::I32, 3);
            let v = b.muli(a, three);
            let Lookup { magnitude, nonneg, c511 } = lookup(b, table, v, 9, 0x7FFF << 10);
            let half = b.constant(Ty::I32, 512);
            let pos = b.addi(magnitude, half);
            let top = b.constant(Ty::I32, 1 << 25);
            let neg0 = b.binary("arith.subi", top, magnitude);
            let neg = b.addi(neg0, c511);
            let sel = b.select(nonneg, pos, neg);
            let ten = b.constant(Ty::I32, 10);
            b.binary("arith.shrui", sel, ten)
        })
    }

    /// TFLite's int16 `Tanh` of a tensor in `2^power` units (`lstm_internal::Tanh`): `v = 3x`
    /// shifted to 2^-12 units, interpolated in the table at 8 fractional bits.
    fn tanh(&self, b: &mut Builder, x: Value, power: i32, table: Value) -> Value {
        let left = 15 + power - 3;
        let (multiplier, right) = if left < 0 { (3, -left) } else { (3 << left, 0) };
        self.elementwise(b, x, |b, a| {
            let m = b.constant(Ty::I32, multiplier);
            let mut v = b.muli(a, m);
            if right > 0 {
                let round = b.constant(Ty::I32, 1 << (right - 1));
                let rounded = b.addi(v, round);
                let shift = b.constant(Ty::I32, i64::from(right));
                v = b.binary("arith.shrsi", rounded, shift);
            }
            let Lookup { magnitude, nonneg, .. } = lookup(b, table, v, 8, 0xFFFF << 8);
            let off = b.constant(Ty::I32, 1 << 23);
            let pos = b.binary("arith.subi", magnitude, off);
            let negr = b.binary("arith.subi", off, magnitude);
            let c127 = b.constant(Ty::I32, 127);
            let neg = b.addi(negr, c127);
            let c128 = b.constant(Ty::I32, 128);
            let posr = b.addi(pos, c128);
            let sel = b.select(nonneg, posr, neg);
            let eight = b.constant(Ty::I32, 8);
            b.binary("arith.shrsi", sel, eight)
        })
    }
}

/// The attributes of a slice of a rank-3 tensor at `offsets` of `sizes` with unit strides
/// (`segments`: how many operands each operand group has).
fn slice_attributes<'a>(
    offsets: &'a [i64; 3],
    sizes: &'a [i64; 3],
    segments: &'a [i32],
) -> [(&'static str, Attr<'a>); 4] {
    [
        ("static_offsets", Attr::I64Array(offsets)),
        ("static_sizes", Attr::I64Array(sizes)),
        ("static_strides", Attr::I64Array(&[1, 1, 1])),
        ("operandSegmentSizes", Attr::I32Array(segments)),
    ]
}

/// `tosa.clamp` of `x` to `[min, max]`.
fn clamp(b: &mut Builder, x: Value, max: Attr, min: Attr) -> Value {
    let ty = b.type_of(x);
    b.op1("tosa.clamp", &[x], ty, &[("max_val", max), ("min_val", min)])
}

/// What TFLite's table-based sigmoid and tanh share ([`lookup`]).
struct Lookup {
    /// The interpolated (or saturated) magnitude.
    magnitude: Value,
    /// Whether `v >= 0`.
    nonneg: Value,
    /// The constant 511.
    c511: Value,
}

/// The shared part of TFLite's table-based sigmoid and tanh, from `v` (the scaled input, an
/// i32): `|v|` split into a table index and `fraction` bits, `(T[k] << fraction) + frac ·
/// (T[k+1] - T[k])`, or `saturated` from index 255 up.
fn lookup(b: &mut Builder, table: Value, v: Value, fraction: u32, saturated: i64) -> Lookup {
    let int = |b: &mut Builder, value: i64| b.constant(Ty::I32, value);
    let zero = int(b, 0);
    let nonneg = b.cmpi(Cmp::Sge, v, zero);
    let negv = b.binary("arith.subi", zero, v);
    let abs = b.select(nonneg, v, negv);
    let fb = int(b, i64::from(fraction));
    let uh = b.binary("arith.shrui", abs, fb);
    let mask = int(b, (1 << fraction) - 1);
    let ut = b.andi(abs, mask);
    let c254 = int(b, 254);
    let k = b.binary("arith.minui", uh, c254);
    let c1 = int(b, 1);
    let k1 = b.addi(k, c1);
    let [ki, k1i] = [k, k1].map(|i| b.index_cast(i, Ty::Index));
    let [ua, ub] = [ki, k1i].map(|i| b.op1("tensor.extract", &[table, i], Ty::I32, &[]));
    let d = b.binary("arith.subi", ub, ua);
    let td = b.muli(ut, d);
    let base = b.binary("arith.shli", ua, fb);
    let interp = b.addi(base, td);
    let c255 = int(b, 255);
    let over = b.cmpi(Cmp::Uge, uh, c255);
    let satv = int(b, saturated);
    let magnitude = b.select(over, satv, interp);
    let c511 = int(b, 511);
    Lookup { magnitude, nonneg, c511 }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sigmoid_at_one_24th_steps() {
        // Each entry is 65536·sigmoid(i/24) rounded, or one above (TFLite's tuning), rising,
        // saturated at the end.
        for (i, &entry) in SIGMOID_TABLE.iter().enumerate() {
            let exact = (65536.0 / (1.0 + (-(i as f64) / 24.0).exp())).round().min(65535.0) as u16;
            assert!(entry == exact || entry == exact + 1, "entry {i}: {entry} vs {exact}");
        }
        assert!(SIGMOID_TABLE.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((SIGMOID_TABLE[0], SIGMOID_TABLE[1], SIGMOID_TABLE[255]), (32768, 33451, 65535));
    }

    #[test]
    fn multipliers_are_tflites() {
        // 2^-15: q = 0.5 · 2^31, exponent -14 → TOSA shift 45.
        assert_eq!(quantize_multiplier(2f64.powi(-15)), Some((1 << 30, 45)));
        // 0.75 = 0.75 · 2^0 → round(0.75 · 2^31), shift 31.
        assert_eq!(quantize_multiplier(0.75), Some((1_610_612_736, 31)));
        // A value rounding up to 2^31 moves to the next exponent.
        assert_eq!(quantize_multiplier(1.0 - 1e-12), Some((1 << 30, 30)));
        assert_eq!(quantize_multiplier(0.0), Some((0, 31)));
        // Below 2^-31 it flushes to zero, as TFLite does.
        assert_eq!(quantize_multiplier(1e-12), Some((0, 31)));
        // 2^30 needs a shift of 0: out of TOSA's range.
        assert_eq!(quantize_multiplier(2f64.powi(30)), None);
    }
}
