//! The text of a control-unit function's body: its values numbered, and the NPU instructions
//! (copies, fills, gathers, jobs, waits) as `tynnp` ops with their descriptor words.

use crate::{
    codegen::{COL_DST, Field, KERNEL_ROW_FIELDS, TILE_COPIES, band_name, kernel_row_name},
    instructions::instruction,
    split::Split,
};
use std::{collections::HashMap, fmt::Write as _};
use umac_tynnp_device::isa;

/// The shape of a strided `dma.copy` (isa.md 5.1): `row_bytes` bytes of each of `rows` rows of
/// each of `planes` planes, and the source's and destination's row and plane strides.
struct Strided<'a> {
    row_bytes: &'a str,
    rows: &'a str,
    planes: &'a str,
    src: [&'a str; 2],
    dst: [&'a str; 2],
}

/// Writes MLIR lines into a function body, numbering its values.
pub struct Body {
    pub text: String,
    pub next: usize,
    /// The loops open: each one's results and how many values it carries.
    loops: Vec<(String, usize)>,
}

impl Body {
    pub fn new() -> Body {
        Body { text: String::new(), next: 0, loops: Vec::new() }
    }

    pub fn value(&mut self, line: &str) -> String {
        let name = format!("%v{}", self.next);
        self.next += 1;
        let _ = writeln!(self.text, "  {name} = {line}");
        name
    }

    /// `dm` when it is not 0 (a tensor left in DM), else `ddr` (its buffer in DDR).
    pub fn in_dm_or(&mut self, dm: &str, ddr: &str, zero: &str) -> String {
        let kept = self.value(&format!("arith.cmpi ne, {dm}, {zero} : i32"));
        self.value(&format!("arith.select {kept}, {dm}, {ddr} : i32"))
    }

    pub fn constant(&mut self, value: i64) -> String {
        self.value(&format!("arith.constant {value} : i32"))
    }

    /// The NPU instruction `.insn r CUSTOM_k, funct3, funct7` of `insn` with the descriptor
    /// `words` (after its dependency tokens) written at `descriptor` (an `!llvm.ptr` to i32s) for
    /// `unit`: its `tynnp` op ([`instruction`]); returns its token.
    pub fn issue(
        &mut self,
        (k, funct3, funct7): (u8, u8, u8),
        descriptor: &str,
        unit: &str,
        words: &[String],
    ) -> String {
        let name = instruction(k, funct3).map_or("unknown", |i| i.name);
        let types = vec!["i32"; words.len() + 1].join(", ");
        let attribute = if funct7 == 0 { String::new() } else { format!(" {{funct7 = {funct7} : i64}}") };
        self.value(&format!(
            "\"{name}\"({descriptor}, {unit}, {}){attribute} : (!llvm.ptr, {types}) -> i32",
            words.join(", ")
        ))
    }

    /// Stores `token` as word `index` of the table at DM address `table` (an i32 value).
    pub fn store_token(&mut self, table: &str, index: usize, token: &str) {
        let offset = self.constant(4 * index as i64);
        let pointer = self.pointer(table, &offset);
        let _ = writeln!(self.text, "  llvm.store {token}, {pointer} : i32, !llvm.ptr");
    }

    /// Stores `token` as word `index` (an i32 value) of the table at DM address `table`.
    pub fn store_token_at(&mut self, table: &str, index: &str, token: &str) {
        let four = self.constant(4);
        let offset = self.value(&format!("arith.muli {index}, {four} : i32"));
        let pointer = self.pointer(table, &offset);
        let _ = writeln!(self.text, "  llvm.store {token}, {pointer} : i32, !llvm.ptr");
    }

    /// Loads word `index` of the table at DM address `table` (an i32 value): a token stored there.
    pub fn load_token(&mut self, table: &str, index: usize) -> String {
        let offset = self.constant(4 * index as i64);
        let pointer = self.pointer(table, &offset);
        self.value(&format!("llvm.load {pointer} : !llvm.ptr -> i32"))
    }

    /// The address `offset` bytes after `base` (both i32 values), as a pointer.
    fn pointer(&mut self, base: &str, offset: &str) -> String {
        let at = self.value(&format!("arith.addi {base}, {offset} : i32"));
        self.value(&format!("llvm.inttoptr {at} : i32 to !llvm.ptr"))
    }

    /// Opens `scf.for` over `count` iterations carrying `inits` (i32 values); returns the
    /// iteration's number (an i32 value) and the carried values. [`Body::end_loop`] closes it.
    pub fn begin_loop(&mut self, count: usize, inits: &[String]) -> (String, Vec<String>) {
        let (lower, upper, step) = (self.index(0), self.index(count as i64), self.index(1));
        let results = format!("%v{}", self.next);
        let induction = format!("%v{}", self.next + 1);
        let carried: Vec<String> = (0..inits.len()).map(|i| format!("%v{}", self.next + 2 + i)).collect();
        self.next += 2 + inits.len();
        let pairs: Vec<String> = carried.iter().zip(inits).map(|(c, i)| format!("{c} = {i}")).collect();
        let types = vec!["i32"; inits.len()].join(", ");
        let _ = writeln!(
            self.text,
            "  {results}:{} = scf.for {induction} = {lower} to {upper} step {step} iter_args({}) -> ({types}) {{",
            inits.len(),
            pairs.join(", ")
        );
        self.loops.push((results, inits.len()));
        let number = self.value(&format!("arith.index_cast {induction} : index to i32"));
        (number, carried)
    }

    /// Closes the innermost loop, carrying `yields` into the next iteration, with the extra
    /// attributes `marks` (text, maybe empty: `umac-double-buffer-tynnp`'s markers); returns the
    /// values after the last. LLVM is asked to unroll it fully (`llvm.loop.unroll.full`): a
    /// kernel's tile count is static, and unrolled, its tile table folds into the arguments,
    /// which LLVM propagates into the function where every call passes the same (kept as a
    /// loop, the control unit's stores and loads of the table cost KWS 19,634 -> 20,380 cycles).
    pub fn end_loop(&mut self, yields: &[String], marks: &str) -> Vec<String> {
        let (results, count) = self.loops.pop().expect("end_loop closes a loop begin_loop opened");
        let marks = if marks.is_empty() { String::new() } else { format!(", {marks}") };
        let _ = writeln!(
            self.text,
            "  scf.yield {} : {}\n  }} {{loop_annotation = #llvm.loop_annotation<unroll = <full = true>>{marks}}}",
            yields.join(", "),
            vec!["i32"; count].join(", ")
        );
        (0..count).map(|i| format!("{results}#{i}")).collect()
    }

    /// `scf.if` on `condition` with i32 results, and the extra attributes `marks` (text, maybe
    /// empty): `then` writes the taken branch and returns its results; `otherwise` are the
    /// results when not taken.
    pub fn if_else(
        &mut self,
        condition: &str,
        then: impl FnOnce(&mut Body) -> Vec<String>,
        otherwise: &[String],
        marks: &str,
    ) -> Vec<String> {
        let result = format!("%v{}", self.next);
        self.next += 1;
        let (count, types) = (otherwise.len(), vec!["i32"; otherwise.len()].join(", "));
        let _ = writeln!(self.text, "  {result}:{count} = scf.if {condition} -> ({types}) {{");
        let taken = then(self);
        let marks = if marks.is_empty() { String::new() } else { format!(" {{{marks}}}") };
        let _ = writeln!(
            self.text,
            "  scf.yield {} : {types}\n  }} else {{\n  scf.yield {} : {types}\n  }}{marks}",
            taken.join(", "),
            otherwise.join(", ")
        );
        (0..count).map(|i| format!("{result}#{i}")).collect()
    }

    /// `scf.if` on `condition` without results around what `then` writes.
    pub fn when(&mut self, condition: &str, then: impl FnOnce(&mut Body)) {
        let _ = writeln!(self.text, "  scf.if {condition} {{");
        then(self);
        let _ = writeln!(self.text, "  }}");
    }

    /// An `index` constant.
    fn index(&mut self, value: i64) -> String {
        self.value(&format!("arith.constant {value} : index"))
    }

    /// `npu.wait` for `token`.
    pub fn wait(&mut self, token: &str) {
        let _ = writeln!(self.text, "  \"tynnp.wait\"({token}) : (i32) -> ()");
    }

    /// The input of folded tile `t` gathered into its buffer after `dep`: a fill with the input
    /// zero point, then per copy `tap_len` bytes of each of `tap_count` pixels of every input row
    /// of the tile (`src_col_bytes` apart, `src_row_bytes` a row) to every `tap_bytes` of the
    /// buffer (`tile_row_bytes` a row), the copies split over two channels ([`Gather`]); returns
    /// the token the job waits for.
    pub fn gather(&mut self, d: &str, dep: &str, src: &str, buffer: &str, row: &Row, split: Split) -> String {
        let taps = split.taps;
        let (zero, one) = (self.constant(0), self.constant(1));
        let bytes = row.field(&TILE_COPIES[1], 0);
        let fill = self.zero_point_fill(d, [dep, &zero], buffer, &bytes, [&zero, &one]);
        let rows = row.field(&Field::Scalar("ih"), 0);
        let mut gather = Gather::after(fill, &zero, taps, split.writes_kept);
        for j in 0..taps {
            let from = self.value(&format!("arith.addi {src}, %tap_src_k{j} : i32"));
            let to = self.value(&format!("arith.addi {buffer}, %tap_dst_k{j} : i32"));
            let shape = Strided {
                row_bytes: &format!("%tap_len_k{j}"),
                rows: &format!("%tap_count_k{j}"),
                planes: &rows,
                src: ["%src_col_bytes", "%src_row_bytes"],
                dst: ["%tap_bytes", "%tile_row_bytes"],
            };
            gather.copy(self, d, (&from, &to), shape);
        }
        gather.last()
    }

    /// Tile `t` of an im2col convolution gathered into `buffer` after `deps` (the job two tiles
    /// back, the input's staging): a fill with the input zero point (the padding), then per
    /// kernel row and copy of the column fold `tap_len` bytes of each of `tap_count` pixels
    /// (`src_col_bytes` apart in the staged input, `pixel_bytes` in the buffer) of each output row
    /// whose kernel row reads inside the input (`src_plane_bytes` apart, and `cols_row_bytes`),
    /// the copies split over two channels ([`Gather`]); returns the token the job waits for.
    pub fn im2col(&mut self, d: &str, [dep, staged]: [&str; 2], buffer: &str, tile: &Row, split: Split) -> String {
        let (zero, one) = (self.constant(0), self.constant(1));
        let bytes = tile.field(&TILE_COPIES[1], 0);
        let fill = self.zero_point_fill(d, [dep, staged], buffer, &bytes, [&zero, &one]);
        let mut gather = Gather::after(fill, &zero, split.rows * split.taps, split.writes_kept);
        for j in 0..split.rows {
            let row = |f: &str| tile.get(&kernel_row_name(f, 0, j));
            let from_row = self.value(&format!("arith.addi %dm_stage, {} : i32", row(KERNEL_ROW_FIELDS[0])));
            let to_row = self.value(&format!("arith.addi {buffer}, {} : i32", row(KERNEL_ROW_FIELDS[1])));
            for c in 0..split.taps {
                let from = self.value(&format!("arith.addi {from_row}, %tap_src_k{c} : i32"));
                let to = self.value(&format!("arith.addi {to_row}, %{COL_DST}_k{c} : i32"));
                let shape = Strided {
                    row_bytes: &format!("%tap_len_k{c}"),
                    rows: &format!("%tap_count_k{c}"),
                    planes: &row(KERNEL_ROW_FIELDS[2]),
                    src: ["%src_col_bytes", "%src_plane_bytes"],
                    dst: ["%pixel_bytes", "%cols_row_bytes"],
                };
                gather.copy(self, d, (&from, &to), shape);
            }
        }
        gather.last()
    }

    /// `dma.copy` of `bytes` contiguous bytes on `channel`, after `dep`; returns its token.
    pub fn copy(&mut self, descriptor: &str, dep: &str, src: &str, dst: &str, bytes: &str, channel: &str) -> String {
        let (zero, one) = (self.constant(0), self.constant(1));
        let shape = Strided { row_bytes: bytes, rows: &one, planes: &one, src: [&zero, &zero], dst: [&zero, &zero] };
        self.dma_copy(descriptor, channel, [dep, &zero], (src, dst), shape)
    }

    /// `dma.copy` from `src` to `dst` of `shape` on `channel` after `deps` (isa.md 5.1's words);
    /// returns its token.
    fn dma_copy(
        &mut self,
        d: &str,
        channel: &str,
        deps: [&str; 2],
        (from, to): (&str, &str),
        shape: Strided,
    ) -> String {
        let Strided { row_bytes, rows, planes, src: [src_row, src_plane], dst: [dst_row, dst_plane] } = shape;
        let words = laid_out(
            "dma.copy",
            deps,
            &[
                ("src", from),
                ("dst", to),
                ("row_bytes", row_bytes),
                ("rows", rows),
                ("src_row_stride", src_row),
                ("dst_row_stride", dst_row),
                ("planes", planes),
                ("src_plane_stride", src_plane),
                ("dst_plane_stride", dst_plane),
            ],
        );
        self.issue((0, 0, 0), d, channel, &words)
    }

    /// `dma.fill` of `bytes` contiguous bytes at `dst` with the input zero point (the padding of
    /// a gathered tile), on channel 0 after `deps`; `[zero, one]` are those constants.
    fn zero_point_fill(&mut self, d: &str, deps: [&str; 2], dst: &str, bytes: &str, [zero, one]: [&str; 2]) -> String {
        let words = laid_out(
            "dma.fill",
            deps,
            &[
                ("dst", dst),
                ("row_bytes", bytes),
                ("rows", one),
                ("dst_row_stride", zero),
                ("planes", one),
                ("dst_plane_stride", zero),
                ("value", "%input_zp"),
            ],
        );
        self.issue((0, 1, 0), d, zero, &words)
    }
}

/// The words of descriptor `mnemonic` in the layout the device decodes (`isa.rs`): `deps`, then
/// each word's value by its name. Every word must be given.
fn laid_out(mnemonic: &str, deps: [&str; 2], values: &[(&str, &str)]) -> Vec<String> {
    let layout = isa::named(mnemonic).expect("a descriptor of the contract");
    assert_eq!(values.len(), layout.words.len(), "{mnemonic}: every word given");
    let mut words = vec![String::new(); layout.len()];
    words[..2].clone_from_slice(&deps.map(String::from));
    for (name, value) in values {
        words[layout.at(name)] = value.to_string();
    }
    words
}

/// One tile's row of a kernel's tile table (what differs between its tiles: the descriptors'
/// banded fields, the copies' offsets and bytes, the row of the kernel before's token table it
/// follows, an im2col gather's kernel rows), loaded at the start of the tile from the table the
/// call passes ([`crate::codegen::JobCode::tile_row`]); each value by its name in tile 0.
pub struct Row(HashMap<String, String>);

impl Row {
    /// Loads row `tile` (an i32 value) of the table `table` (an `!llvm.ptr` to i32s) whose rows
    /// hold `names`.
    pub fn load(b: &mut Body, table: &str, tile: &str, names: &[String]) -> Row {
        let width = b.constant(names.len() as i64);
        let first = b.value(&format!("arith.muli {tile}, {width} : i32"));
        let row = b.value(&format!("llvm.getelementptr {table}[{first}] : (!llvm.ptr, i32) -> !llvm.ptr, i32"));
        let mut values = HashMap::new();
        for (k, name) in names.iter().enumerate() {
            let word = b.value(&format!("llvm.getelementptr {row}[{k}] : (!llvm.ptr) -> !llvm.ptr, i32"));
            values.insert(name.clone(), b.value(&format!("llvm.load {word} : !llvm.ptr -> i32")));
        }
        Row(values)
    }

    /// The value named `name` (its name in tile 0).
    pub fn get(&self, name: &str) -> String {
        self.0.get(name).cloned().unwrap_or_else(|| panic!("the tile table's rows hold no {name}"))
    }

    /// The value of `field` of the tile's band `band`.
    pub fn field(&self, field: &Field, band: usize) -> String {
        self.get(&band_name(field, band))
    }
}

/// Whether copy `copy` of a gather goes on the output channel: every other one when they
/// alternate (`two`, when the kernel copies nothing out), else none.
pub fn on_output_channel(copy: usize, two: bool) -> bool {
    two && copy % 2 == 1
}

/// The copies of a gather after its fill (on channel 0). When the kernel copies no output out
/// (it writes it in place in DM), they alternate between channel 0 and the output channel
/// (`%out_channel`, 0 when there is one channel), so that two copy at once: those on the output
/// channel depend on the fill (channel 0 orders its own), and the last copy on the other
/// channel's last, so that its token stands for all of them. (With copies out on the output
/// channel, a tile's gather would wait there behind the tile before's copy out, which waits for
/// its job: IC's first layer 5,337 -> 6,689 cycles.)
struct Gather {
    /// The last token on channel 0 (the fill's at first) and on the output channel (none yet).
    last: [String; 2],
    fill: String,
    zero: String,
    /// Copies issued, and how many there are; whether they alternate.
    issued: usize,
    count: usize,
    two: bool,
}

impl Gather {
    fn after(fill: String, zero: &str, count: usize, two: bool) -> Gather {
        Gather { last: [fill.clone(), zero.to_string()], fill, zero: zero.to_string(), issued: 0, count, two }
    }

    fn copy(&mut self, b: &mut Body, d: &str, (from, to): (&str, &str), shape: Strided) {
        let side = usize::from(on_output_channel(self.issued, self.two));
        let channel = if side == 0 { self.zero.clone() } else { "%out_channel".to_string() };
        let own = if side == 0 || self.issued > 1 { self.last[side].clone() } else { self.fill.clone() };
        let last = self.two && self.issued + 1 == self.count;
        let other = if last { self.last[1 - side].clone() } else { self.zero.clone() };
        self.last[side] = b.dma_copy(d, &channel, [&own, &other], (from, to), shape);
        self.issued += 1;
    }

    /// The token the job waits for: the last copy's (the fill's when there were none).
    fn last(self) -> String {
        let side = if self.two { (self.issued + 1) % 2 } else { 0 };
        if self.issued == 0 { self.fill } else { self.last[side].clone() }
    }
}
