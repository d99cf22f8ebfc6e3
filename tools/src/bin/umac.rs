//! `umac`: compile and run models (`umac run`, later `umac compile`).

fn main() -> std::process::ExitCode {
    umac_tools::umac::main(std::env::args())
}
