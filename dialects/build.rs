//! Compiles the C++ glue (`cxx/`) against the LLVM/MLIR 22 headers: the umac dialect as a
//! registered dialect, umac passes in MLIR's pass registry, MLIR's mlir-opt driver and parser.
//! MLIR itself is linked by `mlir-sys`.

fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .include("cxx")
        .include(format!("{prefix}/include"))
        // As LLVM is built: C++17, no RTTI, no exceptions.
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        // MLIR's headers warn under -Wextra; ours are kept clean by review.
        .warnings(false);
    for file in ["cxx/umac_dialect.cpp", "cxx/pass_registry.cpp", "cxx/opt_main.cpp", "cxx/mlir_test_registry.cpp"] {
        build.file(file);
    }
    build.compile("umac_mlir_glue");
    println!("cargo:rerun-if-changed=cxx");
}
