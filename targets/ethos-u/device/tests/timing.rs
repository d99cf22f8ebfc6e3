//! The timing model against Vela's own estimate of its streams (`tests/vela/*/vela_summary.csv`
//! and `vela_per-layer.csv`): the MLPerf Tiny models within 15% of Vela's total on the U55-128
//! and within 20% below to 15% above it on the other configurations, every kernel lined up with Vela's layers and their MACs equal to Vela's, KWS faster the
//! more MACs a configuration has. `scripts/bench ethos-u` prints the per-layer table.

mod common;

use common::vela;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vela").join(name)
}

#[test]
fn mlperf_tiny_is_close_to_velas_estimate_on_every_configuration() {
    // The other models are not held to it: Vela 5.2 times conv_16x8's 16-bit layers on the
    // 256-MAC configurations about twice as slow as the timing model, at a rate no published
    // figure gives (targets/ethos-u/docs/timing.md); `scripts/bench ethos-u` reports them all.
    let mlperf = ["kws-", "vww-", "ic-", "ad-"];
    for name in vela::all().into_iter().filter(|n| mlperf.iter().any(|m| n.starts_with(m))) {
        let d = dir(&name);
        let (ours, theirs) = (vela::timing(&d).cycles, vela::total(&d));
        let ratio = ours as f64 / theirs as f64;
        println!("{name}: {ours} cycles, Vela {theirs}: {ratio:.3}");
        // Vela's total is the sum of its layers' cycles; the timing model lets a kernel start up
        // under the last jobs of the one before as its BLOCKDEP allows, which brings it up to
        // 20% below Vela's (KWS on the U65-256: 0.845). The target, the U55-128, is held
        // to 15%.
        let band = if name.ends_with("-ethos-u55-128") { 0.85..=1.15 } else { 0.80..=1.15 };
        assert!(band.contains(&ratio), "{name}: {ours} cycles against Vela's {theirs} ({ratio:.3})");
    }
}

#[test]
fn kernels_line_up_with_velas_layers_with_the_same_macs() {
    for name in vela::all() {
        let name = name.as_str();
        let d = dir(name);
        let (timing, layers) = (vela::timing(&d), vela::layers(&d));
        let groups = vela::grouped(&timing, &layers).unwrap_or_else(|| panic!("{name}: kernels and layers differ"));
        for (layer, group) in layers.iter().zip(&groups) {
            let macs: u64 = group.iter().map(|o| o.macs).sum();
            assert_eq!(macs, layer.macs, "{name}: {} at {:#x}", layer.operator, group[0].offset);
        }
    }
}

#[test]
fn kws_takes_fewer_cycles_the_more_macs_a_configuration_has() {
    let cycles = |config: &str| vela::timing(&dir(&format!("kws-{config}"))).cycles;
    let u55: Vec<u64> = ["32", "64", "128", "256"].iter().map(|m| cycles(&format!("ethos-u55-{m}"))).collect();
    assert!(u55.windows(2).all(|w| w[0] > w[1]), "{u55:?}");
    assert!(cycles("ethos-u65-512") < cycles("ethos-u65-256"));
}
