//! Compiles the C kernels accelerators call (`kernels/*.c`) into the runtime, so umac's JITs can
//! link models that call them on the host. Firmware builds compile the same files for the board.

fn main() {
    let mut build = cc::Build::new();
    build.include("include").warnings(true).extra_warnings(true).flag_if_supported("-std=c99");
    for kernel in ["kernels/vanilla.c"] {
        build.file(kernel);
        println!("cargo:rerun-if-changed={kernel}");
    }
    println!("cargo:rerun-if-changed=include");
    build.compile("umac_kernels");
}
