//! The accelerators umac is built with. Each is a crate under `targets/` exporting
//! `pub static BACKEND`, listed by one line in this crate's `Cargo.toml`; `build.rs` turns that
//! list into [`backends`], and [`register`] hands it to the backend API (target strings, the
//! partitioner, each `umac-legalize-<name>` pass). Devices that run a model's custom operator
//! whole (`pub static CUSTOM_OPERATOR`, another compiler's NPU program) are a second list,
//! [`custom_operators`], which `umac run` looks a model's custom operators up in.

include!(concat!(env!("OUT_DIR"), "/backends.rs"));

/// Registers every accelerator and its passes (once per process; later calls do nothing).
pub fn register() {
    umac_backend::register_backends(backends());
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_accelerator_is_registered_with_its_passes() {
        super::register();
        let names: Vec<&str> = umac_backend::backends().iter().map(|b| b.name()).collect();
        assert_eq!(names.first(), Some(&"vanilla"), "{names:?}");
        assert!(umac_lowering::lookup("umac-legalize-vanilla").is_some());
        assert!(umac_lowering::lookup("umac-partition").is_some());
    }

    #[test]
    fn every_listed_custom_operator_is_there() {
        let codes: Vec<&str> = super::custom_operators().iter().map(|c| c.custom_code()).collect();
        assert_eq!(codes, ["ethos-u"]);
    }
}
