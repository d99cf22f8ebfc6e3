//! `docs/cli.md`: `umac --help` and each subcommand's `--help`, exactly as clap prints them, and
//! the target-string reference (the CPU table and each accelerator's attributes). The hand-written
//! text must mention every flag of each subcommand in that subcommand's section, and no flag it
//! does not have; and every environment variable umac reads, and none it does not.

use super::{Region, read, region, root, table};
use clap::{CommandFactory, Parser, error::ErrorKind};
use umac_tools::umac::Cli;

/// What `umac ARGS... --help` prints (to standard output, exit code 0).
fn help(args: &[&str]) -> String {
    let mut argv = vec!["umac"];
    argv.extend_from_slice(args);
    argv.push("--help");
    match Cli::try_parse_from(&argv) {
        Err(e) if e.kind() == ErrorKind::DisplayHelp => e.render().to_string(),
        Err(e) => panic!("{argv:?} is a usage error: {e}"),
        Ok(_) => panic!("{argv:?} parsed without printing help"),
    }
}

/// The subcommands, in `umac --help`'s order.
fn subcommands() -> Vec<String> {
    Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect()
}

/// The long flags of subcommand `name` (`--target`), `--help` included.
fn flags(name: &str) -> Vec<String> {
    let command = Cli::command();
    let sub = command.find_subcommand(name).unwrap_or_else(|| panic!("no subcommand {name}"));
    let mut flags: Vec<String> = sub.get_arguments().filter_map(|a| a.get_long()).map(|l| format!("--{l}")).collect();
    flags.push("--help".into());
    flags
}

fn fenced(text: &str) -> String {
    format!("```text\n{}\n```\n", text.trim_end())
}

pub fn regions() -> Vec<Region> {
    let mut regions = vec![region("umac-help", fenced(&format!("$ umac --help\n{}", help(&[]))))];
    for name in subcommands() {
        regions
            .push(region(&format!("umac-{name}-help"), fenced(&format!("$ umac {name} --help\n{}", help(&[&name])))));
    }
    regions.push(region("targets", targets()));
    regions
}

/// The CPUs a target string may end with, and every accelerator's attributes.
fn targets() -> String {
    umac_driver::register_targets();
    let cpus: Vec<Vec<String>> = umac_backend::CPUS
        .iter()
        .map(|cpu| {
            let code = match cpu.machine {
                umac_backend::Machine::Host => "the machine umac runs on (position-independent)".to_string(),
                umac_backend::Machine::Llvm { triple, cpu, features } => {
                    let features = if features.is_empty() { String::new() } else { format!(" `{features}`") };
                    format!("`{triple}` `{cpu}`{features}")
                }
            };
            let mut extensions = Vec::new();
            if cpu.vectors {
                extensions.push("Helium dot products and vectors");
            }
            if cpu.dsp {
                extensions.push("DSP dot products");
            }
            if cpu.rescale_32 {
                extensions.push("32-bit rescale");
            }
            let extensions = if extensions.is_empty() { "—".to_string() } else { extensions.join(", ") };
            vec![format!("`{}`", cpu.name), cpu.description.to_string(), code, extensions]
        })
        .collect();
    let mut out = String::from("CPUs (`targets/api/src/cpu.rs`), the last entry of a target string:\n\n");
    out.push_str(&table(&["CPU", "what", "LLVM triple, CPU, features", "umac's lowering uses"], &cpus));
    for backend in umac_backend::backends() {
        let cpu = backend
            .cpu()
            .map(|c| format!("; alone it brings its CPU: `--target={}` is `{},{c}`", backend.name(), backend.name()));
        out.push_str(&format!(
            "\nAccelerator `{}`{}. Attributes (`-name=value`):\n\n",
            backend.name(),
            cpu.unwrap_or_default()
        ));
        let rows: Vec<Vec<String>> = backend
            .attributes()
            .iter()
            .map(|a| {
                let kind = match a.kind {
                    umac_backend::AttrKind::Int => "int",
                    umac_backend::AttrKind::Bool => "bool",
                    umac_backend::AttrKind::String => "string",
                };
                vec![format!("`-{}`", a.name), kind.to_string(), format!("`{}`", a.default), a.help.to_string()]
            })
            .collect();
        if rows.is_empty() {
            out.push_str("(none)\n");
        } else {
            out.push_str(&table(&["attribute", "type", "default", "what"], &rows));
        }
    }
    out
}

/// The hand-written text of `## umac <name>` sections: each flag of the subcommand mentioned,
/// no flag umac lacks (commands of `umac-opt` in code spans aside); `## Environment variables`:
/// exactly the variables the code reads.
pub fn check_prose(prose: &str) {
    let all: Vec<String> = subcommands().iter().flat_map(|s| flags(s)).chain(["--version".to_string()]).collect();
    let mut problems = Vec::new();
    for name in subcommands() {
        let Some(section) = section(prose, &format!("umac {name}")) else {
            problems.push(format!("no section `## umac {name}`"));
            continue;
        };
        let mentioned = long_flags(&without_other_tools(section));
        for flag in flags(&name) {
            if flag != "--help" && !mentioned.contains(&flag) {
                problems.push(format!("`umac {name}` has {flag}, which its section does not explain"));
            }
        }
        for flag in mentioned {
            if !all.contains(&flag) {
                problems.push(format!("the section of `umac {name}` mentions {flag}, which umac does not have"));
            }
        }
    }
    let documented = env_vars(section(prose, ENVIRONMENT).unwrap_or_default());
    if section(prose, ENVIRONMENT).is_none() {
        problems.push(format!("no section `## {ENVIRONMENT}`"));
    }
    let read = env_vars_read();
    for var in &read {
        if !documented.contains(var) {
            problems.push(format!("umac reads {var}, which `## {ENVIRONMENT}` does not explain"));
        }
    }
    for var in &documented {
        if !read.contains(var) {
            problems.push(format!("`## {ENVIRONMENT}` explains {var}, which no source of umac reads"));
        }
    }
    assert!(problems.is_empty(), "docs/cli.md (hand-written text):\n{}", problems.join("\n"));
}

/// The heading of the section that explains the environment variables.
const ENVIRONMENT: &str = "Environment variables";

/// The text of section `## heading` of `prose` (up to the next `## `), if there is one.
fn section<'t>(prose: &'t str, heading: &str) -> Option<&'t str> {
    let heading = format!("## {heading}\n");
    let start = if prose.starts_with(&heading) { 0 } else { prose.find(&format!("\n{heading}"))? + 1 };
    let body = &prose[start + heading.len()..];
    Some(&body[..body.find("\n## ").unwrap_or(body.len())])
}

/// `text` without the code spans that are commands of another tool (`` `umac-opt ...` ``), whose
/// flags are not umac's.
fn without_other_tools(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("`umac-opt ") {
        out.push_str(&rest[..at]);
        let span = &rest[at + 1..];
        rest = span.find('`').map_or("", |end| &span[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// Every `--flag` token of `text`, sorted and unique.
fn long_flags(text: &str) -> Vec<String> {
    let mut out: Vec<String> = tokens(text, "--", |c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        .into_iter()
        .filter(|t| t.len() > 2 && t.as_bytes()[2].is_ascii_lowercase())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every `UMAC_NAME` token of `text`, sorted and unique.
fn env_vars(text: &str) -> Vec<String> {
    let mut out = tokens(text, "UMAC_", |c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    out.sort();
    out.dedup();
    out
}

/// Tokens starting with `prefix` (not preceded by a word character or `-`) and going on while
/// `continues`.
fn tokens(text: &str, prefix: &str, continues: impl Fn(char) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let end = rest.find(|c: char| !continues(c)).unwrap_or(rest.len());
        out.push(format!("{prefix}{}", rest[..end].trim_end_matches('-')));
    }
    out
}

/// The environment variables the crates umac is built from read: each `"UMAC_..."` string literal
/// in their sources (tests and benchmarks aside).
fn env_vars_read() -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> =
        ["dialects", "lowering", "driver", "codegen-llvm", "codegen-cranelift", "runtime", "tools", "sim"]
            .iter()
            .map(|d| root().join(d).join("src"))
            .collect();
    for entry in std::fs::read_dir(root().join("targets")).into_iter().flatten().flatten() {
        dirs.push(entry.path().join("src"));
    }
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                let text = read(&relative);
                found.extend(env_vars(&text).into_iter().filter(|v| text.contains(&format!("\"{v}\""))));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn flags_and_variables_are_found_in_text() {
    assert_eq!(long_flags("use `--target=x` and --opt, not -o, x--y or ---"), ["--opt", "--target"]);
    assert_eq!(long_flags(&without_other_tools("`umac-opt m --pass-pipeline=x` then --report")), ["--report"]);
    assert_eq!(env_vars("UMAC_DUMP_IR=dir, `UMAC_WORKER`; NOT_UMAC_X"), ["UMAC_DUMP_IR", "UMAC_WORKER"]);
    let prose = "# t\n## umac run\n--a\n## umac runner\n--b\n";
    assert_eq!(section(prose, "umac run"), Some("--a"));
    assert_eq!(section(prose, "umac runner"), Some("--b\n"));
    assert_eq!(section(prose, "umac"), None);
}
