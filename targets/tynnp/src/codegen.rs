//! The control unit's code for one job, as MLIR (func, arith and the llvm dialect): descriptors
//! written word by word into a stack buffer (the stack is in DMEM, where descriptors may live),
//! and the NPU instructions of docs/tynnp/isa.md as `llvm.inline_asm has_side_effects` with a
//! memory clobber, so LLVM neither drops, merges nor reorders them across the stores.

use std::fmt::Write as _;

/// The operands of the convolution function, in the order of its call (buffers, then the
/// scalars of `ConvJob::scalars` and `Layout::scalars`, then the output buffer).
const BUFFERS: [&str; 5] = ["input", "filter", "bias", "multiplier", "shift"];
const SCALARS: [&str; 32] = [
    "ih",
    "iw",
    "ic",
    "input_zp",
    "oc",
    "kh",
    "kw",
    "filter_zp",
    "oh",
    "ow",
    "stride_y",
    "stride_x",
    "dilation_y",
    "dilation_x",
    "pad_top",
    "pad_left",
    "out_flags",
    "output_zp",
    "min",
    "max",
    "dm_input",
    "dm_filter",
    "dm_bias",
    "dm_multiplier",
    "dm_shift",
    "dm_output",
    "input_bytes",
    "filter_bytes",
    "bias_bytes",
    "multiplier_bytes",
    "shift_bytes",
    "output_bytes",
];

/// Writes MLIR lines into a function body, numbering its values.
struct Body {
    text: String,
    next: usize,
}

impl Body {
    fn value(&mut self, line: &str) -> String {
        let name = format!("%v{}", self.next);
        self.next += 1;
        let _ = writeln!(self.text, "  {name} = {line}");
        name
    }

    fn constant(&mut self, value: i64) -> String {
        self.value(&format!("arith.constant {value} : i32"))
    }

    /// Stores `words` at `descriptor` (an `!llvm.ptr` to i32s).
    fn store(&mut self, descriptor: &str, words: &[String]) {
        for (k, word) in words.iter().enumerate() {
            let at = self.value(&format!("llvm.getelementptr {descriptor}[{k}] : (!llvm.ptr) -> !llvm.ptr, i32"));
            let _ = writeln!(self.text, "  llvm.store {word}, {at} : i32, !llvm.ptr");
        }
    }

    /// An NPU instruction `.insn r CUSTOM_k, funct3, funct7, rd, rs1, rs2`; returns `rd`.
    fn insn(&mut self, k: u8, funct3: u8, rs1: &str, rs2: &str) -> String {
        self.value(&format!(
            "llvm.inline_asm has_side_effects \".insn r CUSTOM_{k}, {funct3}, 0, $0, $1, $2\", \"=r,r,r,~{{memory}}\" \
             {rs1}, {rs2} : (i32, i32) -> i32"
        ))
    }

    /// `dma.copy` of `bytes` contiguous bytes on `channel`, after `dep`; returns its token.
    fn copy(
        &mut self,
        descriptor: (&str, &str),
        dep: &str,
        src: &str,
        dst: &str,
        bytes: &str,
        channel: &str,
    ) -> String {
        let (zero, one) = (self.constant(0), self.constant(1));
        let words: Vec<String> = [dep, &zero, src, dst, bytes, &one, &zero, &zero, &one, &zero, &zero]
            .iter()
            .map(|w| w.to_string())
            .collect();
        self.store(descriptor.0, &words);
        self.insn(0, 0, descriptor.1, channel)
    }
}

/// `func.func @<name>`: DMA of the five operands into DM on channel 0, `nu.conv` after the last
/// of them, DMA of the result back on channel 1 after the convolution, and a wait for that.
pub fn conv2d(name: &str) -> String {
    let mut params: Vec<String> = BUFFERS.iter().map(|b| format!("%{b}: index")).collect();
    params.extend(SCALARS.iter().map(|s| format!("%{s}: i32")));
    params.push("%output: index".into());
    let mut b = Body { text: String::new(), next: 0 };
    let words = b.constant(30);
    let descriptor = b.value(&format!("llvm.alloca {words} x i32 : (i32) -> !llvm.ptr"));
    let address = b.value(&format!("llvm.ptrtoint {descriptor} : !llvm.ptr to i32"));
    let d = (descriptor.as_str(), address.as_str());
    let address_of = |b: &mut Body, buffer: &str| b.value(&format!("arith.index_cast %{buffer} : index to i32"));
    let (zero, one) = (b.constant(0), b.constant(1));
    let mut token = zero.clone();
    for buffer in BUFFERS {
        let src = address_of(&mut b, buffer);
        token = b.copy(d, &zero, &src, &format!("%dm_{buffer}"), &format!("%{buffer}_bytes"), &zero);
    }
    let mut conv: Vec<String> = vec![token, zero.clone()];
    conv.extend(
        [
            "dm_input",
            "ih",
            "iw",
            "ic",
            "input_zp",
            "dm_filter",
            "oc",
            "kh",
            "kw",
            "filter_zp",
            "dm_bias",
            "dm_output",
            "oh",
            "ow",
            "stride_y",
            "stride_x",
            "dilation_y",
            "dilation_x",
            "pad_top",
            "pad_left",
        ]
        .map(|s| format!("%{s}")),
    );
    conv.push(one.clone()); // job_flags: bias present
    conv.extend(["dm_multiplier", "dm_shift", "out_flags", "output_zp", "min", "max"].map(|s| format!("%{s}")));
    conv.push(zero.clone());
    b.store(&descriptor, &conv);
    let nu = b.insn(1, 0, &address, &zero);
    let dst = address_of(&mut b, "output");
    let back = b.copy(d, &nu, "%dm_output", &dst, "%output_bytes", &one);
    let _ = writeln!(
        b.text,
        "  llvm.inline_asm has_side_effects \".insn r CUSTOM_3, 0, 0, x0, $0, x0\", \"r,~{{memory}}\" {back} : (i32) -> ()"
    );
    format!("func.func private @{name}({}) {{\n{}  return\n}}", params.join(", "), b.text)
}
