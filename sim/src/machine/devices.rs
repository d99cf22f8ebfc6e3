//! The devices a machine hosts: attaching them (their memories, custom opcodes and register
//! windows), routing the core's accesses to them, and what they did.

use super::{Machine, Stop};
use crate::{
    device::{Device, DeviceError, Work},
    memory::{MapError, core_regions},
};

/// A device that cannot join the machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    #[error("{device}: {source}")]
    Region { device: String, source: MapError },
    #[error("{device} and {other} both decode custom-{custom}")]
    Custom { device: String, other: String, custom: u8 },
    #[error("{device}: custom-{custom} does not exist (0 to 3)")]
    NoCustom { device: String, custom: u8 },
    #[error("{device}'s registers [{start:#010x}, {end:#010x}) overlap a memory or another device's")]
    Registers { device: String, start: u32, end: u32 },
}

impl Machine {
    /// The machine with `devices` attached.
    pub fn with(devices: Vec<Box<dyn Device>>) -> Result<Machine, AttachError> {
        let mut m = Machine::new();
        for device in devices {
            m.attach(device)?;
        }
        Ok(m)
    }

    /// Attaches a device: its memories join the map, its custom opcodes and registers route to
    /// it. Attach before loading a program.
    pub fn attach(&mut self, device: Box<dyn Device>) -> Result<(), AttachError> {
        let index = self.devices.len();
        let name = device.name().to_string();
        for &custom in device.custom_opcodes() {
            let slot =
                self.custom.get(usize::from(custom)).ok_or(AttachError::NoCustom { device: name.clone(), custom })?;
            if let Some(other) = slot {
                let other = self.devices[usize::from(*other)].name().to_string();
                return Err(AttachError::Custom { device: name, other, custom });
            }
        }
        if let Some((start, end)) = device.registers() {
            let in_memory = (start..end)
                .step_by(1 << crate::memory::PAGE_BITS)
                .chain([end.saturating_sub(1)])
                .any(|a| self.memory.region_of(a).is_some());
            let in_window = self.windows.iter().any(|&(s, e, _)| start < e && s < end);
            if start >= end || in_memory || in_window {
                return Err(AttachError::Registers { device: name, start, end });
            }
            self.windows.push((start, end, index));
        }
        for spec in device.regions() {
            self.memory.add(spec).map_err(|source| AttachError::Region { device: name.clone(), source })?;
        }
        if let Some(latency) = device.ddr_latency() {
            for spec in core_regions(latency).into_iter().filter(|r| r.name == "ddr") {
                self.memory.set_timing(&spec.name, spec.load_cycles, spec.fetch_cycles);
            }
        }
        for &custom in device.custom_opcodes() {
            self.custom[usize::from(custom)] = Some(index as u8);
        }
        self.devices.push(device);
        Ok(())
    }

    /// The first device of type `T`.
    pub fn device<T: Device>(&self) -> Option<&T> {
        self.devices.iter().find_map(|d| d.downcast_ref::<T>())
    }

    /// The work all devices did so far.
    pub fn work(&self) -> Work {
        self.devices
            .iter()
            .map(|d| d.work())
            .fold(Work::default(), |a, w| Work { macs: a.macs + w.macs, ddr_bytes: a.ddr_bytes + w.ddr_bytes })
    }

    /// The cycle the devices' last work completes (0 without any).
    pub fn devices_busy_until(&self) -> u64 {
        self.devices.iter().map(|d| d.busy_until()).max().unwrap_or(0)
    }

    pub(super) fn device_error(&self, pc: u32, e: DeviceError) -> Stop {
        self.stop(pc, e.0)
    }

    /// Checks a core access against the devices' work in flight.
    pub(super) fn check(&self, pc: u32, addr: u32, len: u32, write: bool) -> Result<(), Stop> {
        for d in &self.devices {
            d.check_access(addr, len, write, pc).map_err(|e| self.device_error(pc, e))?;
        }
        Ok(())
    }

    /// The device whose registers hold `addr`.
    pub(super) fn window(&self, addr: u32) -> Option<usize> {
        self.windows.iter().find(|&&(s, e, _)| addr >= s && addr < e).map(|w| w.2)
    }

    /// A core access to a device's registers: its value and cycles.
    #[cold]
    pub(super) fn register_access(
        &mut self,
        pc: u32,
        device: usize,
        addr: u32,
        len: u32,
        value: Option<u32>,
    ) -> Result<(u32, u64), Stop> {
        let now = self.cycles;
        let outcome = self.devices[device]
            .access(&mut self.memory, addr, len, value, now)
            .map_err(|e| self.device_error(pc, e))?;
        self.started = true;
        Ok((outcome.value, outcome.cycles))
    }
}
