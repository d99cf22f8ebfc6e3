//! The descriptor layouts of isa.md, section 5: one table that the compiler encodes descriptors
//! from (`umac-tynnp`'s jobs) and the device decodes them by (`desc::decode`), so the two cannot
//! disagree. Each layout lists the words after the two dependency tokens (words 0 and 1).

/// The output-stage block `OUT` that convolutions, matrix products, elementwise ops and rescales
/// end with.
const OUT: [&str; 7] = ["multiplier", "shift", "out_flags", "output_zp", "min", "max", "reserved"];

/// The layout of one kind of descriptor.
#[derive(Debug)]
pub struct Descriptor {
    /// The instruction: `nu.conv`.
    pub mnemonic: &'static str,
    /// Its custom opcode (0..=3) and funct3.
    pub custom: u8,
    pub funct3: u8,
    /// The words after the dependency tokens, in order.
    pub words: &'static [&'static str],
    /// Those that hold an address (of a tensor, a table, the output stage's parameters).
    pub addresses: &'static [&'static str],
}

/// The address words of the output stage, and of a convolution.
const STAGE: [&str; 2] = ["multiplier", "shift"];
const CONV_ADDRESSES: [&str; 6] = ["input", "filter", "bias", "output", STAGE[0], STAGE[1]];

const fn with_out<const A: usize, const C: usize>(words: [&'static str; A]) -> [&'static str; C] {
    let mut out = [""; C];
    let mut i = 0;
    while i < A {
        out[i] = words[i];
        i += 1;
    }
    while i < C {
        out[i] = OUT[i - A];
        i += 1;
    }
    out
}

#[rustfmt::skip]
const CONV: [&str; 28] = with_out([
    "input", "ih", "iw", "ic", "input_zp", "filter", "oc", "kh", "kw", "filter_zp", "bias", "output", "oh",
    "ow", "stride_y", "stride_x", "dilation_y", "dilation_x", "pad_top", "pad_left", "job_flags",
]);
const MATMUL: [&str; 18] =
    with_out(["a", "m", "k", "a_zp", "a_row_stride", "b", "n", "b_zp", "bias", "c", "job_flags"]);
#[rustfmt::skip]
const DWCONV: [&str; 28] = with_out([
    "input", "ih", "iw", "c", "input_zp", "filter", "kh", "kw", "mult", "filter_zp", "bias", "output", "oh",
    "ow", "stride_y", "stride_x", "dilation_y", "dilation_x", "pad_top", "pad_left", "job_flags",
]);
#[rustfmt::skip]
const ELTWISE: [&str; 21] = with_out([
    "x", "x_stride", "x_zp", "x_left_shift", "x_multiplier", "x_shift", "y", "y_stride", "y_zp",
    "y_left_shift", "y_multiplier", "y_shift", "output", "count",
]);
const RESCALE: [&str; 12] = with_out(["input", "output", "count", "channels", "input_zp"]);

/// Every descriptor the NPU decodes.
#[rustfmt::skip]
pub const DESCRIPTORS: [Descriptor; 9] = [
    Descriptor {
        mnemonic: "dma.copy", custom: 0, funct3: 0,
        words: &["src", "dst", "row_bytes", "rows", "src_row_stride", "dst_row_stride", "planes", "src_plane_stride",
                 "dst_plane_stride"],
        addresses: &["src", "dst"],
    },
    Descriptor {
        mnemonic: "dma.fill", custom: 0, funct3: 1,
        words: &["dst", "row_bytes", "rows", "dst_row_stride", "planes", "dst_plane_stride", "value"],
        addresses: &["dst"],
    },
    Descriptor { mnemonic: "nu.conv", custom: 1, funct3: 0, words: &CONV, addresses: &CONV_ADDRESSES },
    Descriptor {
        mnemonic: "nu.matmul", custom: 1, funct3: 1, words: &MATMUL,
        addresses: &["a", "b", "bias", "c", STAGE[0], STAGE[1]],
    },
    Descriptor { mnemonic: "vu.dwconv", custom: 2, funct3: 0, words: &DWCONV, addresses: &CONV_ADDRESSES },
    Descriptor {
        mnemonic: "vu.pool", custom: 2, funct3: 1,
        words: &["input", "ih", "iw", "c", "output", "oh", "ow", "kh", "kw", "stride_y", "stride_x", "pad_top",
                 "pad_left", "input_zp", "output_zp", "min", "max", "pitch"],
        addresses: &["input", "output"],
    },
    Descriptor {
        mnemonic: "vu.eltwise", custom: 2, funct3: 2, words: &ELTWISE,
        addresses: &["x", "y", "output", STAGE[0], STAGE[1]],
    },
    Descriptor {
        mnemonic: "vu.table", custom: 2, funct3: 3,
        words: &["input", "table", "output", "count"],
        addresses: &["input", "table", "output"],
    },
    Descriptor {
        mnemonic: "vu.rescale", custom: 2, funct3: 4, words: &RESCALE,
        addresses: &["input", "output", STAGE[0], STAGE[1]],
    },
];

/// The descriptor of custom opcode `custom` (0..=3), `funct3`.
pub fn descriptor(custom: u8, funct3: u8) -> Option<&'static Descriptor> {
    DESCRIPTORS.iter().find(|d| d.custom == custom && d.funct3 == funct3)
}

/// The descriptor named `mnemonic`.
pub fn named(mnemonic: &str) -> Option<&'static Descriptor> {
    DESCRIPTORS.iter().find(|d| d.mnemonic == mnemonic)
}

impl Descriptor {
    /// Whether word `name` holds an address.
    pub fn is_address(&self, name: &str) -> bool {
        self.addresses.contains(&name)
    }

    /// Words in memory, the dependency tokens included.
    pub fn len(&self) -> usize {
        2 + self.words.len()
    }

    /// Never empty: every descriptor has its dependency tokens.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The index in memory (dependency tokens at 0 and 1) of word `name`. Panics on a name the
    /// layout does not have: the names are this table's, a mismatch a bug.
    pub fn at(&self, name: &str) -> usize {
        match self.words.iter().position(|w| *w == name) {
            Some(i) => 2 + i,
            None => panic!("{} has no descriptor word '{name}'", self.mnemonic),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layouts_are_isa_md_s() {
        // Sizes in words, dependency tokens included (isa.md, section 5).
        let sizes: Vec<(&str, usize)> = DESCRIPTORS.iter().map(|d| (d.mnemonic, d.len())).collect();
        assert_eq!(
            sizes,
            [
                ("dma.copy", 11),
                ("dma.fill", 9),
                ("nu.conv", 30),
                ("nu.matmul", 20),
                ("vu.dwconv", 30),
                ("vu.pool", 20),
                ("vu.eltwise", 23),
                ("vu.table", 6),
                ("vu.rescale", 14)
            ]
        );
        let conv = named("nu.conv").unwrap();
        assert_eq!(
            (conv.at("input"), conv.at("job_flags"), conv.at("multiplier"), conv.at("reserved")),
            (2, 22, 23, 29)
        );
        assert_eq!(named("vu.eltwise").unwrap().at("y"), 8);
        for d in &DESCRIPTORS {
            let mut names = d.words.to_vec();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), d.words.len(), "{}: a word named twice", d.mnemonic);
        }
        for d in &DESCRIPTORS {
            assert!(d.addresses.iter().all(|a| d.words.contains(a)), "{}: an address it does not have", d.mnemonic);
        }
        let (pool, matmul) = (named("vu.pool").unwrap(), named("nu.matmul").unwrap());
        assert!(!pool.is_address("c") && matmul.is_address("c"));
        assert!(conv.is_address("filter") && !conv.is_address("ih"));
    }
}
