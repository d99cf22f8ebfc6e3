//! Writes TOSA MLIR text: one `func.func @main`, each op in TOSA's custom form
//! (`%3 = tosa.add %1, %2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> loc(#loc2)`), located
//! at the TFLite operator it was legalized from, and the `tosa.variable`s holding a model's state
//! from one inference to the next. The tools parse the text with MLIR, which checks
//! every op; this module only spells it.

use std::{
    collections::{HashMap, HashSet},
    fmt::Write as _,
};

/// A ranked tensor type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    pub shape: Vec<i64>,
    /// The MLIR element type (`i8`, `i32`, `i48`, `f32`, `i1`).
    pub elem: &'static str,
}

impl Ty {
    pub fn new(shape: &[i64], elem: &'static str) -> Ty {
        Ty { shape: shape.to_vec(), elem }
    }
    pub fn text(&self) -> String {
        let mut text = String::from("tensor<");
        for dim in &self.shape {
            let _ = write!(text, "{dim}x");
        }
        text.push_str(self.elem);
        text.push('>');
        text
    }
    pub fn with_elem(&self, elem: &'static str) -> Ty {
        Ty { shape: self.shape.clone(), elem }
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// An SSA value: its name and type. `!tosa.shape<N>` values have no tensor type.
#[derive(Clone, Debug)]
pub struct Value {
    pub name: String,
    pub ty: Ty,
    shape_rank: Option<usize>,
}

impl Value {
    pub fn type_text(&self) -> String {
        match self.shape_rank {
            Some(rank) => format!("!tosa.shape<{rank}>"),
            None => self.ty.text(),
        }
    }
}

/// A string as an MLIR string literal's contents: quotes, backslashes and bytes outside
/// printable ASCII escaped as `\XX`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'"' | b'\\' => {
                let _ = write!(out, "\\{byte:02X}");
            }
            0x20..=0x7e => out.push(byte as char),
            _ => {
                let _ = write!(out, "\\{byte:02X}");
            }
        }
    }
    out
}

/// The body of `@main` being written.
pub struct Func {
    body: String,
    next: usize,
    /// Location aliases, in order (`#loc0 = loc(...)`).
    locations: Vec<String>,
    location: usize,
    /// Constants already written, by their attribute text (a constant is written once).
    constants: HashMap<(String, String), Value>,
    /// The `tosa.variable` declarations, written before `@main`, and their symbols.
    variables: Vec<String>,
    symbols: HashSet<String>,
}

impl Func {
    pub fn new(file_location: &str) -> Func {
        let mut func = Func {
            body: String::new(),
            next: 0,
            locations: vec![],
            location: 0,
            constants: HashMap::new(),
            variables: vec![],
            symbols: HashSet::new(),
        };
        func.locations.push(file_location.to_string());
        func
    }

    /// Locates the ops written from now on at `location` (an MLIR location's text).
    pub fn set_location(&mut self, location: String) {
        self.locations.push(location);
        self.location = self.locations.len() - 1;
        // Constants are shared only within an operator, so each keeps its operator's location.
        self.constants.clear();
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%{}", self.next - 1)
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.body, "    {text} loc(#loc{})", self.location);
    }

    /// `%r = tosa.<name> operands {attributes} : (operand types) -> result`.
    pub fn op(&mut self, name: &str, operands: &[&Value], attributes: &str, result: Ty) -> Value {
        let value = Value { name: self.fresh(), ty: result, shape_rank: None };
        let names: Vec<&str> = operands.iter().map(|v| v.name.as_str()).collect();
        let types: Vec<String> = operands.iter().map(|v| v.type_text()).collect();
        let attributes = if attributes.is_empty() { String::new() } else { format!(" {{{attributes}}}") };
        let text = format!(
            "{} = tosa.{name} {}{attributes} : ({}) -> {}",
            value.name,
            names.join(", "),
            types.join(", "),
            value.ty.text()
        );
        self.line(&text);
        value
    }

    /// An op without results, written as given and located (`tosa.variable_write ...`, the end of
    /// a region op: `}) : (tensor<i1>) -> ()`).
    pub fn statement(&mut self, text: &str) {
        self.line(text);
    }

    /// A line written as given, unlocated: where a region op opens (`"tosa.cond_if"(%0) ({`) or
    /// turns to its next region (`}, {`).
    pub fn open(&mut self, text: &str) {
        let _ = writeln!(self.body, "    {text}");
    }

    /// Locates the ops written from now on at the location `index` of [`Func::location`] gave.
    pub fn restore_location(&mut self, index: usize) {
        self.location = index;
        self.constants.clear();
    }

    /// The current location's index (for [`Func::restore_location`]).
    pub fn location(&self) -> usize {
        self.location
    }

    /// Any op, written as given (`text` without the result name), with result type `result`.
    pub fn raw(&mut self, text: &str, result: Ty) -> Value {
        let value = Value { name: self.fresh(), ty: result, shape_rank: None };
        let text = format!("{} = {text}", value.name);
        self.line(&text);
        value
    }

    /// A `tosa.const` of `ty` holding `attribute` (a dense literal's contents: `"0x0102"`, `5`,
    /// `[1, 2]`).
    pub fn constant(&mut self, ty: Ty, attribute: String) -> Value {
        let key = (ty.text(), attribute);
        if let Some(value) = self.constants.get(&key) {
            return value.clone();
        }
        let value = Value { name: self.fresh(), ty, shape_rank: None };
        let text =
            format!("{} = \"tosa.const\"() <{{values = dense<{}> : {}}}> : () -> {}", value.name, key.1, key.0, key.0);
        self.line(&text);
        self.constants.insert(key, value.clone());
        value
    }

    /// A constant from raw little-endian bytes.
    pub fn bytes(&mut self, ty: Ty, data: &[u8]) -> Value {
        self.constant(ty, hex(data))
    }

    /// A constant of integers (`elem` an integer type).
    pub fn ints(&mut self, shape: &[i64], elem: &'static str, values: &[i64]) -> Value {
        let text = match values {
            [single] => single.to_string(),
            _ => format!("[{}]", values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")),
        };
        self.constant(Ty::new(shape, elem), text)
    }

    /// A one-element `tensor<1xelem>` (zero points, multipliers, shifts).
    pub fn scalar(&mut self, elem: &'static str, value: i64) -> Value {
        self.ints(&[1], elem, &[value])
    }

    /// A splat of rank `rank` whose every dimension is 1 (broadcasts against any operand).
    pub fn broadcast(&mut self, rank: usize, elem: &'static str, value: i64) -> Value {
        self.ints(&vec![1; rank], elem, &[value])
    }

    /// A float splat of rank `rank`, every dimension 1.
    pub fn broadcast_f32(&mut self, rank: usize, value: f32) -> Value {
        self.constant(Ty::new(&vec![1; rank], "f32"), float(value))
    }

    /// A `tosa.const_shape`.
    pub fn shape(&mut self, dims: &[i64]) -> Value {
        let value = Value { name: self.fresh(), ty: Ty::new(&[], "index"), shape_rank: Some(dims.len()) };
        let list = dims.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let text = format!(
            "{} = tosa.const_shape {{values = dense<[{list}]> : tensor<{}xindex>}} : () -> !tosa.shape<{}>",
            value.name,
            dims.len(),
            dims.len()
        );
        self.line(&text);
        value
    }

    /// A `tosa.reshape` of `input` to `shape` (nothing when it has that shape already).
    pub fn reshape(&mut self, input: &Value, shape: &[i64]) -> Value {
        if input.ty.shape == shape {
            return input.clone();
        }
        let target = self.shape(shape);
        self.op("reshape", &[input, &target], "", Ty::new(shape, input.ty.elem))
    }

    /// Declares a `tosa.variable` of `ty` holding `initial` (a dense literal's contents) before the
    /// first inference; returns its symbol: `@umac_<name>` with every character other than ASCII
    /// letters, digits and `_` as `_` (a C identifier: the C printer and the objects' symbol
    /// tables name globals so), made unique with `_<k>`.
    pub fn variable(&mut self, name: &str, ty: &Ty, initial: &str) -> String {
        let base: String =
            format!("umac_{name}").chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let mut symbol = format!("@{base}");
        let mut k = 1;
        while !self.symbols.insert(symbol.clone()) {
            symbol = format!("@{base}_{k}");
            k += 1;
        }
        let ty = ty.text();
        self.variables.push(format!("  tosa.variable {symbol} = dense<{initial}> : {ty} loc(#loc{})", self.location));
        symbol
    }

    /// `tosa.variable_read` of variable `symbol` of type `ty`.
    pub fn variable_read(&mut self, symbol: &str, ty: &Ty) -> Value {
        self.raw(&format!("tosa.variable_read {symbol} : {}", ty.text()), ty.clone())
    }

    /// `tosa.variable_write` of `value` into variable `symbol`.
    pub fn variable_write(&mut self, symbol: &str, value: &Value) {
        self.statement(&format!("tosa.variable_write {symbol}, {} : {}", value.name, value.ty.text()));
    }

    /// The module: `@main(arguments) -> results` with this body.
    pub fn finish(self, arguments: &[Value], results: &[Value], entry_function: &str) -> String {
        let mut text = String::new();
        for (i, location) in self.locations.iter().enumerate() {
            let _ = writeln!(text, "#loc{i} = loc({location})");
        }
        // Arguments are located at the file too (else MLIR locates them in the text it parses).
        let args: Vec<String> = arguments.iter().map(|a| format!("{}: {} loc(#loc0)", a.name, a.ty.text())).collect();
        let result_types: Vec<String> = results.iter().map(|r| r.ty.text()).collect();
        let _ = writeln!(text, "module {{");
        for variable in &self.variables {
            let _ = writeln!(text, "{variable}");
        }
        let _ = writeln!(
            text,
            "  func.func @main({}) -> ({}) attributes {{tf.entry_function = {entry_function}}} {{",
            args.join(", "),
            result_types.join(", ")
        );
        text.push_str(&self.body);
        let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
        let _ = writeln!(text, "    return {} : {} loc(#loc0)", names.join(", "), result_types.join(", "));
        let _ = writeln!(text, "  }} loc(#loc0)");
        let _ = writeln!(text, "}} loc(#loc0)");
        text
    }

    /// Opens a region's block with arguments of `types` (`^bb0(%7: tensor<4xf32>):`); returns them.
    pub fn block(&mut self, types: &[Ty]) -> Vec<Value> {
        let arguments: Vec<Value> =
            types.iter().map(|ty| Value { name: self.fresh(), ty: ty.clone(), shape_rank: None }).collect();
        let list: Vec<String> = arguments.iter().map(|a| format!("{}: {}", a.name, a.ty.text())).collect();
        if !arguments.is_empty() {
            let _ = writeln!(self.body, "    ^bb0({}):", list.join(", "));
        }
        arguments
    }

    /// Ends a region with `tosa.yield` of `values`.
    pub fn yield_values(&mut self, values: &[Value]) {
        let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
        let types: Vec<String> = values.iter().map(Value::type_text).collect();
        self.line(&format!("\"tosa.yield\"({}) : ({}) -> ()", names.join(", "), types.join(", ")));
    }

    /// The results of a region op that gives `types` (`%5:2 = "tosa.cond_if"(...)`): its name to
    /// write before the op (`%5:2`, `%5`, or empty for none) and its results (`%5#0`, ...).
    pub fn results(&mut self, types: &[Ty]) -> (String, Vec<Value>) {
        let name = self.fresh();
        let values = |i: usize| if types.len() == 1 { name.clone() } else { format!("{name}#{i}") };
        let results =
            types.iter().enumerate().map(|(i, ty)| Value { name: values(i), ty: ty.clone(), shape_rank: None });
        let head = match types.len() {
            0 => String::new(),
            1 => format!("{name} = "),
            n => format!("{name}:{n} = "),
        };
        (head, results.collect())
    }

    /// An argument of `@main`.
    pub fn argument(index: usize, ty: Ty) -> Value {
        Value { name: format!("%arg{index}"), ty, shape_rank: None }
    }
}

/// Bytes as a dense literal's hex form (`"0x0102"`, little endian, row major; one element's bytes
/// are a splat).
pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 * bytes.len() + 4);
    text.push_str("\"0x");
    for byte in bytes {
        let _ = write!(text, "{byte:02X}");
    }
    text.push('"');
    text
}

/// An f32 as an MLIR literal that reads back as the same float (hex when it is not finite).
pub fn float(value: f32) -> String {
    if value.is_finite() { format!("{value:.9e}") } else { format!("0x{:08X}", value.to_bits()) }
}

impl Ty {
    /// This type with another shape.
    pub fn with_shape(&self, shape: &[i64]) -> Ty {
        Ty { shape: shape.to_vec(), elem: self.elem }
    }
}
