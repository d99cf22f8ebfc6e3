//! `umac compile --report-html DIR`: one self-contained HTML page (no script, no external file)
//! with two SVG pictures: the operators in execution order coloured by the target running each,
//! joined where one hands a buffer to another; and the workspace plan as a timeline, each buffer
//! a rectangle from its first to its last operator (x) over its bytes (y: offset in the
//! workspace), its type, bytes and operators on hover. The rectangles carry their buffer's numbers
//! as `data-` attributes and the picture its scale, so a test can check them against
//! `metadata.json`.

use super::{Firmware, memory_plan::PlannedBuffer};
use std::fmt::Write as _;

/// The memory picture's geometry: the left margin, the width of one operator, the top margin,
/// and the height the whole workspace takes.
pub const X0: f64 = 60.0;
pub const OP_WIDTH: f64 = 24.0;
pub const Y0: f64 = 20.0;
pub const PLAN_HEIGHT: f64 = 480.0;

/// The colours of the targets: the CPU first, then each accelerator in order of appearance.
const COLOURS: [&str; 6] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"];

/// Escapes text for HTML and SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The page for `firmware`, compiled as `name`.
pub fn page(firmware: &Firmware, name: &str) -> String {
    let cpu = firmware.cpu.name;
    let mut targets: Vec<String> = vec![cpu.to_string()];
    for op in &firmware.operators {
        if let Some(target) = &op.target
            && !targets.contains(target)
        {
            targets.push(target.clone());
        }
    }
    let colour = |target: &str| COLOURS[targets.iter().position(|t| t == target).unwrap_or(0) % COLOURS.len()];
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>umac: {name}</title>\n<style>\n\
         body {{ font-family: sans-serif; margin: 2em; color: #222; }}\n\
         svg text {{ font-size: 11px; font-family: sans-serif; }}\n\
         rect.buffer:hover, rect.operator:hover {{ stroke: #000; stroke-width: 2; }}\n\
         .legend span {{ display: inline-block; padding: 0 0.6em; margin-right: 0.5em; color: #fff; }}\n\
         </style>\n</head>\n<body>\n<h1>{name} for {cpu}</h1>\n<p>{} operators; workspace {} bytes (liveness \
         bound {}); code {} bytes; constants {} bytes.</p>\n<p class=\"legend\">",
        firmware.operators.len(),
        firmware.workspace_size,
        firmware.workspace_lower_bound,
        firmware.text_bytes,
        firmware.rodata_bytes,
    );
    for target in &targets {
        let _ = write!(html, "<span style=\"background:{}\">{}</span>", colour(target), escape(target));
    }
    html.push_str("</p>\n<h2>Operators</h2>\n");
    html.push_str(&graph(firmware, &colour));
    html.push_str(
        "<h2>Workspace plan</h2>\n<p>x: operators in execution order; y: offset in the workspace. \
                   Hover a buffer for its type, bytes and operators.</p>\n",
    );
    if firmware.pool_sizes.is_empty() {
        html.push_str(&plan(firmware, None, firmware.workspace_size, &colour));
    } else {
        for (pool, &size) in firmware.pool_sizes.iter().enumerate() {
            html.push_str(&format!("<h3>Pool {pool}</h3>\n"));
            html.push_str(&plan(firmware, Some(pool), size, &colour));
        }
    }
    html.push_str("</body>\n</html>\n");
    html
}

/// The operators as a column of boxes, joined on the right by an arc from the operator that
/// first uses a buffer to each later one using it.
fn graph(firmware: &Firmware, colour: &dyn Fn(&str) -> &'static str) -> String {
    const ROW: f64 = 26.0;
    const BOX: f64 = 420.0;
    let cpu = firmware.cpu.name;
    let height = ROW * firmware.operators.len() as f64 + 20.0;
    let mut svg = format!(
        "<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\">\n",
        BOX + 260.0
    );
    let centre = |op: usize| 10.0 + ROW * op as f64 + ROW / 2.0 - 2.0;
    let mut arcs: Vec<(usize, usize)> = Vec::new();
    for buffer in &firmware.memory_plan {
        for &to in &buffer.ops[1..] {
            if !arcs.contains(&(buffer.first_op, to)) {
                arcs.push((buffer.first_op, to));
            }
        }
    }
    for (from, to) in arcs {
        let (y1, y2) = (centre(from), centre(to));
        let reach = 12.0 + 6.0 * (to - from) as f64;
        let _ = writeln!(
            svg,
            "<path class=\"edge\" d=\"M {BOX} {y1} C {} {y1}, {} {y2}, {BOX} {y2}\" fill=\"none\" stroke=\"#999\"/>",
            BOX + reach,
            BOX + reach
        );
    }
    for op in &firmware.operators {
        let target = op.target.as_deref().unwrap_or(cpu);
        let y = 10.0 + ROW * op.id as f64;
        let sources = op.source_ops.join("\n");
        let _ = writeln!(
            svg,
            "<g><rect class=\"operator\" data-id=\"{}\" data-target=\"{}\" x=\"0\" y=\"{y}\" width=\"{BOX}\" height=\"{}\" \
             rx=\"3\" fill=\"{}\"><title>{}\n{} MACs, {} bytes\n{}</title></rect>\
             <text x=\"6\" y=\"{}\" fill=\"#fff\">{}: {} ({})</text></g>",
            op.id,
            escape(target),
            ROW - 4.0,
            colour(target),
            escape(&op.function),
            op.macs,
            op.bytes,
            escape(&sources),
            y + 15.0,
            op.id,
            escape(&op.function),
            escape(target),
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The plan of the workspace (`pool` `None`), or of memory pool `pool` of `size` bytes: one
/// rectangle per buffer.
fn plan(firmware: &Firmware, pool: Option<usize>, size: u64, colour: &dyn Fn(&str) -> &'static str) -> String {
    let ops = firmware.operators.len().max(1);
    let scale = PLAN_HEIGHT / size.max(1) as f64;
    let width = X0 + OP_WIDTH * ops as f64 + 20.0;
    let id = pool.map_or_else(|| "plan".to_string(), |p| format!("plan-pool{p}"));
    let mut svg = format!(
        "<svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" data-x0=\"{X0}\" \
         data-y0=\"{Y0}\" data-op-width=\"{OP_WIDTH}\" data-byte-scale=\"{scale}\" data-workspace-bytes=\"{size}\">\n",
        Y0 + PLAN_HEIGHT + 30.0,
    );
    let _ = writeln!(
        svg,
        "<rect x=\"{X0}\" y=\"{Y0}\" width=\"{}\" height=\"{PLAN_HEIGHT}\" fill=\"#f4f4f4\" stroke=\"#bbb\"/>",
        OP_WIDTH * ops as f64
    );
    let _ = writeln!(svg, "<text x=\"4\" y=\"{}\">0</text>", Y0 + 4.0);
    let _ = writeln!(svg, "<text x=\"4\" y=\"{}\">{size}</text>", Y0 + PLAN_HEIGHT);
    for op in 0..ops {
        if op % 5 == 0 {
            let _ = writeln!(
                svg,
                "<text x=\"{}\" y=\"{}\">{op}</text>",
                X0 + OP_WIDTH * op as f64 + 2.0,
                Y0 + PLAN_HEIGHT + 16.0
            );
        }
    }
    let cpu = firmware.cpu.name;
    for buffer in firmware.memory_plan.iter().filter(|b| pool.is_none_or(|p| b.pool == p)) {
        let PlannedBuffer { id, offset, bytes, first_op, last_op, .. } = *buffer;
        // Coloured as the operator writing it first.
        let target = firmware.operators.get(first_op).and_then(|o| o.target.as_deref()).unwrap_or(cpu);
        let users: Vec<String> = buffer.ops.iter().map(usize::to_string).collect();
        let _ = writeln!(
            svg,
            "<rect class=\"buffer\" data-id=\"{id}\" data-offset=\"{offset}\" data-bytes=\"{bytes}\" \
             data-first-op=\"{first_op}\" data-last-op=\"{last_op}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
             fill=\"{}\" fill-opacity=\"0.75\" stroke=\"#fff\"><title>buffer {id}: {}\n{bytes} bytes at offset \
             {offset}\noperators {}</title></rect>",
            X0 + OP_WIDTH * first_op as f64,
            Y0 + scale * offset as f64,
            OP_WIDTH * (last_op - first_op + 1) as f64,
            (scale * bytes as f64).max(1.0),
            colour(target),
            escape(&buffer.ty),
            users.join(", "),
        );
    }
    svg.push_str("</svg>\n");
    svg
}
