//! A control-unit function's body as it is built: its arguments by name, and the NPU
//! instructions (copies, fills, gathers, jobs, waits) as `tynnp` ops with their descriptor words.

use crate::{
    codegen::instructions::{copy_words, instruction, laid_out},
    kernel::code::{
        Base, COL_DST, Field, JobCode, KERNEL_ROW_FIELDS, TILE_COPIES, TILE_COUNT, band_name, buffer_name,
        kernel_row_name,
    },
    kernel::split::Split,
};
use std::{collections::HashMap, rc::Rc};
use umac_backend::{Attr, Builder, Cmp, Ty, Value};

/// The shape of a strided `dma.copy` (isa.md 5.1): `row_bytes` bytes of each of `rows` rows of
/// each of `planes` planes, and the source's and destination's row and plane strides.
struct Strided {
    row_bytes: Value,
    rows: Value,
    planes: Value,
    src: [Value; 2],
    dst: [Value; 2],
}

/// The loop annotation of a kernel's loop over its tiles: unrolled fully (see [`Body::tiles`]).
const UNROLLED: (&str, Attr) = ("loop_annotation", Attr::Parsed("#llvm.loop_annotation<unroll = <full = true>>"));

/// Writes a function body: the builder, and the function's arguments by name.
pub struct Body<'a, 'c> {
    pub b: &'a mut Builder<'c>,
    arguments: Rc<HashMap<String, Value>>,
}

impl<'a, 'c> Body<'a, 'c> {
    /// The body `b` builds, whose arguments are named `names`.
    pub fn new(b: &'a mut Builder<'c>, names: &[String]) -> Body<'a, 'c> {
        let arguments = names.iter().enumerate().map(|(i, name)| (name.clone(), b.arg(i))).collect();
        Body { b, arguments: Rc::new(arguments) }
    }

    /// The argument named `name`.
    pub fn arg(&self, name: &str) -> Value {
        *self.arguments.get(name).unwrap_or_else(|| panic!("the kernel takes no argument {name}"))
    }

    /// `dm` when it is not 0 (a tensor left in DM), else `ddr` (its buffer in DDR).
    pub fn in_dm_or(&mut self, dm: Value, ddr: Value, zero: Value) -> Value {
        let kept = self.b.cmpi(Cmp::Ne, dm, zero);
        self.b.select(kept, dm, ddr)
    }

    pub fn constant(&mut self, value: i64) -> Value {
        self.b.constant(Ty::I32, value)
    }

    /// The address (an i32) of the buffer argument `name` (an `index`).
    pub fn address(&mut self, name: &str) -> Value {
        let buffer = self.arg(name);
        self.b.index_cast(buffer, Ty::I32)
    }

    /// The NPU instruction `.insn r CUSTOM_k, funct3, funct7` of `insn` with the descriptor
    /// `words` (after its dependency tokens) written at `descriptor` (an `!llvm.ptr` to i32s) for
    /// `unit`: its `tynnp` op ([`instruction`]); returns its token.
    pub fn issue(
        &mut self,
        (k, funct3, funct7): (u8, u8, u8),
        descriptor: Value,
        unit: Value,
        words: &[Value],
    ) -> Value {
        let name = instruction(k, funct3).map_or("tynnp.unknown", |i| i.name);
        let operands = [&[descriptor, unit][..], words].concat();
        let attribute = [("funct7", Attr::Int(Ty::I64, i64::from(funct7)))];
        self.b.op1(name, &operands, Ty::I32, if funct7 == 0 { &[] } else { &attribute })
    }

    /// Stores `token` as word `index` (an i32 value) of the table at DM address `table`.
    pub fn store_token_at(&mut self, table: Value, index: Value, token: Value) {
        let four = self.constant(4);
        let offset = self.b.muli(index, four);
        let pointer = self.pointer(table, offset);
        self.b.store(token, pointer);
    }

    /// Stores `token` at address `at` (an i32 value: in DM, or a word of the mailbox in DMEM).
    pub fn store_token(&mut self, at: Value, token: Value) {
        let pointer = self.b.inttoptr(at);
        self.b.store(token, pointer);
    }

    /// Loads word `index` of the table at DM address `table` (an i32 value): a token stored there.
    pub fn load_token(&mut self, table: Value, index: usize) -> Value {
        let offset = self.constant(4 * index as i64);
        let pointer = self.pointer(table, offset);
        self.b.load(pointer, Ty::I32)
    }

    /// The address `offset` bytes after `base` (both i32 values), as a pointer.
    fn pointer(&mut self, base: Value, offset: Value) -> Value {
        let at = self.b.addi(base, offset);
        self.b.inttoptr(at)
    }

    /// `scf.for` over the call's tiles (`tile_count`, a value) carrying `inits` (i32 values), with
    /// the extra attributes `marks` (`umac-double-buffer-tynnp`'s markers): `tile` writes a tile
    /// given its number (an i32 value) and the carried values and returns what it carries into
    /// the next; returns the values after the last. LLVM is asked to unroll it fully
    /// (`llvm.loop.unroll.full`), which it does once `umac-specialize-tynnp` made the count and
    /// the table constants of the function: then the table's loads fold away (kept as a loop, the
    /// control unit's loads of the table cost KWS 19,634 -> 20,380 cycles).
    pub fn for_tiles(
        &mut self,
        inits: &[Value],
        marks: &[(&str, Attr)],
        tile: impl FnOnce(&mut Body<'_, 'c>, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let count = self.arg(TILE_COUNT);
        let count = self.b.index_cast(count, Ty::Index);
        let [zero, one] = [0, 1].map(|v| self.b.constant(Ty::Index, v));
        let arguments = self.arguments.clone();
        let attributes = [&[UNROLLED][..], marks].concat();
        self.b.for_loop([zero, count, one], inits, &attributes, |b, induction, carried| {
            let number = b.index_cast(induction, Ty::I32);
            tile(&mut Body { b, arguments }, number, carried)
        })
    }

    /// `scf.if` on `condition` with i32 results, and the extra attributes `marks`: `then` writes
    /// the taken branch and returns its results; `otherwise` are the results when not taken.
    pub fn if_else(
        &mut self,
        condition: Value,
        then: impl FnOnce(&mut Body<'_, 'c>) -> Vec<Value>,
        otherwise: &[Value],
        marks: &[(&str, Attr)],
    ) -> Vec<Value> {
        let arguments = self.arguments.clone();
        let types = vec![Ty::I32; otherwise.len()];
        let otherwise = otherwise.to_vec();
        self.b.if_else(condition, &types, marks, |b| then(&mut Body { b, arguments }), |_| otherwise)
    }

    /// `scf.if` on `condition` without results around what `then` writes.
    pub fn when(&mut self, condition: Value, then: impl FnOnce(&mut Body<'_, 'c>)) {
        let arguments = self.arguments.clone();
        self.b.when(condition, |b| then(&mut Body { b, arguments }));
    }

    /// `npu.wait` for `token`.
    pub fn wait(&mut self, token: Value) {
        self.b.op("tynnp.wait", &[token], &[], &[]);
    }

    /// The value of the argument `field` of each copy `j` of a gather (`tap_src_k<j>`, ...).
    fn per_copy(&self, field: &str, j: usize) -> Value {
        self.arg(&format!("{field}_k{j}"))
    }

    /// The input of folded tile `t` gathered into its buffer after `dep`: a fill with the input
    /// zero point, then per copy `tap_len` bytes of each of `tap_count` pixels of every input row
    /// of the tile (`src_col_bytes` apart, `src_row_bytes` a row) to every `tap_bytes` of the
    /// buffer (`tile_row_bytes` a row), the copies split over two channels ([`Gather`]); returns
    /// the token the job waits for.
    pub fn gather(&mut self, d: Value, dep: Value, src: Value, buffer: Value, row: &Row, split: Split) -> Value {
        let taps = split.taps;
        let (zero, one) = (self.constant(0), self.constant(1));
        let bytes = row.field(&TILE_COPIES[1], 0);
        let fill = self.zero_point_fill(d, [dep, zero], buffer, bytes, [zero, one]);
        let rows = row.field(&Field::Scalar("ih"), 0);
        let mut gather = Gather::after(fill, zero, self.arg("out_channel"), taps, split.writes_kept);
        for j in 0..taps {
            let from = self.b.addi(src, self.per_copy("tap_src", j));
            let to = self.b.addi(buffer, self.per_copy("tap_dst", j));
            let shape = Strided {
                row_bytes: self.per_copy("tap_len", j),
                rows: self.per_copy("tap_count", j),
                planes: rows,
                src: [self.arg("src_col_bytes"), self.arg("src_row_bytes")],
                dst: [self.arg("tap_bytes"), self.arg("tile_row_bytes")],
            };
            gather.copy(self, d, (from, to), shape);
        }
        gather.last()
    }

    /// Tile `t` of an im2col convolution gathered into `buffer` after `deps` (the job two tiles
    /// back, the input's staging): a fill with the input zero point (the padding), then per
    /// kernel row and copy of the column fold `tap_len` bytes of each of `tap_count` pixels
    /// (`src_col_bytes` apart in the staged input, `pixel_bytes` in the buffer) of each output row
    /// whose kernel row reads inside the input (`src_plane_bytes` apart, and `cols_row_bytes`),
    /// the copies split over two channels ([`Gather`]); returns the token the job waits for.
    pub fn im2col(&mut self, d: Value, [dep, staged]: [Value; 2], buffer: Value, tile: &Row, split: Split) -> Value {
        let (zero, one) = (self.constant(0), self.constant(1));
        let bytes = tile.field(&TILE_COPIES[1], 0);
        let fill = self.zero_point_fill(d, [dep, staged], buffer, bytes, [zero, one]);
        let mut gather = Gather::after(fill, zero, self.arg("out_channel"), split.rows * split.taps, split.writes_kept);
        for j in 0..split.rows {
            let row = |f: &str| tile.get(&kernel_row_name(f, 0, j));
            let from_row = self.b.addi(self.arg("dm_stage"), row(KERNEL_ROW_FIELDS[0]));
            let to_row = self.b.addi(buffer, row(KERNEL_ROW_FIELDS[1]));
            for c in 0..split.taps {
                let from = self.b.addi(from_row, self.per_copy("tap_src", c));
                let to = self.b.addi(to_row, self.per_copy(COL_DST, c));
                let shape = Strided {
                    row_bytes: self.per_copy("tap_len", c),
                    rows: self.per_copy("tap_count", c),
                    planes: row(KERNEL_ROW_FIELDS[2]),
                    src: [self.arg("src_col_bytes"), self.arg("src_plane_bytes")],
                    dst: [self.arg("pixel_bytes"), self.arg("cols_row_bytes")],
                };
                gather.copy(self, d, (from, to), shape);
            }
        }
        gather.last()
    }

    /// `dma.copy` of `bytes` contiguous bytes on `channel`, after `dep`; returns its token.
    pub fn copy(
        &mut self,
        descriptor: Value,
        dep: Value,
        src: Value,
        dst: Value,
        bytes: Value,
        channel: Value,
    ) -> Value {
        let (zero, one) = (self.constant(0), self.constant(1));
        let shape = Strided { row_bytes: bytes, rows: one, planes: one, src: [zero, zero], dst: [zero, zero] };
        self.dma_copy(descriptor, channel, [dep, zero], (src, dst), shape)
    }

    /// `dma.copy` from `src` to `dst` of `shape` on `channel` after `deps` (isa.md 5.1's words);
    /// returns its token.
    fn dma_copy(
        &mut self,
        d: Value,
        channel: Value,
        deps: [Value; 2],
        (from, to): (Value, Value),
        shape: Strided,
    ) -> Value {
        let Strided { row_bytes, rows, planes, src: [src_row, src_plane], dst: [dst_row, dst_plane] } = shape;
        let words = copy_words(deps, (from, to), [row_bytes, rows, planes, src_row, dst_row, src_plane, dst_plane]);
        self.issue((0, 0, 0), d, channel, &words)
    }

    /// `dma.fill` of `bytes` contiguous bytes at `dst` with the input zero point (the padding of
    /// a gathered tile), on channel 0 after `deps`; `[zero, one]` are those constants.
    fn zero_point_fill(
        &mut self,
        d: Value,
        deps: [Value; 2],
        dst: Value,
        bytes: Value,
        [zero, one]: [Value; 2],
    ) -> Value {
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
                ("value", self.arg("input_zp")),
            ],
        );
        self.issue((0, 1, 0), d, zero, &words)
    }
}

/// One tile's row of a kernel's tile table (what differs between its tiles: the descriptors'
/// banded fields, the copies' offsets and bytes, the row of the kernel before's token table it
/// follows, an im2col gather's kernel rows), loaded at the start of the tile from the table the
/// call passes ([`crate::kernel::code::JobCode::tile_row`]); each value by its name in tile 0.
pub struct Row(HashMap<String, Value>);

impl Row {
    /// Loads row `tile` (an i32 value) of the table `table` (an `!llvm.ptr` to i32s) of a call
    /// split as `split` of `code`'s job: its DM addresses are offsets from what they lie in
    /// ([`JobCode::base_of`]), added here: tile t's buffer of a tensor is buffer `t % 2`.
    pub fn load(b: &mut Body, (table, tile): (Value, Value), code: &JobCode, split: Split) -> Row {
        let names = code.tile_row(split, 0);
        let width = b.constant(names.len() as i64);
        let first = b.b.muli(tile, width);
        let row = b.b.gep_dynamic(table, first, Ty::I32);
        let mut odd = None;
        let mut values = HashMap::new();
        for (k, name) in names.iter().enumerate() {
            let word = b.b.gep(row, k as i32, Ty::I32);
            let mut value = b.b.load(word, Ty::I32);
            let base = match code.base_of(split, name) {
                Some(Base::Buffer(buffer)) => {
                    let odd = *odd.get_or_insert_with(|| {
                        let one = b.constant(1);
                        let parity = b.b.andi(tile, one);
                        b.b.cmpi(Cmp::Eq, parity, one)
                    });
                    let [even_buffer, odd_buffer] = [0, 1].map(|k| b.arg(&buffer_name(buffer, k)));
                    Some(b.b.select(odd, odd_buffer, even_buffer))
                }
                Some(Base::Argument(argument)) => Some(b.arg(argument)),
                None => None,
            };
            if let Some(base) = base {
                value = b.b.addi(base, value);
            }
            values.insert(name.clone(), value);
        }
        Row(values)
    }

    /// The value named `name` (its name in tile 0).
    pub fn get(&self, name: &str) -> Value {
        *self.0.get(name).unwrap_or_else(|| panic!("the tile table's rows hold no {name}"))
    }

    /// The value of `field` of the tile's band `band`.
    pub fn field(&self, field: &Field, band: usize) -> Value {
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
    last: [Value; 2],
    fill: Value,
    zero: Value,
    /// The output channel's number.
    out_channel: Value,
    /// Copies issued, and how many there are; whether they alternate.
    issued: usize,
    count: usize,
    two: bool,
}

impl Gather {
    fn after(fill: Value, zero: Value, out_channel: Value, count: usize, two: bool) -> Gather {
        Gather { last: [fill, zero], fill, zero, out_channel, issued: 0, count, two }
    }

    fn copy(&mut self, b: &mut Body, d: Value, (from, to): (Value, Value), shape: Strided) {
        let side = usize::from(on_output_channel(self.issued, self.two));
        let channel = if side == 0 { self.zero } else { self.out_channel };
        let own = if side == 0 || self.issued > 1 { self.last[side] } else { self.fill };
        let last = self.two && self.issued + 1 == self.count;
        let other = if last { self.last[1 - side] } else { self.zero };
        self.last[side] = b.dma_copy(d, channel, [own, other], (from, to), shape);
        self.issued += 1;
    }

    /// The token the job waits for: the last copy's (the fill's when there were none).
    fn last(self) -> Value {
        let side = if self.two { (self.issued + 1) % 2 } else { 0 };
        if self.issued == 0 { self.fill } else { self.last[side] }
    }
}
