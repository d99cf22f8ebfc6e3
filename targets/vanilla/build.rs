//! Compiles vanilla's C kernel into this crate, so umac's host JITs can call it; firmware output
//! carries the same source for the board's compiler.

fn main() {
    cc::Build::new()
        .include("include")
        .file("kernels/vanilla.c")
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-std=c99")
        .compile("umac_vanilla_kernels");
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=include");
}
