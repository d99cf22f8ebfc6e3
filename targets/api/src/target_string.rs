//! Target strings: `"vanilla -dimension=8,cortex-m55"` — accelerators first, each with its
//! `-attribute=value` settings, the CPU last (as in TVM's `--target="ethos-u -accelerator_config=..., c"`).

use crate::{Backend, Cpu, Error, backends, cpu::CPUS};
use std::collections::BTreeMap;

/// The type of a target attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// Text.
    String,
    /// A signed integer.
    Int,
    /// `true` or `false` (a bare `-name` means `true`).
    Bool,
}

impl AttrKind {
    fn describe(self) -> &'static str {
        match self {
            AttrKind::String => "string",
            AttrKind::Int => "int",
            AttrKind::Bool => "bool",
        }
    }
}

/// A value of a target attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// Text.
    String(String),
    /// An integer.
    Int(i64),
    /// A flag.
    Bool(bool),
}

impl std::fmt::Display for AttrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttrValue::String(s) => write!(f, "{s}"),
            AttrValue::Int(i) => write!(f, "{i}"),
            AttrValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// An attribute a backend accepts in the target string.
#[derive(Clone, Debug)]
pub struct TargetAttr {
    /// Its name (`dimension` for `-dimension=8`).
    pub name: &'static str,
    /// Its type.
    pub kind: AttrKind,
    /// Its value when the target string does not set it.
    pub default: AttrValue,
    /// One line for error messages and docs.
    pub help: &'static str,
}

impl TargetAttr {
    /// An integer attribute.
    pub fn int(name: &'static str, default: i64, help: &'static str) -> Self {
        TargetAttr { name, kind: AttrKind::Int, default: AttrValue::Int(default), help }
    }

    /// A boolean attribute.
    pub fn bool(name: &'static str, default: bool, help: &'static str) -> Self {
        TargetAttr { name, kind: AttrKind::Bool, default: AttrValue::Bool(default), help }
    }

    /// A string attribute.
    pub fn string(name: &'static str, default: &str, help: &'static str) -> Self {
        TargetAttr { name, kind: AttrKind::String, default: AttrValue::String(default.into()), help }
    }

    fn parse(&self, backend: &str, text: Option<&str>) -> Result<AttrValue, Error> {
        let wrong = || {
            Error::Target(format!(
                "'-{}{}' for {backend}: the attribute takes a{} {}",
                self.name,
                text.map(|t| format!("={t}")).unwrap_or_default(),
                if self.kind == AttrKind::Int { "n" } else { "" },
                self.kind.describe()
            ))
        };
        match (self.kind, text) {
            (AttrKind::Bool, None) => Ok(AttrValue::Bool(true)),
            (AttrKind::Bool, Some("true" | "1")) => Ok(AttrValue::Bool(true)),
            (AttrKind::Bool, Some("false" | "0")) => Ok(AttrValue::Bool(false)),
            (AttrKind::Int, Some(t)) => t.parse().map(AttrValue::Int).map_err(|_| wrong()),
            (AttrKind::String, Some(t)) => Ok(AttrValue::String(t.to_string())),
            _ => Err(wrong()),
        }
    }
}

/// The attribute values of one target: every declared attribute, set or defaulted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetAttrs {
    values: BTreeMap<String, AttrValue>,
}

impl TargetAttrs {
    /// The defaults of `declared`.
    pub fn defaults(declared: &[TargetAttr]) -> Self {
        TargetAttrs { values: declared.iter().map(|a| (a.name.to_string(), a.default.clone())).collect() }
    }

    /// An integer attribute's value (0 if undeclared).
    pub fn int(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(AttrValue::Int(i)) => *i,
            _ => 0,
        }
    }

    /// A boolean attribute's value (false if undeclared).
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(AttrValue::Bool(true)))
    }

    /// A string attribute's value (empty if undeclared).
    pub fn string(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(AttrValue::String(s)) => s,
            _ => "",
        }
    }

    /// Every value, by name.
    pub fn values(&self) -> &BTreeMap<String, AttrValue> {
        &self.values
    }
}

/// An accelerator named in a target string, with its attributes.
#[derive(Clone)]
pub struct ConfiguredBackend {
    /// The backend.
    pub backend: &'static dyn Backend,
    /// Its attribute values.
    pub attributes: TargetAttrs,
}

/// A parsed target string.
#[derive(Clone, Default)]
pub struct TargetSet {
    /// The accelerators, in the order given (an op goes to the first that claims it).
    pub accelerators: Vec<ConfiguredBackend>,
    /// The CPU, if the string names one (it must be last).
    pub cpu: Option<Cpu>,
}

impl std::fmt::Debug for TargetSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let accelerators: Vec<(&str, &TargetAttrs)> =
            self.accelerators.iter().map(|a| (a.backend.name(), &a.attributes)).collect();
        let cpu = self.cpu.map(|c| c.name);
        f.debug_struct("TargetSet").field("accelerators", &accelerators).field("cpu", &cpu).finish()
    }
}

impl ConfiguredBackend {
    /// The target-string spelling of its attributes: `-dimension=8` (every value, defaults too).
    pub fn attribute_text(&self) -> String {
        let settings: Vec<String> =
            self.attributes.values.iter().map(|(name, value)| format!("-{name}={value}")).collect();
        settings.join(" ")
    }
}

/// Parses `text` (`"vanilla -dimension=8,cortex-m55"`): comma-separated targets, accelerators
/// first, then at most one CPU of the [`CPUS`] table. Errors list what is accepted.
pub fn parse_target_string(text: &str) -> Result<TargetSet, Error> {
    parse(text, CPUS)
}

/// Parses a list of accelerators with their attributes (`"vanilla -dimension=8"`), naming no CPU.
pub fn parse_accelerators(text: &str) -> Result<Vec<ConfiguredBackend>, Error> {
    parse(text, &[]).map(|set| set.accelerators)
}

fn parse(text: &str, cpus: &[Cpu]) -> Result<TargetSet, Error> {
    let mut set = TargetSet::default();
    let known = || {
        let accelerators: Vec<&str> = backends().iter().map(|b| b.name()).collect();
        let cpus: Vec<&str> = cpus.iter().map(|c| c.name).collect();
        if cpus.is_empty() {
            format!("accelerators: {}", accelerators.join(", "))
        } else {
            format!("accelerators: {}; CPUs: {}", accelerators.join(", "), cpus.join(", "))
        }
    };
    let fail = |message: String| Err(Error::Target(message));
    for (position, part) in text.split(',').enumerate() {
        let mut words = part.split_whitespace();
        let Some(name) = words.next() else {
            return fail(format!("empty target in '{text}' (known {})", known()));
        };
        if set.cpu.is_some() {
            return fail(format!("'{name}' follows the CPU in '{text}': accelerators come first, the CPU last"));
        }
        if let Some(cpu) = cpus.iter().find(|c| c.name == name) {
            if let Some(extra) = words.next() {
                return fail(format!("the CPU '{name}' takes no attributes (got '{extra}')"));
            }
            set.cpu = Some(*cpu);
            continue;
        }
        let Some(backend) = backends().iter().copied().find(|b| b.name() == name) else {
            if cpus.is_empty() && CPUS.iter().any(|c| c.name == name) {
                return fail(format!("'{name}' is a CPU; only accelerators are accepted here (known {})", known()));
            }
            return fail(format!("unknown target '{name}' (known {})", known()));
        };
        if set.accelerators.iter().any(|a| a.backend.name() == name) {
            return fail(format!("target '{name}' is named twice in '{text}'"));
        }
        let declared = backend.attributes();
        let mut attributes = TargetAttrs::defaults(&declared);
        for word in words {
            let setting = word.strip_prefix('-').map(|w| w.trim_start_matches('-'));
            let Some(setting) = setting else {
                return fail(format!("'{word}' in target {position} ('{name}'): attributes are written -name=value"));
            };
            let (key, value) = match setting.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (setting, None),
            };
            let Some(attr) = declared.iter().find(|a| a.name == key) else {
                let accepted: Vec<String> = declared
                    .iter()
                    .map(|a| format!("-{}=<{}> (default {}: {})", a.name, a.kind.describe(), a.default, a.help))
                    .collect();
                return fail(format!(
                    "{name} has no attribute '-{key}' (accepted: {})",
                    if accepted.is_empty() { "none".to_string() } else { accepted.join(", ") }
                ));
            };
            attributes.values.insert(key.to_string(), attr.parse(name, value)?);
        }
        set.accelerators.push(ConfiguredBackend { backend, attributes });
    }
    if set.cpu.is_none() && !cpus.is_empty() {
        // An accelerator that comes with its CPU (the first one that does) supplies it.
        if let Some(name) = set.accelerators.iter().find_map(|a| a.backend.cpu()) {
            set.cpu = Some(*cpus.iter().find(|c| c.name == name).ok_or_else(|| {
                Error::Invalid(format!("the CPU '{name}' an accelerator names is not in the CPU table"))
            })?);
        }
    }
    // An accelerator that comes with its CPU runs its kernels on that instruction set (or, as a
    // reference, on the host): another CPU cannot drive it.
    if let Some(cpu) = set.cpu.filter(|c| c.machine != crate::Machine::Host) {
        for accelerator in &set.accelerators {
            let Some(own) = accelerator.backend.cpu().and_then(|name| CPUS.iter().find(|c| c.name == name)) else {
                continue;
            };
            let triple = |c: &Cpu| match c.machine {
                crate::Machine::Llvm { triple, .. } => Some(triple),
                crate::Machine::Host => None,
            };
            if triple(&cpu) != triple(own) {
                let alike: Vec<&str> = CPUS.iter().filter(|c| triple(c) == triple(own)).map(|c| c.name).collect();
                return fail(format!(
                    "{} is driven by its {} control unit: name {} or host as the CPU, not {}",
                    accelerator.backend.name(),
                    own.name,
                    alike.join(", "),
                    cpu.name
                ));
            }
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::register_test_backends;

    fn err(text: &str) -> String {
        parse_target_string(text).err().unwrap().to_string()
    }

    #[test]
    fn accelerators_then_cpu() {
        register_test_backends();
        let set = parse_target_string("first -n=8,cortex-m55").unwrap();
        assert_eq!(set.accelerators[0].backend.name(), "first");
        assert_eq!(set.accelerators[0].attributes.int("n"), 8);
        assert_eq!(set.cpu.map(|c| c.name), Some("cortex-m55"));
        let set = parse_target_string("first").unwrap();
        assert_eq!(set.accelerators[0].attributes.int("n"), 16, "the default");
        assert_eq!(set.accelerators[0].attribute_text(), "-n=16");
        assert!(set.cpu.is_none());
        assert_eq!(parse_target_string("host").unwrap().accelerators.len(), 0);
    }

    #[test]
    fn rejections_list_what_is_accepted() {
        register_test_backends();
        let names: Vec<&str> = backends().iter().map(|b| b.name()).collect();
        let known = format!("known accelerators: {}; CPUs: {}", names.join(", "), Cpu::names());
        assert_eq!(err("npu,cortex-m55"), format!("unknown target 'npu' ({known})"));
        assert!(err("first -size=3").starts_with("first has no attribute '-size' (accepted: -n=<int> (default 16"));
        assert_eq!(err("first -n=big"), "'-n=big' for first: the attribute takes an int");
        assert_eq!(
            err("cortex-m55,first"),
            "'first' follows the CPU in 'cortex-m55,first': accelerators come first, the CPU last"
        );
        assert_eq!(err("first,first"), "target 'first' is named twice in 'first,first'");
        assert_eq!(err("first n=3"), "'n=3' in target 0 ('first'): attributes are written -name=value");
        assert_eq!(err("first,"), format!("empty target in 'first,' ({known})"));
        assert_eq!(err("host -fast"), "the CPU 'host' takes no attributes (got '-fast')");
        // Where only accelerators are accepted, the CPUs are not offered.
        let only = |text: &str| parse_accelerators(text).err().unwrap().to_string();
        let accelerators = format!("known accelerators: {}", names.join(", "));
        assert_eq!(only("npu"), format!("unknown target 'npu' ({accelerators})"));
        assert_eq!(
            only("first,host"),
            format!("'host' is a CPU; only accelerators are accepted here ({accelerators})")
        );
    }

    #[test]
    fn attribute_types() {
        let attrs =
            [TargetAttr::int("n", 1, ""), TargetAttr::bool("fast", false, ""), TargetAttr::string("mode", "a", "")];
        let text = |r: Result<AttrValue, Error>| r.map_err(|e| e.to_string());
        assert_eq!(text(attrs[0].parse("x", Some("-4"))), Ok(AttrValue::Int(-4)));
        assert_eq!(text(attrs[1].parse("x", None)), Ok(AttrValue::Bool(true)));
        assert_eq!(text(attrs[1].parse("x", Some("false"))), Ok(AttrValue::Bool(false)));
        assert_eq!(text(attrs[1].parse("x", Some("yes"))), Err("'-fast=yes' for x: the attribute takes a bool".into()));
        assert_eq!(text(attrs[2].parse("x", Some("b"))), Ok(AttrValue::String("b".into())));
        assert_eq!(text(attrs[2].parse("x", None)), Err("'-mode' for x: the attribute takes a string".into()));
        let defaults = TargetAttrs::defaults(&attrs);
        assert_eq!((defaults.int("n"), defaults.bool("fast"), defaults.string("mode")), (1, false, "a"));
    }
}
