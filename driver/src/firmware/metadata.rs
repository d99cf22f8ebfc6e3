//! `metadata.json`: what the object computes and needs, for tools and people.

use super::{Firmware, FirmwareOptions, WORKSPACE_ALIGNMENT, output};
use crate::signature::{TensorSig, dtype_of};
use umac_backend::Cpu;

/// The metadata of `firmware`, compiled as `name` from `options`.
pub fn metadata(firmware: &Firmware, name: &str, options: &FirmwareOptions, fixed_batch: bool) -> serde_json::Value {
    let cpu: Cpu = firmware.cpu;
    let tensor = |t: &TensorSig| {
        serde_json::json!({
            "name": t.name,
            "shape": t.dims(),
            "dtype": dtype_of(t.element).map(|d| d.name()),
            "bytes": t.byte_size(),
            "scale": serde_json::Value::Null,
            "zero_point": serde_json::Value::Null,
        })
    };
    let llvm_target = crate::llvm_object::llvm_target(&cpu);
    serde_json::json!({
        "name": name,
        "source": options.source,
        "source_sha256": options.source_sha256,
        "umac_version": env!("CARGO_PKG_VERSION"),
        "code": if firmware.c_source.is_some() { format!("{name}.c") } else { format!("{name}.o") },
        "target": {
            "name": cpu.name,
            "triple": llvm_target.triple,
            "cpu": llvm_target.cpu,
            "opt": if options.optimize_for_size { "size" } else { "speed" },
        },
        "entry": format!("{name}_run"),
        "batch_fixed_to_1": fixed_batch,
        "inputs": firmware.signature.inputs.iter().map(tensor).collect::<Vec<_>>(),
        "outputs": firmware.signature.outputs.iter().map(tensor).collect::<Vec<_>>(),
        "workspace": {
            "bytes": firmware.workspace_size,
            "alignment": WORKSPACE_ALIGNMENT,
            "liveness_lower_bound": firmware.workspace_lower_bound,
        },
        "constants_bytes": firmware.rodata_bytes,
        "state_bytes": firmware.state_bytes,
        "local_bytes": firmware.local_bytes,
        "text_bytes": firmware.text_bytes,
        "constants_section": options.constants_section.as_deref().unwrap_or(".rodata"),
        "sections": firmware.sections.iter().map(|(name, bytes)| (name.clone(), serde_json::json!(bytes))).collect::<serde_json::Map<_, _>>(),
        "imports": firmware.imports,
        "operators": firmware.operators.iter().map(|o| serde_json::json!({
            "id": o.id,
            "function": o.function,
            "target": o.target.as_deref().unwrap_or(cpu.name),
            "composite": o.composite,
            "source_ops": o.source_ops,
            "macs": o.macs,
            "bytes": o.bytes,
        })).collect::<Vec<_>>(),
        "shared_workspace": (!options.shared_with.is_empty()).then(|| serde_json::json!({
            "bytes": super::header::shared_workspace(firmware, options),
            "with": options.shared_with.iter().map(|(n, b)| serde_json::json!({"name": n, "bytes": b})).collect::<Vec<_>>(),
        })),
        "memory_plan": {
            "pools": memory_pools(firmware, options),
        },
        "profile_hooks": options.profile_hooks.then(|| {
            let [begin, end] = umac_dialects::umac::profile_hook_names(name);
            serde_json::json!({"begin": begin, "end": end})
        }),
        "accelerators": options.accelerators.accelerators.iter().map(|c| serde_json::json!({
            "name": c.backend.name(),
            "attributes": c.attributes.values().iter().map(|(k, v)| (k.clone(), serde_json::json!(v.to_string()))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "placement": firmware.placements,
        "accelerator_calls": firmware.calls,
        "extern_functions": firmware.kernels.iter().map(|k| serde_json::json!({
            "symbol": k.symbol,
            "prototype": k.prototype(),
            "source": output::source_path(k),
            "headers": k.headers.iter().map(output::header_path).collect::<Vec<_>>(),
            "include_dir": output::INCLUDE_DIR,
        })).collect::<Vec<_>>(),
    })
}

/// Sets quantization parameters of inputs (`kind` = "inputs") or outputs in `metadata`.
pub fn set_quantization(metadata: &mut serde_json::Value, kind: &str, index: usize, scale: &[f32], zero_point: &[i64]) {
    if let Some(entry) = metadata.get_mut(kind).and_then(|v| v.get_mut(index)) {
        entry["scale"] = serde_json::json!(scale);
        entry["zero_point"] = serde_json::json!(zero_point);
    }
}

/// The workspace plan per pool: its name, capacity (for `--pool`), bytes used and buffers.
fn memory_pools(firmware: &Firmware, options: &FirmwareOptions) -> Vec<serde_json::Value> {
    let buffers = |pool: usize| firmware.memory_plan.iter().filter(|b| b.pool == pool).collect::<Vec<_>>();
    if firmware.pool_sizes.is_empty() {
        return vec![serde_json::json!({
            "name": "workspace",
            "bytes": firmware.workspace_size,
            "buffers": buffers(0),
        })];
    }
    options
        .pools
        .iter()
        .zip(&firmware.pool_sizes)
        .enumerate()
        .map(|(k, (pool, bytes))| {
            serde_json::json!({
                "name": pool.name,
                "capacity": pool.capacity,
                "fast": pool.fast,
                "cpu_only": pool.cpu_only,
                "bytes": bytes,
                "buffers": buffers(k),
            })
        })
        .collect()
}
