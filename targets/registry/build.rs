//! Turns the accelerator lines of this crate's Cargo.toml (between `# accelerators begin` and
//! `# accelerators end`) into the list `backends()` returns, so adding an accelerator is one line;
//! and the custom-operator lines (`# custom operators begin` / `end`) into `custom_operators()`.

use std::fmt::Write as _;

/// The crates listed between `# <section> begin` and `# <section> end` of `manifest`, as Rust
/// paths (`umac_tynnp`).
fn section(manifest: &str, section: &str) -> Vec<String> {
    let (begin, end) = (format!("# {section} begin"), format!("# {section} end"));
    let mut inside = false;
    let mut crates = Vec::new();
    for line in manifest.lines().map(str::trim) {
        match line {
            _ if line == begin => inside = true,
            _ if line == end => inside = false,
            _ if inside && !line.is_empty() && !line.starts_with('#') => {
                let name = line.split(['=', '.']).next().unwrap_or_default().trim();
                assert!(
                    name.starts_with("umac-") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                    "targets/registry/Cargo.toml: '{line}' is not a {section} line (umac-<name> = {{ path = \"../<name>\" }})"
                );
                crates.push(name.replace('-', "_"));
            }
            _ => {}
        }
    }
    assert!(!inside, "targets/registry/Cargo.toml: '{begin}' without '{end}'");
    crates
}

fn main() {
    println!("cargo:rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").expect("the registry's Cargo.toml is readable");
    let crates = section(&manifest, "accelerators");
    let mut code = String::from("/// Every accelerator umac is built with, in registration order.\n");
    code.push_str("pub fn backends() -> Vec<&'static dyn umac_backend::Backend> {\n    vec![");
    for name in &crates {
        let _ = write!(code, "&{name}::BACKEND, ");
    }
    code.push_str("]\n}\n");
    code.push_str("/// Every device umac runs custom operators on.\n");
    code.push_str("pub fn custom_operators() -> Vec<&'static dyn umac_sim::CustomOperator> {\n    vec![");
    for name in section(&manifest, "custom operators") {
        let _ = write!(code, "&{name}::CUSTOM_OPERATOR, ");
    }
    code.push_str("]\n}\n");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("backends.rs"), code).expect("OUT_DIR is writable");
}
