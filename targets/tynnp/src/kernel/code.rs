//! The kinds of NPU jobs as the compiler sees them ([`JobCode`]): each one's instruction and
//! descriptor (in `isa.rs`'s layout), its constants, the fields that differ between its tiles,
//! and the arguments of the call of its kernel for a [`Split`] (the names `codegen/` builds the
//! kernel's function with, `codegen/call.rs` passes and `codegen/describe.rs` reads).

use crate::kernel::split::Split;
use umac_tynnp_device::isa;

/// A word of a job's descriptor after its two dependency tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A scalar argument of the function.
    Scalar(&'static str),
    /// The DM address of a buffer (an input, or `output`).
    Dm(&'static str),
    /// A constant.
    Const(i64),
}

/// What the function of one kind of job looks like; the same for every call site.
pub struct JobCode {
    /// The function's name.
    pub callee: &'static str,
    /// What the job computes, for messages.
    pub what: &'static str,
    /// The DM regions of the job's constants (filter, bias, multipliers, shifts), which arrive
    /// packed in one record laid out as the regions are (`Job::packed`) and are copied into DM
    /// once, before the first tile; the call passes the record as the buffer `weights`.
    pub packed: &'static [&'static str],
    /// The descriptor's scalars, in call order after the buffers.
    pub scalars: &'static [&'static str],
    /// What a descriptor word holds where it is not the argument (`Dm` for an address word,
    /// else `Scalar`) of its own name in the layout of `isa.rs`: a constant, or an argument of
    /// another name.
    pub aliases: &'static [(&'static str, Field)],
    /// The instruction: custom-k, funct3, funct7, and the unit index in `rs2`.
    pub insn: (u8, u8, u8, i64),
    /// The descriptor fields that differ between the tiles of a job (and the bands of a tile).
    /// Every job runs in tiles, one after another, each with its own copy of its inputs in and
    /// of its output out, double-buffered.
    pub banded: &'static [Field],
    /// A tiled convolution whose kernel columns are folded into its input channels: each tile's
    /// input is gathered by one strided copy per kernel column ("tap") into `[rows][ow][kw·ic]`
    /// over a fill with the input zero point (the padding), and the job is a `kh x 1`
    /// convolution with `kw·ic` input channels, stride 1 across.
    pub folded: bool,
    /// A folded convolution whose kernel rows are folded into its input channels too (im2col):
    /// its whole input is staged in DM once, and each tile's `[rows][ow][kh·kw·ic]` is gathered
    /// from there by the column fold's copies once per kernel row (over the output rows whose
    /// kernel row reads inside the input), over a fill with the input zero point; the job is a
    /// `1 x 1` convolution with `kh·kw·ic` input channels.
    pub im2col: bool,
    /// A tiled job on the vector units: each tile's output rows split into bands, one per unit.
    pub units: bool,
    /// An elementwise job's bytes per element of its inputs and of its output.
    pub element_bytes: (i64, i64),
}

/// The argument giving the DM address of a handing kernel's token table; those giving, for a
/// following kernel, the address of the row of the kernel before's table each tile follows
/// (`after_t<t>`) and of its last row.
pub const DM_TOKENS: &str = "dm_tokens";
pub const AFTER: &str = "after";
pub const AFTER_END: &str = "after_end";

/// The argument giving, for a kernel waiting for the kernel two back, the DM address of the last
/// row of that kernel's table.
pub const AFTER_END_TWO: &str = "after_end2";

/// The arguments giving where the token of the copy of a record copied ahead is (the offset of a
/// word of the function's mailbox of copies' tokens in the control unit's DMEM,
/// `codegen::regions`): of this kernel's record when preloaded, of the next kernel's and of the
/// one further ahead when it copies them. The copying kernel stores the token there, the
/// record's kernel waits for it, so a record may be copied any number of kernels ahead.
pub const WEIGHTS_TOKEN: &str = "weights_token";
/// The argument giving the address of the function's mailbox, of which [`WEIGHTS_TOKEN`],
/// [`NEXT_TOKEN`] and [`FAR_TOKEN`] give the byte offsets of words: one address for every call
/// (what the calling code keeps in a register), the offsets constants.
pub const MAILBOX: &str = "mailbox";
pub const NEXT_TOKEN: &str = "next_token";
pub const FAR_TOKEN: &str = "far_token";

/// The buffer of the record of a kernel further ahead (`ahead` in the schedule, 2 or more), and
/// the arguments giving where in DM it goes and its bytes.
pub const FAR_WEIGHTS: &str = "far_weights";
pub const DM_FAR: &str = "dm_far";
pub const FAR_BYTES: &str = "far_bytes";

/// The arguments of a folded convolution after the tiles': the input's row pitch and the bytes
/// between the columns one output pixel and the next read, the tile buffer's row pitch and one
/// output pixel's taps' bytes.
pub const FOLD_PITCHES: [&str; 4] = ["src_row_bytes", "src_col_bytes", "tile_row_bytes", "tap_bytes"];

/// The arguments of an im2col convolution after the column fold's: where its input is staged in
/// DM and its bytes, the bytes of a gathered pixel (`kh·kw·ic`), between the input rows of
/// adjacent output rows, and of a gathered row.
pub const IM2COL_PITCHES: [&str; 5] = ["dm_stage", "stage_bytes", "pixel_bytes", "src_plane_bytes", "cols_row_bytes"];

/// Per copy of an im2col convolution's gather: where its first pixel's taps go in a gathered row
/// (pixels `pixel_bytes` apart).
pub const COL_DST: &str = "col_dst";

/// Per tile and kernel row of an im2col convolution: where in the staged input its first output
/// row's input row starts, where that output row's kernel row goes in the tile's buffer, and the
/// output rows whose kernel row reads inside the input.
pub const KERNEL_ROW_FIELDS: [&str; 3] = ["row_src", "row_dst", "row_count"];

/// The words of a `dma.copy` descriptor (`dma.fill`'s 9 are fewer).
pub(crate) const COPY_WORDS: i64 = 11;

/// The buffer of the kernel's tile table (the values that differ between its tiles, a row of
/// [`JobCode::tile_row`] each), and the argument giving its tiles: the loop's trip count.
pub const TILES: &str = "tiles";
pub const TILE_COUNT: &str = "tile_count";

/// The arguments giving the DM addresses of the two tile buffers of a tiled tensor (the same one
/// twice when single-buffered): tile t's go in buffer `t % 2`.
pub fn buffer_name(tensor: &str, k: usize) -> String {
    format!("dm_{tensor}_buffer{k}")
}

/// What a DM address in a tile table is an offset from ([`JobCode::base_of`]), so the table is
/// the same wherever DM's buffers are allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// The tile's buffer of this tensor (buffer `t % 2`, [`buffer_name`]).
    Buffer(&'static str),
    /// The address the argument of this name gives.
    Argument(&'static str),
}

/// The argument naming the DMA channel of the copies out and of the constants' copy in.
pub const OUT_CHANNEL: &str = "out_channel";

/// The arguments giving the DM address of an input the kernel before left in DM, and of the
/// place to leave the output at for the kernel after (0: the tensor is in DDR).
pub const IN_DM: &str = "in_dm";
pub const OUT_DM: &str = "out_dm";

/// The argument giving the DM address of an elementwise job's second input (`y`) when the
/// kernel before left it in DM (0: in DDR).
pub const IN_DM_Y: &str = "in_dm_y";

/// The buffer of the next kernel's constants, and the arguments giving where in DM they go and
/// their bytes.
pub const NEXT_WEIGHTS: &str = "next_weights";
pub const DM_NEXT: &str = "dm_next";
pub const NEXT_BYTES: &str = "next_bytes";

/// The argument giving the bytes of the packed constants.
pub const WEIGHTS_BYTES: &str = "weights_bytes";

/// Per copy of a folded tile's gather (a run of taps over a run of output pixels): where its
/// first pixel's bytes are in an input tile and go in the tile buffer, its pixels, and the bytes
/// it copies of each (one tap's pixel, or adjacent taps' at once).
pub const TAP_FIELDS: [&str; 4] = ["tap_src", "tap_dst", "tap_count", "tap_len"];

/// The copies of a tile, after its banded fields: where its input rows start in the input and
/// their bytes, where its output rows go in the output and their bytes.
pub const TILE_COPIES: [Field; 4] =
    [Field::Scalar("in_offset"), Field::Scalar("in_bytes"), Field::Scalar("out_offset"), Field::Scalar("out_bytes")];

/// The name of an im2col convolution's value `field` of tile `t`'s kernel row `j`.
pub fn kernel_row_name(field: &str, t: usize, j: usize) -> String {
    format!("{field}_b{t}_r{j}")
}

/// The argument name of a banded field's value for band `k`.
pub fn band_name(field: &Field, k: usize) -> String {
    match field {
        Field::Scalar(name) => format!("{name}_b{k}"),
        Field::Dm(buffer) => format!("dm_{buffer}_b{k}"),
        Field::Const(value) => format!("c{value}_b{k}"),
    }
}

impl JobCode {
    /// The descriptor's words after `deps`, in the layout the device decodes (`isa.rs`): each
    /// word the argument of its name (its DM address for an address word), or its alias.
    pub fn descriptor(&self) -> Vec<Field> {
        let layout = isa::descriptor(self.insn.0, self.insn.1).expect("every job's instruction has a descriptor");
        let field = |word: &'static str| match self.aliases.iter().find(|(name, _)| *name == word) {
            Some(&(_, alias)) => alias,
            None if layout.is_address(word) => Field::Dm(word),
            None => Field::Scalar(word),
        };
        layout.words.iter().map(|&word| field(word)).collect()
    }

    /// The per-band fields, in argument order.
    fn band_fields(&self) -> Vec<Field> {
        self.banded.iter().chain(&TILE_COPIES).copied().collect()
    }

    /// Whether the job is a convolution on the NU (custom-1), whose kernel a schedule may fold
    /// into its input channels.
    pub fn foldable(&self) -> bool {
        self.insn.0 == 1
    }

    /// Whether a tile of the job may be banded by its channels (a pooling,
    /// `schedule::tiling::Bands`).
    pub fn channel_bands(&self) -> bool {
        self.banded.contains(&Field::Scalar(crate::kernel::jobs::CHANNELS))
    }

    /// Whether the job works on elements (in tiles of whole vectors) rather than rows.
    pub fn elementwise(&self) -> bool {
        self.banded.contains(&Field::Scalar("count"))
    }

    /// The buffers a call passes before its scalars: the tensors it reads tile by tile (passed
    /// even when kept in DM, where their DDR buffers go unread), the
    /// packed constants (`weights`) unless preloaded, the next kernel's (`next_weights`) when it
    /// prefetches them, and the tile table ([`TILES`]).
    pub fn buffers(&self, split: Split) -> Vec<&'static str> {
        let mut buffers = self.tile_inputs();
        if self.copies_weights(split) {
            buffers.push("weights");
        }
        if split.prefetch {
            buffers.push(NEXT_WEIGHTS);
        }
        if split.prefetch_far {
            buffers.push(FAR_WEIGHTS);
        }
        buffers.push(TILES);
        buffers
    }

    /// Whether the kernel copies its own constants.
    pub(crate) fn copies_weights(&self, split: Split) -> bool {
        !self.packed.is_empty() && !split.preloaded
    }

    /// The names of every argument after the buffers, in call order: the scalars, the output
    /// channel, where the input and output are kept (0: DDR; an elementwise job's `y` after
    /// them), the DM address of each packed
    /// constant and the record's bytes (also when preloaded; then where its copy's token is), the
    /// next kernel's record's address, bytes and token word when prefetching (and the far
    /// record's), the token table's address when handing its jobs on, the last
    /// rows of the tables of the kernels before it follows, a folded convolution's pitches and
    /// copies, then the number of tiles ([`TILE_COUNT`]). What differs between the tiles is in
    /// the tile table ([`JobCode::tile_row`]), so the arguments are the same for every number
    /// of tiles.
    pub fn trailing(&self, split: Split) -> Vec<String> {
        let mut names: Vec<String> = self.scalars.iter().map(|s| s.to_string()).collect();
        names.extend([OUT_CHANNEL, IN_DM, OUT_DM].map(String::from));
        if self.tile_inputs().len() > 1 {
            names.push(IN_DM_Y.to_string());
        }
        names.extend(self.packed.iter().map(|b| format!("dm_{b}")));
        if !self.packed.is_empty() {
            names.push(WEIGHTS_BYTES.to_string());
        }
        if split.preloaded || split.prefetch || split.prefetch_far {
            names.push(MAILBOX.to_string());
        }
        if split.preloaded {
            names.push(WEIGHTS_TOKEN.to_string());
        }
        if split.prefetch {
            names.extend([DM_NEXT, NEXT_BYTES, NEXT_TOKEN].map(String::from));
        }
        if split.prefetch_far {
            names.extend([DM_FAR, FAR_BYTES, FAR_TOKEN].map(String::from));
        }
        if split.hands {
            names.push(DM_TOKENS.to_string());
        }
        if split.follows > 0 {
            names.push(AFTER_END.to_string());
            if split.waits_two > 0 {
                names.push(AFTER_END_TWO.to_string());
            }
        }
        if self.folded {
            names.extend(FOLD_PITCHES.iter().map(|s| s.to_string()));
            for j in 0..split.taps {
                names.extend(TAP_FIELDS.iter().map(|f| format!("{f}_k{j}")));
            }
        }
        if self.im2col {
            names.extend(IM2COL_PITCHES.iter().map(|s| s.to_string()));
            names.extend((0..split.taps).map(|c| format!("{COL_DST}_k{c}")));
        }
        for (buffer, kept) in self.tiled_buffers(split) {
            if kept.is_none() {
                names.extend([0, 1].map(|k| buffer_name(buffer, k)));
            }
        }
        names.push(TILE_COUNT.to_string());
        names
    }

    /// The tensors the job takes tile by tile (its tiled inputs, then `output`), each with the
    /// argument giving where it is kept in DM when the job reads or writes it there in place
    /// (else its tiles go through two tile buffers, [`buffer_name`]).
    pub fn tiled_buffers(&self, split: Split) -> Vec<(&'static str, Option<&'static str>)> {
        let inputs = self.tile_inputs().into_iter().zip([IN_DM, IN_DM_Y]).zip(split.reads_kept);
        let inputs = inputs.map(|((name, kept), reads)| (name, reads.then_some(kept)));
        inputs.chain([("output", split.writes_kept.then_some(OUT_DM))]).collect()
    }

    /// What the address value `name` of a tile table's row is relative to (the table holds its
    /// offset from it), or `None` for a value that is no DM address: a tiled tensor's address
    /// (`dm_<tensor>_b<band>`) to where the tensor is kept, or else to the tile's buffer; the
    /// row of the kernel before's token table the tile follows (`after_t<t>`) to its last row.
    pub fn base_of(&self, split: Split, name: &str) -> Option<Base> {
        if name.strip_prefix(AFTER).and_then(|rest| rest.strip_prefix("_t")).is_some() {
            return Some(Base::Argument(AFTER_END));
        }
        let (tensor, band) = name.strip_prefix("dm_")?.rsplit_once("_b")?;
        if band.is_empty() || !band.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let (buffer, kept) = self.tiled_buffers(split).into_iter().find(|(buffer, _)| *buffer == tensor)?;
        Some(kept.map_or(Base::Buffer(buffer), Base::Argument))
    }

    /// The address value `name` of tile `t`'s row is an offset from, given the call's arguments
    /// by `value`: 0 for a value that is no address, `None` for a missing argument.
    pub fn base_value(&self, split: Split, name: &str, t: usize, value: impl Fn(&str) -> Option<i64>) -> Option<i64> {
        match self.base_of(split, name) {
            Some(Base::Buffer(buffer)) => value(&buffer_name(buffer, t % 2)),
            Some(Base::Argument(argument)) => value(argument),
            None => Some(0),
        }
    }

    /// The values of tile `t` (those that differ between tiles), in their order in its row of
    /// the kernel's tile table: each band's banded fields (band `u` of
    /// a tile on the vector units numbered `t · units + u`), the tile's copies
    /// ([`TILE_COPIES`]), the row of the kernel before's token table it follows (`after_t<t>`),
    /// and an im2col convolution's kernel rows. The call passes the table as a constant; the
    /// kernel's loop over the tiles loads tile t's row at the start of the tile and takes each
    /// value by its name in tile 0.
    pub fn tile_row(&self, split: Split, t: usize) -> Vec<String> {
        let mut names = Vec::new();
        if self.units {
            for u in 0..split.units {
                names.extend(self.banded.iter().map(|f| band_name(f, t * split.units + u)));
            }
            names.extend(TILE_COPIES.iter().map(|f| band_name(f, t)));
        } else {
            names.extend(self.band_fields().iter().map(|f| band_name(f, t)));
        }
        if split.follows > 0 {
            names.push(format!("{AFTER}_t{t}"));
        }
        if self.im2col {
            for j in 0..split.rows {
                names.extend(KERNEL_ROW_FIELDS.iter().map(|f| kernel_row_name(f, t, j)));
            }
        }
        names
    }

    /// The argument a descriptor field of band `band` takes its value from, or its constant.
    pub fn field_source(&self, field: &Field, band: usize) -> Result<String, i64> {
        match field {
            _ if self.banded.contains(field) => Ok(band_name(field, band)),
            Field::Scalar(name) => Ok(name.to_string()),
            Field::Dm(buffer) => Ok(format!("dm_{buffer}")),
            Field::Const(value) => Err(*value),
        }
    }

    /// The inputs copied tile by tile (the DM buffers among the banded fields): `input` for a
    /// window job or a table lookup, `x` and `y` for an elementwise op, whose tiles take the same
    /// elements of both.
    pub fn tile_inputs(&self) -> Vec<&'static str> {
        self.banded
            .iter()
            .filter_map(|f| match f {
                Field::Dm(buffer) if *buffer != "output" => Some(*buffer),
                _ => None,
            })
            .collect()
    }

    /// Whether the kernel copies nothing on its channels nor through the DDR port while its tiles
    /// run: it reads every tiled input in place, gathers nothing and writes its output in place.
    /// Its copy of the next kernel's constants then comes first, before its jobs.
    pub(crate) fn copies_nothing(&self, split: Split) -> bool {
        split.writes_kept && !self.folded && self.reads_all_in_place(split)
    }

    /// Whether the kernel reads every tiled input in place where a kernel before kept it.
    pub(crate) fn reads_all_in_place(&self, split: Split) -> bool {
        split.reads_kept.iter().take(self.tile_inputs().len()).all(|kept| *kept)
    }

    /// The names of the function's arguments for `split` (the same for every `split.bands`): the
    /// buffers, the trailing scalars, the output.
    pub fn parameters(&self, split: Split) -> Vec<String> {
        let buffers = self.buffers(split).into_iter().map(String::from);
        buffers.chain(self.trailing(split)).chain(["output".to_string()]).collect()
    }
}
