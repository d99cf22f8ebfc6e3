//! What stays in DM from one kernel to the next.
//!
//! Activations: when a kernel's output is read by the next kernel only (a window kernel's input,
//! or either operand of a primitive add or sub), and nothing else runs on the NPU between them,
//! the producer copies its output tiles into a slot at the top of DM instead of back to DDR, and
//! the consumer copies its input tiles from there. Those copies stay
//! on chip (no DDR latency, the DDR port left to the weights), and the tensor never goes to DDR.
//! Two slots of a quarter of DM each sit at its top; a tensor goes to slot 0 unless the kernel
//! producing it reads its own input from slot 0, so a chain of kernels alternates between them.
//! A kernel that reads or writes a slot plans its own regions below both (half of DM by
//! default). Every kernel decides from the TOSA graph alone (the strategies of a function are
//! all computed before any composite is replaced), so producer and consumer agree on the slot
//! without talking to each other.
//!
//! Constants: a kernel copies the next kernel's constant record (see `Job::packed`) into one of
//! two areas of an eighth of DM each, below the slots, after its last tile's copy in, so the
//! copy overlaps its last tiles; the next kernel finds its record there and copies nothing. The
//! areas alternate like the slots; both kernels then plan their own regions below the areas.

use umac_backend::{Composite, OpView};
use umac_sim::npu::{Params, params::DM_BASE};

/// What a kernel finds in DM from the kernel before and leaves for the kernel after, besides
/// activations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constants {
    /// The DM address of the kernel's own constant record, copied there by the kernel before.
    pub preloaded: Option<i64>,
    /// The next kernel's record and the DM address to copy it to.
    pub next: Option<(i64, Vec<u8>)>,
    /// The DM its own regions may take, when it loads or finds a record in an area.
    pub budget: Option<i64>,
}

/// The ops a kernel's composite is rooted at besides [`WINDOW_ROOTS`] (TOSA's, or the primitive op).
const ELEMENT_ROOTS: [&str; 6] = ["tosa.add", "tosa.sub", "tosa.table", "tynnp.add", "tynnp.sub", "tynnp.table"];

/// The bytes of each area for prefetched records: an eighth of DM.
fn area_bytes(params: &Params) -> i64 {
    (i64::from(params.dm_bytes) / 8) & !15
}

/// The DM a kernel that loads or finds a record in an area may take: below both areas.
fn area_budget(params: &Params) -> i64 {
    i64::from(params.dm_bytes) - 2 * slot_bytes(params) - 2 * area_bytes(params)
}

fn area_address(params: &Params, area: usize) -> i64 {
    i64::from(DM_BASE) + area_budget(params) + (1 - area as i64) * area_bytes(params)
}

/// For each composite of a function, in the order it runs them, with the constant record of
/// each (`None`: none, or it cannot run): which kernel copies the next one's record (`enabled`:
/// the `-prefetch` attribute). Kernel i does when the record fits an area and both kernels fit
/// below the areas in one-row tiles.
pub fn constants(
    composites: &[Composite],
    records: &[Option<Vec<u8>>],
    params: &Params,
    enabled: bool,
) -> Vec<Constants> {
    let mut plan: Vec<Constants> = vec![Constants::default(); composites.len()];
    let fits = |c: &Composite| {
        let is_root = |name: &str| WINDOW_ROOTS.contains(&name) || ELEMENT_ROOTS.contains(&name);
        let root = c.ops.iter().map(|(_, op)| op).find(|op| is_root(&op.name()));
        root.and_then(least_dm).is_some_and(|need| need <= area_budget(params))
    };
    let mut area = None;
    for i in 0..composites.len().saturating_sub(1) {
        let next = records[i + 1].as_ref().filter(|r| r.len() as i64 <= area_bytes(params));
        // The area the next record goes to: the other one than this kernel's own.
        let here = area.take();
        match next {
            Some(record) if enabled && fits(&composites[i]) && fits(&composites[i + 1]) => {
                let to = here.map_or(0, |a: usize| 1 - a);
                let at = area_address(params, to);
                plan[i].next = Some((at, record.clone()));
                plan[i].budget = Some(area_budget(params));
                plan[i + 1].preloaded = Some(at);
                plan[i + 1].budget = Some(area_budget(params));
                area = Some(to);
            }
            _ => {}
        }
    }
    plan
}

/// Where a kernel's inputs and output live, and the DM its own regions may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Residency {
    /// The DM address of each input (the input, or `x` and `y`) when the kernel before left it
    /// in DM.
    pub inputs: [Option<i64>; 2],
    /// The DM address the output is left at for the next kernel.
    pub output: Option<i64>,
    /// Bytes of DM, from its base, the kernel's own regions may take.
    pub budget: i64,
}

/// The ops that start a kernel reading its input in tiles of rows (the consumers): TOSA's, then
/// the primitive ops (each a whole kernel, output stage included), convolutions before poolings.
const WINDOW_ROOTS: [&str; 8] = [
    "tosa.conv2d",
    "tosa.depthwise_conv2d",
    "tynnp.conv2d",
    "tynnp.depthwise_conv2d",
    "tosa.avg_pool2d",
    "tosa.max_pool2d",
    "tynnp.avg_pool2d",
    "tynnp.max_pool2d",
];

/// Whether `name` ends a kernel whose int8 result a window kernel may read: an output stage, a
/// pooling, or a primitive convolution, add or sub (which include their output stage).
fn ends_window_kernel(name: &str) -> bool {
    OUTPUT_STAGE.contains(&name) || WINDOW_ROOTS[2..].contains(&name) || ["tynnp.add", "tynnp.sub"].contains(&name)
}

/// The ops a kernel's output stage may end with, before its root.
const OUTPUT_STAGE: [&str; 2] = ["tosa.clamp", "tosa.rescale"];

/// The bytes of each slot: a quarter of DM.
fn slot_bytes(params: &Params) -> i64 {
    (i64::from(params.dm_bytes) / 4) & !15
}

fn slot_address(params: &Params, slot: usize) -> i64 {
    i64::from(DM_BASE) + i64::from(params.dm_bytes) - (slot as i64 + 1) * slot_bytes(params)
}

/// Where `composite`'s inputs and output live (`enabled`: the `-fuse` attribute).
pub fn residency(composite: &Composite, params: &Params, enabled: bool) -> Residency {
    let dm = i64::from(params.dm_bytes);
    let none = Residency { inputs: [None, None], output: None, budget: dm };
    if !enabled {
        return none;
    }
    let last = composite.last();
    let root = root_of(last).filter(|_| composite.get("input.slice").is_none());
    let mut inputs = [None, None];
    for (k, input) in inputs.iter_mut().enumerate() {
        *input = root
            .as_ref()
            .and_then(|r| r.producer(k).filter(|p| consumer(p, params).is_some_and(|(u, at)| same(&u, r) && at == k)))
            .map(|p| slot(&p, params));
    }
    let output = consumer(last, params).map(|_| slot(last, params));
    let used = inputs.into_iter().flatten().chain(output).max();
    Residency {
        inputs: inputs.map(|i| i.map(|s| slot_address(params, s))),
        output: output.map(|s| slot_address(params, s)),
        budget: used.map_or(dm, |s| dm - (s as i64 + 1) * slot_bytes(params)),
    }
}

/// The primitive ops reading two tensors tile by tile, either of which may be kept in DM.
const ELEMENTWISE: [&str; 2] = ["tynnp.add", "tynnp.sub"];

/// The kernel that reads `last`'s result from DM, if it stays there, and which of its operands
/// that is: its only user (but for its function's return, when no caller reads that result), in
/// the same block, a row-tiled kernel reading it as its input or a primitive add or sub reading
/// it as either operand, the next thing the NPU runs (nothing but constants and that kernel's
/// filter reshape between them), the tensor no larger than a slot, and both kernels able to run
/// in one-row tiles below the slots.
fn consumer<'c, 'a>(last: &OpView<'c, 'a>, params: &Params) -> Option<(OpView<'c, 'a>, usize)> {
    if !ends_window_kernel(&last.name()) {
        return None;
    }
    // The partitioner returns every composite's result from its function (so the caller plans
    // its buffer); that return does not count unless the caller reads the result.
    let mut users = last.users().into_iter().filter(|u| u.name() != "func.return");
    let (Some(user), None) = (users.next(), users.next()) else { return None };
    let operands = if ELEMENTWISE.contains(&user.name().as_str()) { 2 } else { 1 };
    let at = (0..operands).find(|&k| user.producer(k).is_some_and(|p| same(&p, last)))?;
    if !(WINDOW_ROOTS.contains(&user.name().as_str()) || operands == 2) || last.read_by_callers() {
        return None;
    }
    let bytes: i64 = last.result_type()?.dims().iter().product();
    let budget = i64::from(params.dm_bytes) - 2 * slot_bytes(params);
    let fits = |op: &OpView| least_dm(op).is_some_and(|need| need <= budget);
    let producer = root_of(last)?;
    if bytes > slot_bytes(params) || !fits(&producer) || !fits(&user) {
        return None;
    }
    // The user's kernel runs next: up to its last op (where its call goes), nothing lies between
    // but constants, its filter's reshape and its own ops, in the same block.
    let mut own = vec![user];
    while let Some(next) = own[own.len() - 1].only_user().filter(|u| OUTPUT_STAGE.contains(&u.name().as_str())) {
        own.push(next);
    }
    let end = own[own.len() - 1];
    let mut between = last.next();
    while let Some(view) = between {
        if same(&view, &end) {
            return Some((user, at));
        }
        let reshape = view.name() == "tosa.reshape" && view.only_user().is_some_and(|u| same(&u, &user));
        let ours = own.iter().any(|o| same(o, &view));
        if !reshape && !ours && !umac_backend::pattern::is_constant_op(&view.name()) {
            return None;
        }
        between = view.next();
    }
    None
}

/// The slot `last`'s result goes to: 0, unless its kernel reads an input from slot 0.
fn slot(last: &OpView, params: &Params) -> usize {
    let Some(root) = root_of(last) else { return 0 };
    let operands = if ELEMENTWISE.contains(&root.name().as_str()) { 2 } else { 1 };
    if operands == 1 && !WINDOW_ROOTS.contains(&root.name().as_str()) {
        return 0;
    }
    for k in 0..operands {
        match root.producer(k) {
            Some(p) if consumer(&p, params).is_some_and(|(u, at)| same(&u, &root) && at == k) => {
                return 1 - slot(&p, params);
            }
            _ => {}
        }
    }
    0
}

/// The root of the kernel whose last op is `last`: back through its output stage.
pub(crate) fn root_of<'c, 'a>(last: &OpView<'c, 'a>) -> Option<OpView<'c, 'a>> {
    let mut op = OpView::new(last.operation());
    while OUTPUT_STAGE.contains(&op.name().as_str()) {
        op = op.producer(0)?;
    }
    Some(op)
}

fn same(a: &OpView, b: &OpView) -> bool {
    a.operation().to_raw().ptr == b.operation().to_raw().ptr
}

/// An upper bound of the DM the kernel rooted at `root` needs in tiles of one output row,
/// double-buffered (its constants, two input tiles of the rows one output row reads, two output
/// rows as int32): what must fit below the slots. An elementwise job or a lookup needs two tiles
/// of a vector of each operand at most and its record (a table of 1026 bytes at most).
fn least_dm(root: &OpView) -> Option<i64> {
    let a16 = |n: i64| (n + 15) & !15;
    if !WINDOW_ROOTS.contains(&root.name().as_str()) {
        return Some(2 * 3 * 4 * 256 + 1040);
    }
    // A leading slice joins the kernel, which then reads the whole tensor.
    let tosa = root.name().starts_with("tosa.");
    let sliced =
        root.producer(0).filter(|p| tosa && p.name() == "tosa.slice" && p.only_user().is_some_and(|u| same(&u, root)));
    let input = sliced.map_or_else(|| root.operand_type(0), |slice| slice.operand_type(0))?.dims();
    let output = root.result_type()?.dims();
    let (ih, iw, ic, ow, oc) = (*input.get(1)?, *input.get(2)?, *input.get(3)?, *output.get(2)?, *output.get(3)?);
    // TOSA's attributes, or the primitive op's descriptor fields.
    let dilation = root.ints("dilation").and_then(|d| d.first().copied()).or(root.int("dilation_y")).unwrap_or(1);
    let (kh, constants) = match root.name().as_str() {
        "tosa.conv2d" | "tosa.depthwise_conv2d" | "tynnp.conv2d" | "tynnp.depthwise_conv2d" => {
            let filter = root.operand_type(1)?.dims();
            let kh = if root.name().ends_with(".conv2d") { *filter.get(1)? } else { *filter.first()? };
            (kh, a16(filter.iter().product()) + 2 * a16(4 * oc) + a16(oc))
        }
        _ => (root.ints("kernel").and_then(|k| k.first().copied()).or(root.int("kh"))?, 0),
    };
    let rows = ((kh - 1) * dilation + 1).min(ih);
    Some(constants + 2 * a16(rows * iw * ic) + 2 * a16(4 * ow * oc))
}
