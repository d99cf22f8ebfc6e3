//! `umac`: compile models into firmware (`umac compile`) and run them on the host or the simulator (`umac run`).

fn main() -> std::process::ExitCode {
    umac_tools::umac::main(std::env::args())
}
