//! Fuzz test of the model readers. Files are untrusted input: on any bytes, `tflite::read`,
//! `tflite::to_tosa` and `tosa::to_mlir` return a model or an error, never panic, hang or
//! allocate without bound.
//!
//! - Byte mutations: copies of real models (test/models) with one to four mutations each (bits
//!   flipped; bytes set to 0x00/0xff/0x7f/0x80 or random; words set to lengths and offsets that
//!   overflow, or moved by a few bytes; bytes inserted or deleted; truncation), three in four in
//!   the flatbuffer's structure rather than in constant data, from a fixed splitmix64 seed.
//! - Structure-aware: the flatbuffer walked by hand (root, vtables, vectors of tables) to corrupt
//!   one thing at a time: the root offset, a vtable offset or size, vector lengths (huge counts),
//!   uoffsets to themselves or to another table (cycles, type confusion), tensors' shapes (huge
//!   or negative dimensions), types, buffers and quantization, operators' opcode and operand
//!   indices, options' scalars and fused activations. Where the file is then invalid, `read` must
//!   fail. And a model built here of 2000 operators reading one constant (quadratic text).
//! - TOSA flatbuffers: byte mutations of ExecuTorch's (test/models/pytorch) and of conformance
//!   tests of nine ops, through `tosa::to_mlir`.
//! - Every call runs on a worker thread, a hang if it takes over 2 s, and the memory it holds at
//!   its peak is measured by a counting allocator: at most 64 times the file's size, plus 16 MiB.
//!
//! A failure names the seed and the case (its mutations); both are deterministic.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
    path::{Path, PathBuf},
    sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel},
    time::Duration,
};

/// The seeds (under test/models), every legalization family in small files, and whether the
/// structure-aware cases take them too (kws-mean is mlperf-tiny's kws with MEAN for its pool).
const SEEDS: &[(&str, bool)] = &[
    ("mlperf-tiny/kws/model.tflite", false),
    ("kws-mean/model.tflite", true),
    ("lstm-16x8/lstm_small_int8.tflite", true),
    ("lstm-16x8/lstm_small_f32.tflite", true),
    ("lstm/mnist/model_int8.tflite", true),
    ("ops-16x8/softmax.tflite", true),
    ("ops-16x8/spatial.tflite", true),
    ("ops-16x8/elementwise.tflite", true),
    ("ops-16x8/pad.tflite", true),
    ("ops-16x8/quantize.tflite", true),
    // Single-operator models of the families whose legalization computes at compile time from
    // operands and options: tables, thresholds, indices, block shapes, broadcasts.
    ("tflite-ops/logistic_int16_1.tflite", true),
    ("tflite-ops/tanh_int8_0.tflite", true),
    ("tflite-ops/hard_swish_int8_1.tflite", true),
    ("tflite-ops/rsqrt_int8_1.tflite", true),
    ("tflite-ops/resize_bilinear_int8_2.tflite", true),
    ("tflite-ops/resize_nearest_neighbor_int16_1.tflite", true),
    ("tflite-ops/strided_slice_int8_4.tflite", true),
    ("tflite-ops/space_to_batch_nd_int8_1.tflite", true),
    ("tflite-ops/batch_to_space_nd_int8_1.tflite", true),
    ("tflite-ops/mirror_pad_int8_1.tflite", true),
    ("tflite-ops/gather_nd_int8_1.tflite", true),
    ("tflite-ops/embedding_lookup_int8_1.tflite", true),
    ("tflite-ops/batch_matmul_int8_2.tflite", true),
    ("tflite-ops/quantize_float32_0.tflite", true),
    ("tflite-ops/quantize_float32_3.tflite", true),
    ("tflite-ops/sum_int8_1.tflite", true),
    ("tflite-ops/arg_min_int8_0.tflite", true),
    ("tflite-ops/equal_int8_1.tflite", true),
    ("tflite-ops/select_v2_int8_2.tflite", true),
    ("tflite-ops/cast_float32_0.tflite", true),
    ("tflite-ops/add_n_int8_0.tflite", true),
    ("tflite-ops/prelu_int8_2.tflite", true),
    ("tflite-ops/broadcast_args_int32_0.tflite", true),
    ("tflite-ops/floor_mod_float32_2.tflite", true),
    ("tflite-ops/squared_difference_int16_2.tflite", true),
    ("tflite-ops/l2_pool_2d_float32_1.tflite", true),
    ("tflite-ops/l2_normalization_int8_1.tflite", true),
    // State: a variable tensor, resource variables over two subgraphs (CALL_ONCE).
    ("tflite-ops/svdf_int8_1.tflite", true),
    ("tflite-ops/call_once_int8_1.tflite", true),
];
/// Mutated copies of each seed.
const MUTANTS: usize = 250;
/// A call taking longer hangs.
const LIMIT: Duration = Duration::from_secs(2);

thread_local! {
    /// This thread's live heap bytes, and their peak since the last reset.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + delta);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

/// The system allocator, counting (its `realloc` is `alloc` and `dealloc`).
struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        track(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        track(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The reader on a thread of its own, so that a hang fails the test rather than stalling it:
/// calls (which reader, bytes) in, (whether it failed, the bytes it held at its peak) out.
struct Worker(Sender<(Call, Vec<u8>)>, Receiver<(bool, isize)>);

/// What a worker runs.
#[derive(Clone, Copy, Debug)]
enum Call {
    /// `tflite::read`.
    Read,
    /// `tflite::to_tosa` (and `tflite::to_tosa_between`).
    ToTosa,
    /// `tosa::to_mlir`, on a TOSA flatbuffer.
    TosaToMlir,
    /// The tools' listing for the converter's TOSA: `tflite::operators`, `tflite::io_quantization`
    /// and `tflite::lstm_attribute` of operator 0, `tflite::operand_data` of operator 0,
    /// `tflite::metadata`, `tflite::io_tensors` and `tflite::tensors`.
    Listing,
}

thread_local! {
    static WORKER: Worker = {
        let ((calls, inbox), (outbox, results)) = (channel::<(Call, Vec<u8>)>(), channel());
        std::thread::spawn(move || {
            for (call, bytes) in inbox {
                let base = LIVE.with(Cell::get);
                PEAK.with(|peak| peak.set(base));
                let failed = match call {
                    Call::ToTosa => {
                        // The partial legalization `umac run` uses around a device's operators
                        // too, between the first two tensors.
                        let _ = umac_frontend::tflite::to_tosa_between(&bytes, "fuzz.tflite", &[0], &[1]);
                        umac_frontend::tflite::to_tosa(&bytes, "fuzz.tflite").is_err()
                    }
                    Call::Read => umac_frontend::tflite::read(&bytes).is_err(),
                    Call::TosaToMlir => umac_frontend::tosa::to_mlir(&bytes, "fuzz.tosa").is_err(),
                    Call::Listing => {
                        let listed = umac_frontend::tflite::operators(&bytes).is_err();
                        let quantization = umac_frontend::tflite::io_quantization(&bytes).is_err();
                        let lstm = umac_frontend::tflite::lstm_attribute(&bytes, 0).is_err();
                        let data = umac_frontend::tflite::operand_data(&bytes, 0).is_err();
                        let plan = umac_frontend::tflite::metadata(&bytes, "OfflineMemoryAllocation").is_err();
                        let io = umac_frontend::tflite::io_tensors(&bytes).is_err();
                        let sizes = umac_frontend::tflite::tensors(&bytes).is_err();
                        listed || quantization || lstm || data || plan || io || sizes
                    }
                };
                let _ = outbox.send((failed, PEAK.with(Cell::get) - base));
            }
        });
        Worker(calls, results)
    };
}

/// Runs `read` and `to_tosa` on `bytes`, failing the test, named by `case`, when either panics,
/// hangs or holds too much memory. Returns whether `read` failed.
fn check(case: &str, bytes: &[u8]) -> bool {
    check_calls(case, bytes, &[Call::Read, Call::ToTosa, Call::Listing])
}

/// Runs `calls` on `bytes` as [`check`] does; returns whether the first failed.
fn check_calls(case: &str, bytes: &[u8], calls_made: &[Call]) -> bool {
    let bound = 64 * bytes.len() as isize + (16 << 20);
    WORKER.with(|Worker(calls, results)| {
        let mut first_failed = None;
        for &call in calls_made {
            let _ = calls.send((call, bytes.to_vec()));
            let (failed, peak) = match results.recv_timeout(LIMIT) {
                Ok(result) => result,
                Err(RecvTimeoutError::Timeout) => panic!("{call:?} hangs (over {LIMIT:?}) on {case}"),
                Err(RecvTimeoutError::Disconnected) => panic!("{call:?} panicked on {case}"),
            };
            assert!(peak <= bound, "{call:?} held {peak} bytes at its peak on {case} ({} bytes)", bytes.len());
            first_failed.get_or_insert(failed);
        }
        first_failed.unwrap_or(false)
    })
}

fn seed(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/models").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// A walker of the flatbuffer's layout (little endian; tables start with an soffset to their
// vtable, which lists field offsets after its own size and the table's). The seeds are valid,
// so it indexes without checks.

fn u16_at(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([b[at], b[at + 1]]))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
/// What the uoffset at `at` refers to.
fn deref(b: &[u8], at: usize) -> usize {
    at + u32_at(b, at) as usize
}
fn vtable(b: &[u8], table: usize) -> usize {
    (table as i64 - i64::from(u32_at(b, table) as i32)) as usize
}
/// Where field `id` of `table` is, if present.
fn field(b: &[u8], table: usize, id: usize) -> Option<usize> {
    let (vt, slot) = (vtable(b, table), 4 + 2 * id);
    (slot + 2 <= u16_at(b, vt)).then(|| u16_at(b, vt + slot)).filter(|&o| o != 0).map(|o| table + o)
}
/// Where the length of the vector in field `id` of `table` is, if present.
fn vector(b: &[u8], table: usize, id: usize) -> Option<usize> {
    field(b, table, id).map(|f| deref(b, f))
}
/// Where the 4-byte elements of the vector in field `id` of `table` are.
fn elements(b: &[u8], table: usize, id: usize) -> Vec<usize> {
    vector(b, table, id).map_or(vec![], |v| (0..u32_at(b, v) as usize).map(|i| v + 4 + 4 * i).collect())
}
fn tables(b: &[u8], table: usize, id: usize) -> Vec<usize> {
    elements(b, table, id).into_iter().map(|e| deref(b, e)).collect()
}

/// The tables of a model: the root, its first subgraph, and their vectors of tables.
struct Map {
    model: usize,
    subgraph: usize,
    codes: Vec<usize>,
    buffers: Vec<usize>,
    tensors: Vec<usize>,
    operators: Vec<usize>,
}

impl Map {
    fn new(b: &[u8]) -> Map {
        let model = deref(b, 0);
        let subgraph = tables(b, model, 2)[0];
        let (codes, buffers) = (tables(b, model, 1), tables(b, model, 4));
        Map { model, subgraph, codes, buffers, tensors: tables(b, subgraph, 0), operators: tables(b, subgraph, 3) }
    }
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Applies one random mutation to `b`, three times in four at one of the `structure` positions
/// (the seed's bytes outside constant data); returns what it did.
fn mutate(rng: &mut Rng, b: &mut Vec<u8>, structure: &[usize]) -> String {
    const BYTES: [u8; 4] = [0x00, 0xff, 0x7f, 0x80];
    const WORDS: [u32; 8] = [0, 1, 4, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_fffc, u32::MAX];
    if b.len() < 8 {
        b.extend((0..8).map(|_| rng.next() as u8));
        return "8 random bytes appended".into();
    }
    let at = if rng.below(4) > 0 { structure[rng.below(structure.len())] } else { rng.below(b.len()) };
    let at = at.min(b.len() - 4);
    let (word_at, n) = (at & !3, 1 + rng.below(8));
    let word = |b: &mut Vec<u8>, value: u32| {
        b[word_at..word_at + 4].copy_from_slice(&value.to_le_bytes());
        format!("word at {word_at} = {value:#x}")
    };
    match rng.below(16) {
        0..=3 => {
            let bit = rng.below(8);
            b[at] ^= 1 << bit;
            format!("bit {bit} of byte {at} flipped")
        }
        4..=7 => {
            b[at] = if rng.below(4) == 0 { rng.next() as u8 } else { BYTES[rng.below(4)] };
            format!("byte {at} = {:#04x}", b[at])
        }
        8..=10 => word(b, WORDS[rng.below(WORDS.len())]),
        11 => word(b, u32_at(b, word_at).wrapping_add(rng.below(17) as u32).wrapping_sub(8)),
        12 | 13 => {
            let _ = b.splice(at..at, (0..n).map(|_| rng.next() as u8));
            format!("{n} random bytes inserted at {at}")
        }
        14 => {
            let n = n.min(b.len() - at);
            b.drain(at..at + n);
            format!("{n} bytes deleted at {at}")
        }
        _ => {
            b.truncate(at);
            format!("truncated to {at} bytes")
        }
    }
}

#[test]
fn byte_mutations() {
    for (s, (name, _)) in SEEDS.iter().enumerate() {
        let original = seed(name);
        assert!(!check(name, &original), "{name} is not read");
        let buffers = Map::new(&original).buffers;
        let data: Vec<_> = buffers.iter().filter_map(|&buffer| vector(&original, buffer, 0)).collect();
        let in_data = |i: usize| data.iter().any(|&v| (v + 4..v + 4 + u32_at(&original, v) as usize).contains(&i));
        let structure: Vec<usize> = (0..original.len()).filter(|&i| !in_data(i)).collect();
        for iteration in 0..MUTANTS {
            let mut rng = Rng((s as u64) << 32 | iteration as u64);
            let mut bytes = original.clone();
            let mutations: Vec<String> =
                (0..1 + rng.below(4)).map(|_| mutate(&mut rng, &mut bytes, &structure)).collect();
            check(&format!("{name}, mutant #{iteration}: {}", mutations.join(", ")), &bytes);
        }
    }
}

/// The TOSA reader on mutated TOSA flatbuffers: ExecuTorch's (test/models/pytorch) and
/// conformance tests' of several ops (test/tosa-conformance).
#[test]
fn tosa_byte_mutations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seeds: Vec<PathBuf> =
        ["cnn", "mlp", "residual"].iter().map(|m| root.join(format!("test/models/pytorch/{m}/model.tosa"))).collect();
    for op in ["conv2d", "rescale", "clamp", "transpose", "table", "resize", "pad", "concat", "custom"] {
        let dir = root.join("test/tosa-conformance");
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(op)))
            .flat_map(|p| std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path().join("test.tosa")))
            .filter(|p| p.is_file())
            .collect();
        cases.sort();
        seeds.extend(cases.into_iter().take(1));
    }
    assert!(seeds.len() >= 10, "{seeds:?}");
    for (s, path) in seeds.iter().enumerate() {
        let original = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.display().to_string();
        assert!(!check_calls(&name, &original, &[Call::TosaToMlir]), "{name} is not read");
        let structure: Vec<usize> = (0..original.len()).collect();
        for iteration in 0..MUTANTS {
            let mut rng = Rng(0x7053_u64 << 48 | (s as u64) << 32 | iteration as u64);
            let mut bytes = original.clone();
            let mutations: Vec<String> =
                (0..1 + rng.below(4)).map(|_| mutate(&mut rng, &mut bytes, &structure)).collect();
            check_calls(&format!("{name}, mutant #{iteration}: {}", mutations.join(", ")), &bytes, &[Call::TosaToMlir]);
        }
    }
}

/// Copies of a seed, each with one corruption: (what it is, the bytes, whether `read` must fail).
struct Cases<'s>(&'s [u8], Vec<(String, Vec<u8>, bool)>);

impl Cases<'_> {
    /// The seed with each `(at, bytes)` written, unless there is none or one is out of the file.
    fn edit(&mut self, what: String, edits: &[(usize, &[u8])], must_fail: bool) {
        let mut copy = self.0.to_vec();
        let mut write =
            |&(at, bytes): &(usize, &[u8])| copy.get_mut(at..at + bytes.len()).map(|b| b.copy_from_slice(bytes));
        if !edits.is_empty() && edits.iter().all(|edit| write(edit).is_some()) {
            self.1.push((what, copy, must_fail));
        }
    }
    /// The seed with `bytes` at `at` (`what` names the field there), if it has that field.
    fn write(&mut self, what: &str, at: Option<usize>, bytes: &[u8], must_fail: bool) {
        let edits: Vec<_> = at.map(|at| (at, bytes)).into_iter().collect();
        self.edit(format!("{what} = {bytes:02x?} (at {at:?})"), &edits, must_fail);
    }
}

fn structural(b: &[u8]) -> Vec<(String, Vec<u8>, bool)> {
    let (m, len, mut c) = (Map::new(b), b.len(), Cases(b, vec![]));
    // The root: its offset, its vtable's offset and size, the subgraphs' slot in it.
    for v in [0, 4, len as u32 - 4, len as u32, 0x7fff_ffff, u32::MAX] {
        c.write("root offset", Some(0), &v.to_le_bytes(), v as usize > len - 4);
    }
    let vt = vtable(b, m.model);
    for v in [0, 2, -4, 4 - m.model as i32, i32::MIN, i32::MAX] {
        let bad = v == 0 || !(0..len as i64 - 4).contains(&(m.model as i64 - i64::from(v)));
        c.write("the model's vtable offset", Some(m.model), &v.to_le_bytes(), bad);
    }
    for v in [0u16, 2, 3, 0xfffe, 0xffff] {
        let bad = v < 4 || v % 2 == 1 || vt + usize::from(v) > len;
        c.write("the model's vtable size", Some(vt), &v.to_le_bytes(), bad);
    }
    for v in [0u16, 2, 0xffff] {
        let bad = v == 0 || m.model + usize::from(v) + 4 > len;
        c.write("the model's subgraphs slot", Some(vt + 8), &v.to_le_bytes(), bad);
    }
    // Vectors' lengths, by (whose, table, fields): huge counts must fail (they do not fit in the
    // file), small ones are read. Uoffsets, as (which, where, whether to a table), for below.
    let mut vectors = vec![
        ("the model".to_string(), m.model, [1, 2, 4].to_vec()),
        ("the subgraph".into(), m.subgraph, vec![0, 1, 2, 3]),
    ];
    let mut offsets = vec![("the model's subgraph #0".to_string(), elements(b, m.model, 2).first().copied(), true)];
    for (t, &tensor) in m.tensors.iter().enumerate() {
        vectors.push((format!("tensor #{t}"), tensor, vec![0]));
        offsets.extend([3, 4].map(|f| (format!("tensor #{t}'s field {f}"), field(b, tensor, f), f == 4)));
        let buffer = field(b, tensor, 2).map_or(0, |f| u32_at(b, f) as usize);
        if let Some(&buffer) = m.buffers.get(buffer).filter(|_| buffer > 0) {
            vectors.push((format!("tensor #{t}'s buffer"), buffer, vec![0]));
        }
    }
    for (o, &op) in m.operators.iter().enumerate() {
        vectors.push((format!("operator #{o}"), op, vec![1, 2]));
        offsets.push((format!("operator #{o}'s options"), field(b, op, 4), true));
    }
    for (whose, table, fields) in vectors {
        for f in fields {
            offsets.push((format!("{whose}'s field {f}"), field(b, table, f), false));
            let Some(at) = vector(b, table, f) else { continue };
            for v in [0x4000_0000, 0x7fff_ffff, u32::MAX, 0, u32_at(b, at) + 1] {
                let must_fail = v >= 0x4000_0000 || v == 0 && table == m.model && f == 2;
                c.write(&format!("length of {whose}'s field {f}"), Some(at), &v.to_le_bytes(), must_fail);
            }
        }
    }
    // Uoffsets (all followed): to themselves (a cycle), to another table, past the end; a
    // table's vtable at the table itself.
    let mut known = [m.model, m.subgraph].to_vec();
    known.extend(m.tensors.iter().chain(&m.operators).chain(&m.buffers).chain(&m.codes));
    for (what, at, table) in offsets {
        let Some(at) = at else { continue };
        let other = known.iter().filter(|&&t| t > at && t != deref(b, at)).min().map_or(0, |&t| t - at);
        for (v, to, must_fail) in [(0, "itself", false), (other, "another table", false), (len, "past the end", true)] {
            c.write(&format!("{what}'s offset (to {to})"), Some(at), &(v as u32).to_le_bytes(), must_fail);
        }
        if table {
            c.write(&format!("{what}'s vtable offset (to itself)"), Some(deref(b, at)), &[0; 4], true);
        }
    }
    // Tensors: shapes (huge, negative; empty ones whose other dimensions multiply past i64),
    // types, buffers, quantization.
    let (mut scales, mut zero_points) = (vec![], vec![]);
    for (t, &tensor) in m.tensors.iter().enumerate() {
        let what = |field: &str| format!("tensor #{t}'s {field}");
        let shape = elements(b, tensor, 0);
        let rank = shape.len();
        let huge = [i32::MAX, i32::MAX, i32::MAX, 0];
        let shapes = [(&[-1][..], true), (&[i32::MIN, 1], true), (&[0], false), (&[0x10000], rank > 1)];
        for (dims, must_fail) in shapes.into_iter().chain([(&huge[..], rank > 1), (&[0, i32::MAX], rank > 3)]) {
            let bytes: Vec<u8> = dims.iter().cycle().take(rank).flat_map(|v| v.to_le_bytes()).collect();
            c.write(&what("shape"), shape.first().copied(), &bytes, must_fail);
        }
        for (v, must_fail) in [(0xff, true), (1, true), (3, true), (5, true), (127, true), (0, false), (9, false)] {
            c.write(&what("type"), field(b, tensor, 1), &[v], must_fail);
        }
        for v in [m.buffers.len() as u32, u32::MAX] {
            c.write(&what("buffer"), field(b, tensor, 2), &v.to_le_bytes(), true);
        }
        let Some(q) = field(b, tensor, 4).map(|f| deref(b, f)) else { continue };
        let scale = elements(b, q, 2).first().copied();
        scales.extend(scale);
        zero_points.extend(vector(b, q, 3).filter(|&v| u32_at(b, v) > 0).map(|v| v + 4));
        c.write(&what("scale"), scale, &(-1e-30f32).to_le_bytes(), false);
        for v in [-1, i32::MAX] {
            c.write(&what("quantized dimension"), field(b, q, 6), &v.to_le_bytes(), v < 0);
        }
    }
    // Every tensor's scale, or zero point, at once.
    for v in [f32::NAN, f32::INFINITY, -f32::INFINITY, 0.0, -1e-30, 1e-30, 1e-40, 1e30] {
        let bytes = v.to_le_bytes();
        c.edit(format!("every scale = {v}"), &scales.iter().map(|&at| (at, &bytes[..])).collect::<Vec<_>>(), false);
    }
    for v in [i64::MIN, i64::MAX, 1 << 40, -129] {
        let (bytes, what) = (v.to_le_bytes(), format!("every zero point = {v}"));
        c.edit(what, &zero_points.iter().map(|&at| (at, &bytes[..])).collect::<Vec<_>>(), false);
    }
    // Operators: opcode and operand indices, options' type and scalars, fused activations.
    let count = m.tensors.len() as i32;
    for (o, &op) in m.operators.iter().enumerate() {
        let what = |field: &str| format!("operator #{o}'s {field}");
        for v in [m.codes.len() as u32, u32::MAX] {
            c.write(&what("opcode index"), field(b, op, 0), &v.to_le_bytes(), true);
        }
        for (f, name) in [(1, "input"), (2, "output")] {
            for at in elements(b, op, f) {
                for v in [-2, count, i32::MAX, i32::MIN, -1, 0] {
                    c.write(&what(name), Some(at), &v.to_le_bytes(), v < -1 || v >= count || v == -1 && f == 2);
                }
            }
        }
        let tag = field(b, op, 3);
        for v in [0, 1, 2, 5, 8, 9, 17, 255] {
            c.write(&what("options type"), tag, &[v], false);
        }
        let Some(options) = field(b, op, 4).map(|f| deref(b, f)) else { continue };
        for at in (0..12).filter_map(|f| field(b, options, f)) {
            let words = [0, -1, i32::MIN, i32::MAX].map(|v| v.to_le_bytes().to_vec());
            for v in [[0x03].to_vec(), [0x80].to_vec(), [0xff].to_vec()].into_iter().chain(words) {
                c.write(&what("options field"), Some(at), &v, false);
            }
        }
        // RELU_N1_TO_1 or RELU6 on an output of tiny scale: the clamp's bounds pass i64.
        let activation = match tag.map(|at| b[at]) {
            Some(1) => 3,
            Some(2) => 4,
            Some(5) => 5,
            Some(8 | 11 | 28) => 0,
            _ => continue,
        };
        let output = elements(b, op, 2).first().map(|&e| m.tensors[u32_at(b, e) as usize]);
        let scale = output.and_then(|t| field(b, t, 4)).and_then(|f| elements(b, deref(b, f), 2).first().copied());
        let (Some(at), Some(scale)) = (field(b, options, activation), scale) else { continue };
        for (v, s) in [(2, 1e-30f32), (3, 1e-30), (3, -1e-30)] {
            let what = format!("operator #{o}'s activation = {v}, its output's scale = {s}");
            c.edit(what, &[(at, &[v]), (scale, &s.to_le_bytes())], false);
        }
    }
    // Operator codes: the deprecated builtin code (a byte), the builtin code (an int).
    for (k, &code) in m.codes.iter().enumerate() {
        for (f, v) in [(0, &[0xff][..]), (0, &[0x7f]), (3, &[0xff; 4]), (3, &[0xe8, 3, 0, 0])] {
            c.write(&format!("operator code #{k}'s field {f}"), field(b, code, f), v, false);
        }
    }
    c.1
}

#[test]
fn structure_aware() {
    let (mut total, mut taken) = (0, vec![]);
    for (name, _) in SEEDS.iter().filter(|(_, structural)| *structural) {
        for (case, bytes, must_fail) in structural(&seed(name)) {
            let case = format!("{name}: {case}");
            if !check(&case, &bytes) && must_fail {
                taken.push(case);
            }
            total += 1;
        }
    }
    eprintln!("{total} structure-aware cases");
    assert!(taken.is_empty(), "read took {} invalid files:\n{}", taken.len(), taken.join("\n"));
}

/// Appends a table to `b` whose fields are all 4-byte words (`None`: absent), after its vtable;
/// returns where it starts and where its words are.
fn table(b: &mut Vec<u8>, fields: &[Option<u32>]) -> (usize, Vec<usize>) {
    let n = fields.len() as u16;
    let slots = fields.iter().zip(0..).map(|(f, i)| if f.is_some() { 4 + 4 * i } else { 0 });
    let vtable: Vec<u16> = [4 + 2 * n, 4 + 4 * n].into_iter().chain(slots).chain((n % 2 == 1).then_some(0)).collect();
    b.extend(vtable.iter().flat_map(|v| v.to_le_bytes()));
    let start = b.len();
    b.extend((2 * vtable.len() as i32).to_le_bytes());
    (start, fields.iter().map(|f| (b.len(), b.extend(f.unwrap_or(0).to_le_bytes())).0).collect())
}

/// Appends a vector of words; returns where it and its words are.
fn words(b: &mut Vec<u8>, words: &[u32]) -> (usize, Vec<usize>) {
    let at = b.len();
    b.extend((words.len() as u32).to_le_bytes());
    (at, words.iter().map(|w| (b.len(), b.extend(w.to_le_bytes())).0).collect())
}

/// Points the uoffsets at `at` to `to`, later in `b`.
fn link(b: &mut [u8], links: &[(usize, usize)]) {
    for &(at, to) in links {
        b[at..at + 4].copy_from_slice(&((to - at) as u32).to_le_bytes());
    }
}

/// A model of 2000 RESHAPEs of one constant of 64 KiB: were each to write the constant, the text
/// of `to_tosa` would grow as the square of the file's size.
#[test]
fn shared_constant() {
    let (n, size) = (2000, 1 << 16);
    let mut b = [0, 0, 0, 0].iter().chain(b"TFL3").copied().collect::<Vec<u8>>();
    let (model, fields) = table(&mut b, &[None, Some(0), Some(0), None, Some(0)]);
    let (codes, code) = words(&mut b, &[0]);
    let reshape = table(&mut b, &[Some(22), None, None, Some(22)]).0;
    let (subgraphs, subgraph) = words(&mut b, &[0]);
    let (at, subgraph_fields) = table(&mut b, &[Some(0), None, None, Some(0)]);
    link(&mut b, &[(0, model), (fields[1], codes), (code[0], reshape), (fields[2], subgraphs), (subgraph[0], at)]);
    let (tensors, tensor) = words(&mut b, &vec![0; n + 1]);
    let (constant, constant_fields) = table(&mut b, &[Some(0), Some(9), Some(1)]);
    let (result, result_fields) = table(&mut b, &[Some(0), Some(9), None]);
    let shape = words(&mut b, &[size]).0;
    link(&mut b, &[(subgraph_fields[0], tensors), (tensor[0], constant)]);
    link(&mut b, &[(constant_fields[0], shape), (result_fields[0], shape)]);
    link(&mut b, &tensor[1..].iter().map(|&t| (t, result)).collect::<Vec<_>>());
    let (operators, operator) = words(&mut b, &vec![0; n]);
    link(&mut b, &[(subgraph_fields[3], operators)]);
    let mut inputs = vec![];
    for (i, &at) in operator.iter().enumerate() {
        let (op, op_fields) = table(&mut b, &[None, Some(0), Some(0)]);
        let outputs = words(&mut b, &[i as u32 + 1]).0;
        link(&mut b, &[(at, op), (op_fields[2], outputs)]);
        inputs.push(op_fields[1]);
    }
    let input = words(&mut b, &[0]).0;
    link(&mut b, &inputs.iter().map(|&at| (at, input)).collect::<Vec<_>>());
    let (buffers, buffer) = words(&mut b, &[0, 0]);
    let (empty, (data, data_fields)) = (table(&mut b, &[]).0, table(&mut b, &[Some(0)]));
    let bytes = words(&mut b, &[]).0;
    link(&mut b, &[(fields[4], buffers), (buffer[0], empty), (buffer[1], data), (data_fields[0], bytes)]);
    b[bytes..bytes + 4].copy_from_slice(&size.to_le_bytes());
    b.extend((0..size).map(|i| i as u8));
    assert_eq!(umac_frontend::tflite::read(&b).map(|m| m.main().operators.len()), Ok(n));
    check("a constant shared by 2000 operators", &b);
}

/// One subgraph listed 4000 times, its tensor list 4000 slots of one tensor of 64 dimensions: a
/// file of 33 KB describing 16 million tensors. Reading it stops at a bound, with an error.
#[test]
fn shared_tables() {
    let n = 4000;
    let mut b = [0, 0, 0, 0].iter().chain(b"TFL3").copied().collect::<Vec<u8>>();
    let (model, fields) = table(&mut b, &[None, None, Some(0)]);
    let (subgraphs, subgraph) = words(&mut b, &vec![0; n]);
    let (at, subgraph_fields) = table(&mut b, &[Some(0)]);
    link(&mut b, &[(0, model), (fields[2], subgraphs)]);
    link(&mut b, &subgraph.iter().map(|&s| (s, at)).collect::<Vec<_>>());
    let (tensors, tensor) = words(&mut b, &vec![0; n]);
    let (one, one_fields) = table(&mut b, &[Some(0), Some(9)]);
    let shape = words(&mut b, &[1; 64]).0;
    link(&mut b, &[(subgraph_fields[0], tensors), (one_fields[0], shape)]);
    link(&mut b, &tensor.iter().map(|&t| (t, one)).collect::<Vec<_>>());
    let error = umac_frontend::tflite::read(&b).map(|m| m.subgraphs.len()).unwrap_err();
    assert!(error.message.contains("more than 16 times its size"), "{error:?}");
    assert!(check("one subgraph and one tensor shared 4000 times each", &b));
}
