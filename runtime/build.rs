//! Compiles the C kernels accelerators call (`kernels/*.c`) into the runtime, so umac's JITs can
//! link models that call them on the host. Firmware builds compile the same files for the board.

fn main() {
    let mut build = cc::Build::new();
    build.include("include").warnings(true).extra_warnings(true).flag_if_supported("-std=c99");
    let mut sources: Vec<_> = std::fs::read_dir("kernels")
        .expect("runtime/kernels exists")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    for source in &sources {
        build.file(source);
    }
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=include");
    build.compile("umac_kernels");
}
