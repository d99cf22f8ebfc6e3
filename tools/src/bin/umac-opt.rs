//! `umac-opt`: `mlir-opt` with umac's passes, dialect and pipelines.

fn main() -> std::process::ExitCode {
    umac_tools::opt::main(std::env::args())
}
