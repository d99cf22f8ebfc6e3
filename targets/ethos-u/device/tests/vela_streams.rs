//! Vela's own command streams (`tests/vela/`, written by `gen.sh` with Vela 5.2.0): the MLPerf
//! Tiny models, conv_16x8 and two LSTMs on all six configurations. Each payload is read from
//! the `ethos-u` operator of the `.tflite` Vela wrote, and every command decodes to the line
//! Vela's `--verbose-register-command-stream` printed for it (`vela.txt`), fields and all.

mod common;

use common::{operand_of, xorshift};
use std::path::{Path, PathBuf};
use umac_ethos_u_device::{
    EthosUOperator, Instruction, Operation, Payload, decode, operations, payload, rules, weights, weights::Layout,
};

/// The folders of `tests/vela/` with Vela's listing of their stream (all but the LSTMs', whose
/// listings are too large to keep).
fn listed_models() -> Vec<PathBuf> {
    let listed: Vec<PathBuf> = models().into_iter().filter(|d| d.join("vela.txt").exists()).collect();
    assert_eq!(listed.len(), 30);
    listed
}

fn models() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela");
    let mut models: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    models.sort();
    models
}

/// The payload of the one `ethos-u` operator of the `.tflite` file at `path`.
fn payload_of(path: &Path) -> Payload {
    payload::read(&operand_of(path, 0).expect("the payload is the first input, a constant")).unwrap()
}

#[test]
fn every_command_of_velas_streams_decodes_as_vela_lists_it() {
    assert_eq!(models().len(), 42);
    for dir in listed_models() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let payload = payload_of(&dir.join("model_vela.tflite"));
        // The configuration the stream was compiled for: the folder's suffix.
        assert!(name.ends_with(&payload.config.name()), "{name}: {}", payload.config.name());
        assert_eq!(payload.config.arch, (1, 0, 6), "{name}");
        let listed = std::fs::read_to_string(dir.join("vela.txt")).unwrap();
        let mut lines = listed.lines();
        assert_eq!(lines.next(), Some(format!("Register command stream: {} words", payload.stream.len()).as_str()));
        let decoded = decode(&payload.stream).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours: Vec<String> = decoded.iter().map(Instruction::listing).collect();
        let velas: Vec<&str> = lines.filter(|l| !l.starts_with("// ")).collect();
        assert_eq!(ours.len(), velas.len(), "{name}: commands");
        for (a, b) in ours.iter().zip(&velas) {
            assert_eq!(a, b, "{name}");
        }
    }
}

#[test]
fn the_kws_stream_has_the_operations_vela_reported() {
    // ../shared/facts/ethos-u.md: 908 words; CONV 7, DEPTHWISE 4, POOL 3, ELEMENTWISE 26, DMA 11.
    let payload =
        payload_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite"));
    assert_eq!(payload.stream.len(), 908);
    let decoded = decode(&payload.stream).unwrap();
    let count = |name: &str| decoded.iter().filter(|i| i.command.name == name).count();
    let ops = ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE", "NPU_OP_DMA_START"].map(count);
    assert_eq!(ops, [7, 4, 3, 26, 11]);
}

/// The numbers in `text` (a note of Vela's), in order.
fn numbers(text: &str) -> Vec<u64> {
    let mut numbers = Vec::new();
    let mut digits = String::new();
    let mut hex = false;
    for c in text.chars().chain([' ']) {
        match c {
            'x' if digits == "0" => {
                hex = true;
                digits.clear();
            }
            c if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) => digits.push(c),
            _ => {
                if !digits.is_empty() {
                    numbers.push(u64::from_str_radix(&digits, if hex { 16 } else { 10 }).unwrap());
                }
                digits.clear();
                hex = false;
            }
        }
    }
    numbers
}

#[test]
fn each_operation_sees_the_registers_vela_noted_for_it() {
    for dir in listed_models() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let payload = payload_of(&dir.join("model_vela.tflite"));
        let ops = operations(&decode(&payload.stream).unwrap());
        let listed = std::fs::read_to_string(dir.join("vela.txt")).unwrap();
        // Vela's note before each operation, by the offset of the operation's command.
        let mut notes = Vec::new();
        let mut note = None;
        for line in listed.lines() {
            if let Some(text) = line.strip_prefix("// ") {
                note = Some(text);
            } else if let Some((offset, rest)) = line.split_once(": ")
                && ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE", "NPU_OP_DMA_START"]
                    .iter()
                    .any(|op| rest.contains(&format!(" {op} ")))
            {
                let offset = usize::from_str_radix(offset.trim_start_matches("0x"), 16).unwrap();
                notes.push((offset, note.take().expect("a note before each operation")));
            }
        }
        let mut checked = 0;
        for (offset, note) in notes {
            let op = ops.iter().find(|op| op.offset == offset).unwrap();
            let at = format!("{name} at {offset:#x}: {note}");
            // The numbers from the first field on (the operation's name may hold digits: Conv2D).
            let n = numbers(&note[note.find("size=").or(note.find("src:")).unwrap()..]);
            if op.command.name == "NPU_OP_DMA_START" {
                // `DMA src: ..., address: A, dest: ..., address: B, sizes: (N/A), length: L`.
                let get = |field: &str, command: &str| op.register(command, field).unwrap();
                let dma =
                    [get("addr", "NPU_SET_DMA0_SRC"), get("addr", "NPU_SET_DMA0_DST"), get("addr", "NPU_SET_DMA0_LEN")];
                assert_eq!(dma, [n[0], n[1], n[n.len() - 1]], "{at}");
            } else {
                // `size=W,H stride=X,Y, dilation=X,Y padding=[t:T,l:L,b:B,r:R,n:0,f:0] OFM Block=[1, H, W, C]`.
                let [w, h, sx, sy, dx, dy, t, l, b, r, _, _, _, bh, bw, bc] = n[..16] else { panic!("{at}") };
                assert_eq!(op.ofm_block().unwrap(), [bh, bw, bc], "{at}");
                // An elementwise operation reads no kernel, stride or padding: Vela leaves those
                // registers as the operation before set them.
                if op.command.name != "NPU_OP_ELEMENTWISE" {
                    assert_eq!(op.kernel().unwrap(), [w, h], "{at}");
                    assert_eq!(op.stride().unwrap(), [sx, sy], "{at}");
                    assert_eq!(op.dilation().unwrap(), [dx, dy], "{at}");
                    assert_eq!(op.padding().unwrap(), [t, l, b, r], "{at}");
                }
            }
            checked += 1;
        }
        assert!(checked >= 10, "{name}: {checked} operations");
    }
}

#[test]
fn corrupted_streams_decode_or_fail_at_a_command_never_panic() {
    let payload =
        payload_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite"));
    // The same corruptions every run.
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let (mut failed, mut runs) = (0, 0);
    for _ in 0..3000 {
        let mut words = payload.stream.clone();
        for _ in 0..1 + next() % 3 {
            if words.is_empty() {
                break;
            }
            let i = (next() % words.len() as u64) as usize;
            match next() % 3 {
                0 => words[i] ^= 1 << (next() % 32),
                1 => words[i] = next() as u32,
                _ => words.truncate(i),
            }
        }
        match decode(&words) {
            Ok(decoded) => {
                runs += 1;
                for op in operations(&decoded) {
                    let _ = (op.kernel(), op.stride(), op.padding(), op.ofm_block());
                }
            }
            Err(e) => {
                failed += 1;
                assert!(e.to_string().starts_with("command stream, offset 0x"), "{e}");
            }
        }
    }
    // Most corruptions break the stream; some leave one that still decodes (a changed address).
    assert!(failed > 1000 && runs > 100, "{failed} failed, {runs} decoded");
}

/// The bytes at `address` of `region`: region 0 is the read-only tensor (Vela's "flash"); the
/// scratch regions 1 and 2 (the same tensor by default) hold what DMA copied there.
fn bytes_at(flash: &[u8], scratch: &[u8], op: &Operation, (region, address, length): (u64, u64, u64)) -> Vec<u8> {
    let (start, end) = (address as usize, (address + length) as usize);
    match region {
        0 => flash[start..end].to_vec(),
        1 | 2 => scratch[start..end].to_vec(),
        _ => panic!("at {:#x}: weights in region {region}", op.offset),
    }
}

#[test]
fn every_weight_stream_of_velas_models_decodes() {
    let (mut streams, mut exact) = (0, 0);
    for dir in models() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let model = dir.join("model_vela.tflite");
        let flash = operand_of(&model, 1).expect("the read-only tensor");
        let mut scratch = vec![0u8; 1 << 20];
        for op in operations(&decode(&payload_of(&model).stream).unwrap()) {
            let get = |command: &str, field: &str| op.register(command, field).unwrap();
            match op.command.name {
                "NPU_OP_DMA_START" if get("NPU_SET_DMA0_DST_REGION", "region_mode") == 0 => {
                    let src = (get("NPU_SET_DMA0_SRC_REGION", "region"), get("NPU_SET_DMA0_SRC", "addr"));
                    let length = get("NPU_SET_DMA0_LEN", "addr");
                    let copied = bytes_at(&flash, &scratch, &op, (src.0, src.1, length));
                    let dst = get("NPU_SET_DMA0_DST", "addr") as usize;
                    scratch[dst..dst + copied.len()].copy_from_slice(&copied);
                }
                "NPU_OP_CONV" | "NPU_OP_DEPTHWISE" => {
                    let [w, h] = op.kernel().unwrap();
                    let ofm = get("NPU_SET_OFM_DEPTH_M1", "depth_m1") + 1;
                    let ifm =
                        if op.command.name == "NPU_OP_CONV" { get("NPU_SET_IFM_DEPTH_M1", "depth_m1") + 1 } else { 1 };
                    // A dual-core configuration splits the weights over two streams.
                    let dual = op.registers.get("NPU_SET_PARALLEL_MODE", "parallel_mode") == Some(1);
                    let mut decoded = 0;
                    for (base, length) in [
                        ("NPU_SET_WEIGHT_BASE", "NPU_SET_WEIGHT_LENGTH"),
                        ("NPU_SET_WEIGHT1_BASE", "NPU_SET_WEIGHT1_LENGTH"),
                    ]
                    .into_iter()
                    .take(if dual { 2 } else { 1 })
                    {
                        let region = get("NPU_SET_WEIGHT_REGION", "region");
                        let stream =
                            bytes_at(&flash, &scratch, &op, (region, get(base, "addr"), get(length, "length")));
                        let weights = weights::decode(&stream, 1 << 24)
                            .unwrap_or_else(|e| panic!("{name} at {:#x}: {e}", op.offset));
                        decoded += weights.len() as u64;
                        streams += 1;
                    }
                    // The streams hold every weight, padded to the blocks the NPU reads in: as many
                    // as the layouts the registers give, the OFM channels and block shared by the
                    // cores in turn.
                    assert!(decoded >= w * h * ifm * ofm, "{name} at {:#x}: {decoded}", op.offset);
                    let [dx, dy] = op.dilation().unwrap();
                    let cores = if dual { 2 } else { 1 };
                    let mut expected = 0;
                    for core in 0..cores {
                        let layout = Layout {
                            ifm_ublock: 8,
                            ofm_ublock: if name.ends_with("u55-32") { 4 } else { 8 },
                            ofm_depth: (ofm as usize - core).div_ceil(cores),
                            kernel: [h as usize, w as usize],
                            ifm_depth: ifm as usize,
                            ofm_block_depth: (op.ofm_block().unwrap()[2] as usize + cores - 1 - core) / cores,
                            depthwise: op.command.name == "NPU_OP_DEPTHWISE",
                            part_kernel: get("NPU_SET_KERNEL_STRIDE", "weight_order") == 1,
                            ifm_bits: 8 << get("NPU_SET_IFM_PRECISION", "activation_precision"),
                            decomposition: [8 / dy as usize, 8 / dx as usize],
                        };
                        expected += layout.order().len();
                    }
                    assert_eq!(decoded as usize, expected, "{name} at {:#x}", op.offset);
                    exact += 1;
                }
                _ => {}
            }
        }
    }
    assert!(streams > 100 && exact > 100, "{streams} streams, {exact} of their operations' layouts");
}

/// The ethos-u operator of the Vela model at `path`.
fn operator_of(path: &Path) -> EthosUOperator {
    let model = std::fs::read(path).unwrap();
    let index = umac_frontend::tflite::operators(&model).unwrap().iter().position(|op| op.kind == "ethos-u").unwrap();
    EthosUOperator::read(&model, index).unwrap()
}

#[test]
fn velas_streams_keep_the_rules() {
    for dir in models() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        // The regions as the model lays them out: on the U55 the scratch and fast scratch are
        // one tensor, on the U65 two (Vela's default memory modes).
        let operator = operator_of(&dir.join("model_vela.tflite"));
        let ops = operations(&decode(&operator.payload.stream).unwrap());
        let findings =
            rules::check(&operator.payload.config, &ops, &operator.regions()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            findings.is_empty(),
            "{name}: {}",
            findings.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
        );
    }
}

#[test]
fn a_stream_without_its_waits_breaks_the_rules() {
    // Every DMA_WAIT and KERNEL_WAIT of KWS's stream taken out, one at a time: the checker finds
    // the operation it protected (a wait that protects nothing is reported as such).
    let operator =
        operator_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite"));
    let (payload, regions) = (&operator.payload, operator.regions());
    let decoded = decode(&payload.stream).unwrap();
    let (mut waits, mut caught) = (0, 0);
    for wait in decoded.iter().filter(|i| i.command.name.ends_with("_WAIT")) {
        let mut words = payload.stream.clone();
        words.remove(wait.offset / 4);
        let ops = operations(&decode(&words).unwrap());
        waits += 1;
        if !rules::check(&payload.config, &ops, &regions).unwrap().is_empty() {
            caught += 1;
        }
    }
    assert!(waits >= 10, "{waits}");
    assert_eq!(caught, waits, "{caught} of {waits} waits removed were caught");
}

#[test]
fn a_blockdep_raised_past_velas_breaks_the_rules() {
    // Every NPU_SET_BLOCKDEP below 3 after a kernel in Vela's streams raised to 3, one at a time:
    // the checker finds a job reading what the kernel before may still be writing. Four raises
    // are safe: Vela takes a job's IFM block unclipped at the padding, so it sees the job reach
    // one row further than it reads (the job's OFM rows 0-6 under a 3x3 kernel with a row of
    // padding read IFM rows 0-7; Vela's 9-row block ends at row 8, which the kernel before writes
    // last), and sets a smaller BLOCKDEP than the rule needs. Six more, one in each configuration's
    // stream of the stacked LSTM, are safe too: a fully connected layer reads one time step of
    // the output sequence (its row at 0x50, rows 0x140 bytes apart) right after a copy writes
    // another (the row at 0x180). The two touch no byte in common, but they are slices of one
    // tensor, whose address ranges interleave, and Vela holds BLOCKDEP to 1 for that.
    let (mut raised, mut caught) = (0, 0);
    let mut missed = Vec::new();
    for dir in models() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let operator = operator_of(&dir.join("model_vela.tflite"));
        let (payload, regions) = (&operator.payload, operator.regions());
        let decoded = decode(&payload.stream).unwrap();
        let kernels = ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE"];
        let first_kernel =
            operations(&decoded).iter().find(|op| kernels.contains(&op.command.name)).map(|op| op.offset);
        for set in decoded.iter().filter(|i| i.command.name == "NPU_SET_BLOCKDEP") {
            if set.param >= 3 || first_kernel.is_none_or(|k| set.offset < k) {
                continue;
            }
            let mut words = payload.stream.clone();
            words[set.offset / 4] = 0x0003_012f;
            raised += 1;
            if rules::check(&payload.config, &operations(&decode(&words).unwrap()), &regions).unwrap().is_empty() {
                missed.push(format!("{name} {:#x}", set.offset));
            } else {
                caught += 1;
            }
        }
    }
    assert!(raised > 100, "{raised}");
    assert_eq!(
        missed,
        [
            "lstmstack-ethos-u55-128 0x7e90",
            "lstmstack-ethos-u55-256 0x7e90",
            "lstmstack-ethos-u55-32 0x7e90",
            "lstmstack-ethos-u55-64 0x7e90",
            "lstmstack-ethos-u65-256 0x9490",
            "lstmstack-ethos-u65-512 0xa594",
            "vww-ethos-u55-128 0x63c",
            "vww-ethos-u55-256 0x7c8",
            "vww-ethos-u55-32 0x910",
            "vww-ethos-u55-64 0xa60"
        ],
        "{caught} of {raised} caught"
    );
}

#[test]
fn the_shram_rules_catch_areas_that_do_not_fit_and_a_table_never_put() {
    // KWS on the U55-128 (24 SHRAM banks): its first convolution keeps its IFM blocks in banks
    // 2-9 (IB_END 10) and its accumulators from bank 14 (AB_START), its softmax's subtraction
    // reads table 0, 1 KiB a DMA puts at 0x5800 (the last 2 KiB of the SHRAM hold the tables).
    let operator =
        operator_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela/kws-ethos-u55-128/model_vela.tflite"));
    let (payload, regions) = (&operator.payload, operator.regions());
    let findings = |edit: &dyn Fn(&mut Vec<u32>)| -> Vec<String> {
        let mut words = payload.stream.clone();
        edit(&mut words);
        let ops = operations(&decode(&words).unwrap());
        rules::check(&payload.config, &ops, &regions).unwrap().iter().map(|f| f.to_string()).collect()
    };
    assert_eq!(findings(&|_| {}), Vec::<String>::new());
    let at = |words: &[u32], word: u32| words.iter().position(|&w| w == word).unwrap();
    // Accumulators from bank 9, inside the IFM's.
    let overlapping = findings(&|w| {
        let i = at(w, 0x000e_012d);
        w[i] = 0x0009_012d;
    });
    assert!(
        overlapping[0].contains("its accumulators start at SHRAM bank 9, within its IFM's (to bank 10)"),
        "{overlapping:?}"
    );
    // The IFM's blocks given banks 2-3 alone. By hand: the 4x10 kernel at stride 2 under the
    // OFM block of 10x6x16 clipped to the 25x5x16 OFM reaches (10 - 1) · 2 + 8 = 26 rows (8 of
    // the kernel's 10 at a time) and (5 - 1) · 2 + 4 = 12 columns of the 1-channel IFM, taken 8
    // deep (part-kernel first): 26 · 12 · 8 bytes, 3 banks, twice.
    let small = findings(&|w| {
        let i = at(w, 0x000a_010d);
        w[i] = 0x0004_010d;
    });
    assert!(
        small[0].contains("its IFM blocks (26x12x8, twice) take 6 SHRAM banks from bank 2, it gives them up to bank 4"),
        "{small:?}"
    );
    // Accumulators from bank 20: 10 · 5 · 16 of 32 bits, 4 banks, twice, run to bank 28.
    let past = findings(&|w| {
        let i = at(w, 0x000e_012d);
        w[i] = 0x0014_012d;
    });
    assert!(past[0].contains("its SHRAM areas end at bank 28, past the 24 banks of the SHRAM"), "{past:?}");
    // The table's DMA taken out: the subtraction reads bytes no DMA put there.
    let unput = findings(&|w| {
        // DMA0_DST_REGION: region 3 in DMA_REGION_MODE_INTERNAL.
        let dma = payload.stream.iter().position(|&x| x == 0x0103_0131).unwrap();
        let start = (dma..w.len()).find(|&i| w[i] == 0x0000_0010).unwrap();
        w.remove(start);
    });
    assert_eq!(unput.len(), 1, "{unput:?}");
    assert!(
        unput[0].contains("it reads lookup table bytes 0x5800..0x5c00 of the SHRAM; from 0x5800 no DMA put them there"),
        "{unput:?}"
    );
}
