//! The command-line tools: `umac-opt` lives in [`opt`], `umac` in [`umac`].

pub mod opt;
pub mod umac;

/// Parses a command line; on a usage error (or `--help`/`--version`) prints clap's message and
/// returns the exit code: 1 for errors, as for every other failure of our tools, 0 otherwise.
pub fn parse_args<T: clap::Parser>(args: &[String]) -> Result<T, std::process::ExitCode> {
    T::try_parse_from(args).map_err(|e| {
        let code = if e.use_stderr() { 1 } else { 0 };
        let _ = e.print();
        std::process::ExitCode::from(code)
    })
}
