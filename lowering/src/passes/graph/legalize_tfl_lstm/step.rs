//! The IR of one `tfl.unidirectional_sequence_lstm`: a helper function (for
//! [`umac_dialects::ir::splice_function`]) whose body loads the state, runs the time steps in an `scf.for`
//! over tensors (TOSA for the fully connected layers, rescales, products and sums; a
//! `linalg.generic` for TFLite's integer sigmoid and tanh), writes each step's hidden state into
//! the output, and stores the state back.
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

use std::fmt::Write as _;

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

/// SSA names and text of a function body under construction.
struct Body {
    text: String,
    next: usize,
}

impl Body {
    fn value(&mut self, op: &str) -> String {
        let name = format!("%v{}", self.next);
        self.next += 1;
        let _ = writeln!(self.text, "    {name} = {op}");
        name
    }
}

impl Lstm {
    fn element(&self) -> &'static str {
        if self.quantized.is_some() { "i8" } else { "f32" }
    }

    /// `[batch, 1, 1, n]` tensors: the layout of the state and of the gates (a fully connected
    /// layer is a 1x1 `tosa.conv2d` over `batch` pixels).
    fn row(&self, n: i64, element: &str) -> String {
        format!("tensor<{}x1x1x{n}x{element}>", self.batch)
    }

    fn sequence(&self, n: i64) -> String {
        let (a, b) = if self.time_major { (self.steps, self.batch) } else { (self.batch, self.steps) };
        format!("tensor<{a}x{b}x{n}x{}>", self.element())
    }

    /// The element types of the weights, biases and hidden and cell state.
    fn types(&self) -> (&'static str, &'static str, &'static str, &'static str) {
        if self.quantized.is_some() { ("i8", "i32", "i8", "i16") } else { ("f32", "f32", "f32", "f32") }
    }

    /// The helper `(x, w[8], b[4]) -> y` replacing the op; its arguments are the op's operands 0-8
    /// and 12-15.
    pub fn helper(&self) -> String {
        let (weight, bias, hidden, cell) = self.types();
        let (s, i) = (self.state, self.features);
        let mut b = Body { text: String::new(), next: 0 };
        // Weights as 1x1 filters, biases, the recurrent layers' zero bias, zero points.
        let w: Vec<String> = (0..8)
            .map(|k| {
                let n = if k < 4 { i } else { s };
                let shape = b.value(&format!("tosa.const_shape {{values = dense<[{s}, 1, 1, {n}]> : tensor<4xindex>}} : () -> !tosa.shape<4>"));
                b.value(&format!(
                    "tosa.reshape %w{k}, {shape} : (tensor<{s}x{n}x{weight}>, !tosa.shape<4>) -> tensor<{s}x1x1x{n}x{weight}>"
                ))
            })
            .collect();
        let zero = if bias == "f32" { "0.0" } else { "0" };
        let zero_bias = b.value(&format!(
            "\"tosa.const\"() <{{values = dense<{zero}> : tensor<{s}x{bias}>}}> : () -> tensor<{s}x{bias}>"
        ));
        let (xzp, hzp, wzp) = match &self.quantized {
            Some(q) => (q.input_zero_point, q.hidden_zero_point, 0),
            None => (0, 0, 0),
        };
        let zp = |b: &mut Body, v: i64, e: &str| {
            let literal = if e == "f32" { format!("{v}.0") } else { v.to_string() };
            b.value(&format!("\"tosa.const\"() <{{values = dense<{literal}> : tensor<1x{e}>}}> : () -> tensor<1x{e}>"))
        };
        let zps = [zp(&mut b, xzp, self.element()), zp(&mut b, hzp, hidden), zp(&mut b, wzp, weight)];
        let (hidden_row, cell_row) = (self.row(s, hidden), self.row(s, cell));
        let h0 = b.value(&format!("ml_program.global_load @{} : {hidden_row}", self.globals[0]));
        let c0 = b.value(&format!("ml_program.global_load @{} : {cell_row}", self.globals[1]));
        let out0 = b.value(&format!("tensor.empty() : {}", self.sequence(s)));
        let (lo, one, steps) = (
            b.value("arith.constant 0 : index"),
            b.value("arith.constant 1 : index"),
            b.value(&format!("arith.constant {} : index", self.steps)),
        );
        let table = self.quantized.as_ref().map(|_| {
            let values: Vec<String> = SIGMOID_TABLE.iter().map(u16::to_string).collect();
            b.value(&format!("arith.constant dense<[{}]> : tensor<256xi32>", values.join(", ")))
        });
        let _ = writeln!(
            b.text,
            "    %r:3 = scf.for %t = {lo} to {steps} step {one} iter_args(%h = {h0}, %c = {c0}, %out = {out0}) -> ({hidden_row}, {cell_row}, {}) {{",
            self.sequence(s)
        );
        // x_t as [batch, 1, 1, features].
        let (offsets, sizes) = if self.time_major {
            ("[%t, 0, 0]".to_string(), format!("[1, {}, {i}]", self.batch))
        } else {
            ("[0, %t, 0]".to_string(), format!("[{}, 1, {i}]", self.batch))
        };
        let slice_type = |n: i64, e: &str| {
            if self.time_major {
                format!("tensor<1x{}x{n}x{e}>", self.batch)
            } else {
                format!("tensor<{}x1x{n}x{e}>", self.batch)
            }
        };
        let xt = b.value(&format!(
            "tensor.extract_slice %x{offsets} {sizes} [1, 1, 1] : {} to {}",
            self.sequence(i),
            slice_type(i, self.element())
        ));
        let shape4 = b.value(&format!(
            "tosa.const_shape {{values = dense<[{}, 1, 1, {i}]> : tensor<4xindex>}} : () -> !tosa.shape<4>",
            self.batch
        ));
        let x4 = b.value(&format!(
            "tosa.reshape {xt}, {shape4} : ({}, !tosa.shape<4>) -> {}",
            slice_type(i, self.element()),
            self.row(i, self.element())
        ));
        let gate = |b: &mut Body, k: usize, sigmoid: bool| {
            self.gate(b, k, sigmoid, (&x4, &w, &zero_bias, &zps, table.as_deref()))
        };
        let forget = gate(&mut b, 1, true);
        let input = gate(&mut b, 0, true);
        let cell_gate = gate(&mut b, 2, !self.cell_tanh);
        let c_new = self.update_cell(&mut b, (&forget, &input, &cell_gate));
        let output = gate(&mut b, 3, true);
        let h_new = self.update_hidden(&mut b, &c_new, &output, table.as_deref());
        // Written in place of the carried state, so that the loop keeps one buffer of each.
        let h_kept =
            b.value(&format!("linalg.copy ins({h_new} : {hidden_row}) outs(%h : {hidden_row}) -> {hidden_row}"));
        let c_kept = b.value(&format!("linalg.copy ins({c_new} : {cell_row}) outs(%c : {cell_row}) -> {cell_row}"));
        let out_shape = b.value(&format!(
            "tosa.const_shape {{values = dense<[{}]> : tensor<3xindex>}} : () -> !tosa.shape<3>",
            if self.time_major { format!("1, {}, {s}", self.batch) } else { format!("{}, 1, {s}", self.batch) }
        ));
        let h3 = b.value(&format!(
            "tosa.reshape {h_new}, {out_shape} : ({hidden_row}, !tosa.shape<3>) -> {}",
            slice_type(s, hidden)
        ));
        let sizes =
            if self.time_major { format!("[1, {}, {s}]", self.batch) } else { format!("[{}, 1, {s}]", self.batch) };
        let out = b.value(&format!(
            "tensor.insert_slice {h3} into %out{offsets} {sizes} [1, 1, 1] : {} into {}",
            slice_type(s, hidden),
            self.sequence(s)
        ));
        let _ = writeln!(
            b.text,
            "      scf.yield {h_kept}, {c_kept}, {out} : {hidden_row}, {cell_row}, {}\n    }}",
            self.sequence(s)
        );
        let _ = writeln!(b.text, "    ml_program.global_store @{} = %r#0 : {hidden_row}", self.globals[0]);
        let _ = writeln!(b.text, "    ml_program.global_store @{} = %r#1 : {cell_row}", self.globals[1]);
        let weights: Vec<String> =
            (0..8).map(|k| format!("%w{k}: tensor<{s}x{}x{weight}>", if k < 4 { i } else { s })).collect();
        let biases: Vec<String> = (0..4).map(|k| format!("%b{k}: tensor<{s}x{bias}>")).collect();
        format!(
            "func.func @lstm(%x: {}, {}, {}) -> {} {{\n{}    return %r#2 : {}\n}}\n",
            self.sequence(i),
            weights.join(", "),
            biases.join(", "),
            self.sequence(s),
            b.text,
            self.sequence(s)
        )
    }

    /// Gate `k` (TFLite's order: input, forget, cell, output) of the step: the activation of
    /// `FC(x_t) + bias + FC(h)`.
    fn gate(
        &self,
        b: &mut Body,
        k: usize,
        sigmoid: bool,
        (x4, w, zero_bias, zps, table): (&str, &[String], &str, &[String; 3], Option<&str>),
    ) -> String {
        let (weight, bias, hidden, cell) = self.types();
        let (s, i) = (self.state, self.features);
        let acc = if self.quantized.is_some() { "i32" } else { "f32" };
        let conv = |b: &mut Body, input: &str, n: i64, element: &str, filter: &str, bias_value: &str, zp: &str| {
            b.value(&format!(
                "tosa.conv2d {input}, {filter}, {bias_value}, {zp}, {} {{acc_type = {acc}, dilation = array<i64: 1, 1>, \
                 pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : ({}, tensor<{s}x1x1x{n}x{weight}>, \
                 tensor<{s}x{bias}>, tensor<1x{element}>, tensor<1x{weight}>) -> {}",
                zps[2],
                self.row(n, element),
                self.row(s, acc)
            ))
        };
        let from_x = conv(b, x4, i, self.element(), &w[k], &format!("%b{k}"), &zps[0]);
        let from_h = conv(b, "%h", s, hidden, &w[4 + k], zero_bias, &zps[1]);
        let Some(q) = &self.quantized else {
            let sum = b.value(&format!("tosa.add {from_x}, {from_h} : ({0}, {0}) -> {0}", self.row(s, "f32")));
            let op = if sigmoid { "tosa.sigmoid" } else { "tosa.tanh" };
            return b.value(&format!("{op} {sum} : ({0}) -> {0}", self.row(s, "f32")));
        };
        let gx = self.rescale(b, &from_x, q.input_fc[k], cell, 0);
        let gh = self.rescale(b, &from_h, q.recurrent_fc[k], cell, 0);
        let sum = self.saturating_add(b, &gx, &gh);
        // Sigmoid: TFLite's Logistic(0, 0); tanh: its Tanh at a 2^-12 input.
        let table = table.unwrap_or_default();
        if sigmoid { self.sigmoid(b, &sum, table) } else { self.tanh(b, &sum, -12, table) }
    }

    /// `c = f·c + i·g`, clipped.
    fn update_cell(&self, b: &mut Body, (forget, input, cell_gate): (&str, &str, &str)) -> String {
        let row = self.row(self.state, self.types().3);
        let Some(q) = &self.quantized else {
            let shift = b.value("\"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>");
            let fc = b.value(&format!("tosa.mul {forget}, %c, {shift} : ({row}, {row}, tensor<1xi8>) -> {row}"));
            let ig =
                b.value(&format!("tosa.mul {input}, {cell_gate}, {shift} : ({row}, {row}, tensor<1xi8>) -> {row}"));
            let sum = b.value(&format!("tosa.add {fc}, {ig} : ({row}, {row}) -> {row}"));
            if self.cell_clip > 0.0 {
                let clip = umac_dialects::text::float_literal(self.cell_clip);
                return b.value(&format!(
                    "tosa.clamp {sum} {{max_val = {clip} : f32, min_val = -{clip} : f32}} : ({row}) -> {row}"
                ));
            }
            return sum;
        };
        let fc = self.product(b, forget, "%c", q.forget_cell, "i16", 0);
        let ig = self.product(b, input, cell_gate, q.input_cell, "i16", 0);
        let sum = self.saturating_add(b, &fc, &ig);
        if q.cell_clip > 0 {
            return b.value(&format!(
                "tosa.clamp {sum} {{max_val = {0} : i16, min_val = -{0} : i16}} : ({row}) -> {row}",
                q.cell_clip
            ));
        }
        sum
    }

    /// `h = tanh(c)·o`.
    fn update_hidden(&self, b: &mut Body, cell: &str, output: &str, table: Option<&str>) -> String {
        let row = self.row(self.state, "f32");
        let Some(q) = &self.quantized else {
            let tanh = b.value(&format!("tosa.tanh {cell} : ({row}) -> {row}"));
            let shift = b.value("\"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>");
            return b.value(&format!("tosa.mul {tanh}, {output}, {shift} : ({row}, {row}, tensor<1xi8>) -> {row}"));
        };
        let tanh = self.tanh(b, cell, q.cell_scale_power, table.unwrap_or_default());
        self.product(b, &tanh, output, q.hidden, "i8", q.hidden_zero_point)
    }

    /// A TOSA rescale of an int32 `[batch, 1, 1, state]` tensor to `element` (DOUBLE_ROUND, as
    /// TFLite's `MultiplyByQuantizedMultiplier`), which saturates.
    fn rescale(
        &self,
        b: &mut Body,
        value: &str,
        (multiplier, shift): (i32, i8),
        element: &str,
        zero_point: i64,
    ) -> String {
        let m = b.value(&format!(
            "\"tosa.const\"() <{{values = dense<{multiplier}> : tensor<1xi32>}}> : () -> tensor<1xi32>"
        ));
        let s = b.value(&format!("\"tosa.const\"() <{{values = dense<{shift}> : tensor<1xi8>}}> : () -> tensor<1xi8>"));
        let izp = b.value("\"tosa.const\"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>");
        let ozp = b.value(&format!(
            "\"tosa.const\"() <{{values = dense<{zero_point}> : tensor<1x{element}>}}> : () -> tensor<1x{element}>"
        ));
        b.value(&format!(
            "tosa.rescale {value}, {m}, {s}, {izp}, {ozp} {{input_unsigned = false, output_unsigned = false, \
             per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true}} : ({}, tensor<1xi32>, tensor<1xi8>, \
             tensor<1xi32>, tensor<1x{element}>) -> {}",
            self.row(self.state, "i32"),
            self.row(self.state, element)
        ))
    }

    /// TFLite's `MulElementwise` of two int16 tensors: the int32 product rescaled to `element`.
    fn product(&self, b: &mut Body, x: &str, y: &str, scale: (i32, i8), element: &str, zero_point: i64) -> String {
        let (r16, r32) = (self.row(self.state, "i16"), self.row(self.state, "i32"));
        let x32 = b.value(&format!("tosa.cast {x} : ({r16}) -> {r32}"));
        let y32 = b.value(&format!("tosa.cast {y} : ({r16}) -> {r32}"));
        let shift = b.value("\"tosa.const\"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>");
        let p = b.value(&format!("tosa.mul {x32}, {y32}, {shift} : ({r32}, {r32}, tensor<1xi8>) -> {r32}"));
        self.rescale(b, &p, scale, element, zero_point)
    }

    /// The int16 sum of two int16 tensors, saturated.
    fn saturating_add(&self, b: &mut Body, x: &str, y: &str) -> String {
        let (r16, r32) = (self.row(self.state, "i16"), self.row(self.state, "i32"));
        let x32 = b.value(&format!("tosa.cast {x} : ({r16}) -> {r32}"));
        let y32 = b.value(&format!("tosa.cast {y} : ({r16}) -> {r32}"));
        let sum = b.value(&format!("tosa.add {x32}, {y32} : ({r32}, {r32}) -> {r32}"));
        let clamped =
            b.value(&format!("tosa.clamp {sum} {{max_val = 32767 : i32, min_val = -32768 : i32}} : ({r32}) -> {r32}"));
        b.value(&format!("tosa.cast {clamped} : ({r32}) -> {r16}"))
    }

    /// An elementwise int16 → int16 `linalg.generic` whose body is `body` (from `%a: i32`, the
    /// input widened, to `%y: i32`).
    fn elementwise(&self, b: &mut Body, x: &str, body: &str) -> String {
        let row = self.row(self.state, "i16");
        let empty = b.value(&format!("tensor.empty() : {row}"));
        let map = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>";
        b.value(&format!(
            "linalg.generic {{indexing_maps = [{map}, {map}], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \
             \"parallel\"]}} ins({x} : {row}) outs({empty} : {row}) {{\n    ^bb0(%in: i16, %o: i16):\n      \
             %a = arith.extsi %in : i16 to i32\n{body}      %r = arith.trunci %y : i32 to i16\n      linalg.yield %r : i16\n    }} -> {row}"
        ))
    }

    /// TFLite's int16 `Logistic(0, 0)`: `v = 3x`, interpolated in the table at 9 fractional
    /// bits.
    fn sigmoid(&self, b: &mut Body, x: &str, table: &str) -> String {
        let body = format!(
            "{}      %sat = arith.constant {} : i32\n      %half = arith.constant 512 : i32\n      \
             %pos = arith.addi %r0, %half : i32\n      %top = arith.constant {} : i32\n      \
             %neg0 = arith.subi %top, %r0 : i32\n      %neg = arith.addi %neg0, %c511 : i32\n      \
             %sel = arith.select %nonneg, %pos, %neg : i32\n      %ten = arith.constant 10 : i32\n      \
             %y = arith.shrui %sel, %ten : i32\n",
            lookup(table, "arith.constant 3 : i32", None, 9, 0x7FFF << 10),
            0x7FFF << 10,
            1 << 25
        );
        self.elementwise(b, x, &body)
    }

    /// TFLite's int16 `Tanh` of a tensor in `2^power` units (`lstm_internal::Tanh`): `v = 3x`
    /// shifted to 2^-12 units, interpolated in the table at 8 fractional bits.
    fn tanh(&self, b: &mut Body, x: &str, power: i32, table: &str) -> String {
        let left = 15 + power - 3;
        let (multiplier, right) = if left < 0 { (3, -left) } else { (3 << left, 0) };
        let scale = format!("arith.constant {multiplier} : i32");
        let body = format!(
            "{}      %off = arith.constant {} : i32\n      %pos = arith.subi %r0, %off : i32\n      \
             %negr = arith.subi %off, %r0 : i32\n      %c127 = arith.constant 127 : i32\n      \
             %neg = arith.addi %negr, %c127 : i32\n      %c128 = arith.constant 128 : i32\n      \
             %posr = arith.addi %pos, %c128 : i32\n      %sel = arith.select %nonneg, %posr, %neg : i32\n      \
             %eight = arith.constant 8 : i32\n      %y = arith.shrsi %sel, %eight : i32\n",
            lookup(table, &scale, Some(right), 8, 0xFFFF << 8),
            1 << 23
        );
        self.elementwise(b, x, &body)
    }
}

/// The shared part of TFLite's table-based sigmoid and tanh, from `%a` (the input as i32) to
/// `%r0`, the interpolated (or saturated) magnitude, and `%nonneg`, whether `v >= 0`: `v = (a ·
/// multiplier + round) >> right`, `|v|` split into a table index and `fraction` bits,
/// `(T[k] << fraction) + frac · (T[k+1] - T[k])`, or `saturated` from index 255 up.
fn lookup(table: &str, multiplier: &str, right: Option<i32>, fraction: u32, saturated: i64) -> String {
    let scaled = match right {
        Some(r) if r > 0 => format!(
            "      %m = {multiplier}\n      %am = arith.muli %a, %m : i32\n      %rnd = arith.constant {} : i32\n      \
             %amr = arith.addi %am, %rnd : i32\n      %rs = arith.constant {r} : i32\n      %v = arith.shrsi %amr, %rs : i32\n",
            1 << (r - 1)
        ),
        _ => format!("      %m = {multiplier}\n      %v = arith.muli %a, %m : i32\n"),
    };
    format!(
        "{scaled}      %zero = arith.constant 0 : i32\n      %nonneg = arith.cmpi sge, %v, %zero : i32\n      \
         %negv = arith.subi %zero, %v : i32\n      %abs = arith.select %nonneg, %v, %negv : i32\n      \
         %fb = arith.constant {fraction} : i32\n      %uh = arith.shrui %abs, %fb : i32\n      \
         %mask = arith.constant {} : i32\n      %ut = arith.andi %abs, %mask : i32\n      \
         %c254 = arith.constant 254 : i32\n      %k = arith.minui %uh, %c254 : i32\n      \
         %c1 = arith.constant 1 : i32\n      %k1 = arith.addi %k, %c1 : i32\n      \
         %ki = arith.index_cast %k : i32 to index\n      %k1i = arith.index_cast %k1 : i32 to index\n      \
         %ua = tensor.extract {table}[%ki] : tensor<256xi32>\n      %ub = tensor.extract {table}[%k1i] : tensor<256xi32>\n      \
         %d = arith.subi %ub, %ua : i32\n      %td = arith.muli %ut, %d : i32\n      %base = arith.shli %ua, %fb : i32\n      \
         %interp = arith.addi %base, %td : i32\n      %c255 = arith.constant 255 : i32\n      \
         %over = arith.cmpi uge, %uh, %c255 : i32\n      %satv = arith.constant {saturated} : i32\n      \
         %r0 = arith.select %over, %satv, %interp : i32\n      %c511 = arith.constant 511 : i32\n",
        (1 << fraction) - 1
    )
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
