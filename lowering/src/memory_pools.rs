//! Memory pools: a workspace split over several memories the firmware engineer names (`--pool
//! dtcm:64K:fast --pool sram:512K`), each buffer in one of them, never past a pool's capacity.
//!
//! Buffers are taken most accessed first (their weight: bytes × the operators using them, an
//! estimate of the traffic they carry), each into the first pool it fits in, fast pools first
//! (then the others, in the order given): it fits when the pool's buffers, with it, still have a
//! placement ([`plan_within`]) inside the capacity. Each pool is then placed like a workspace.
//!
//! A pool only the CPU reaches (`:cpu`: a tightly coupled memory, the control unit's data memory
//! of an NPU, which the accelerators' DMA does not reach, as TVM USMP's pools list the targets
//! that access them) takes no buffer an accelerator's kernel reads or writes.

use crate::memory_plan::{Buffer, Plan, align_up, liveness_lower_bound, plan_within};

/// A memory the workspace may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Its name (a C identifier: the header's `N_POOL_<NAME>_SIZE`).
    pub name: String,
    /// Its bytes.
    pub capacity: u64,
    /// Fast memory (TCM): filled first.
    pub fast: bool,
    /// Only the CPU reaches it: no buffer an accelerator's kernel reads or writes goes there.
    pub cpu_only: bool,
}

impl Pool {
    /// The pool as `--pool` and `umac-plan-memory{pools}` write it: `name:size[:fast][:cpu]`.
    pub fn spec(&self) -> String {
        let flags = [(self.fast, ":fast"), (self.cpu_only, ":cpu")];
        let flags: String = flags.iter().filter(|(on, _)| *on).map(|(_, text)| *text).collect();
        format!("{}:{}{flags}", self.name, self.capacity)
    }
}

/// A pool list that does not parse, or a workspace that does not fit its pools.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("pool '{0}': expected NAME:SIZE[:fast][:cpu] (e.g. dtcm:64K:fast:cpu)")]
    Syntax(String),
    #[error("pool '{0}': the name must be a C identifier")]
    Name(String),
    #[error("pool '{0}' is given twice")]
    Twice(String),
    #[error(
        "the workspace does not fit the pools {pools}: a {size}-byte buffer{reached} fits in none of them after the \
         more accessed ones, and the buffers alive at the busiest point take {bound} bytes"
    )]
    DoesNotFit { pools: String, size: u64, reached: &'static str, bound: u64 },
}

/// Parses `name:size[:fast][:cpu]` pools separated by commas (`dtcm:65536:fast:cpu,sram:524288`;
/// sizes may end in `K` or `M`, binary).
pub fn parse_pools(text: &str) -> Result<Vec<Pool>, PoolError> {
    let mut pools: Vec<Pool> = Vec::new();
    for spec in text.split(',').filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = spec.split(':').collect();
        let bad = || PoolError::Syntax(spec.to_string());
        let (name, size, flags) = match parts.as_slice() {
            [name, size, flags @ ..] => (*name, *size, flags),
            _ => return Err(bad()),
        };
        let flag = |f: &str| flags.iter().filter(|&&g| g == f).count();
        if flags.len() > 2 || flag("fast") + flag("cpu") != flags.len() || flag("fast") > 1 || flag("cpu") > 1 {
            return Err(bad());
        }
        let valid_name = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name {
            return Err(PoolError::Name(spec.to_string()));
        }
        let (digits, scale) = match size.as_bytes().last() {
            Some(b'K' | b'k') => (&size[..size.len() - 1], 1024),
            Some(b'M' | b'm') => (&size[..size.len() - 1], 1024 * 1024),
            _ => (size, 1),
        };
        let capacity = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).ok_or_else(bad)?;
        if pools.iter().any(|p| p.name == name) {
            return Err(PoolError::Twice(name.to_string()));
        }
        pools.push(Pool { name: name.to_string(), capacity, fast: flag("fast") == 1, cpu_only: flag("cpu") == 1 });
    }
    Ok(pools)
}

/// Where the buffers went: each buffer's pool (an index into the pools as given) and each pool's
/// placement of its buffers (offsets in the order of `members`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolPlan {
    /// The pool of each buffer.
    pub pool_of: Vec<usize>,
    /// Per pool, its buffers (indices into the buffers) in order.
    pub members: Vec<Vec<usize>>,
    /// Per pool, the placement of its members.
    pub plans: Vec<Plan>,
}

/// Assigns `buffers` (with their `weights`; those an accelerator `reaches` never to a CPU-only
/// pool) to `pools` and places each pool; an error names the pools, their capacities and what
/// the buffers need.
pub fn plan_pools(
    buffers: &[Buffer],
    weights: &[u64],
    reaches: &[bool],
    pools: &[Pool],
    alignment: u64,
) -> Result<PoolPlan, PoolError> {
    let mut pool_order: Vec<usize> = (0..pools.len()).collect();
    pool_order.sort_by_key(|&p| !pools[p].fast);
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by(|&a, &b| weights[b].cmp(&weights[a]).then(buffers[b].size.cmp(&buffers[a].size)).then(a.cmp(&b)));
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); pools.len()];
    let mut pool_of = vec![usize::MAX; buffers.len()];
    let fits = |members: &[usize], capacity: u64| {
        let set: Vec<Buffer> = members.iter().map(|&m| buffers[m]).collect();
        plan_within(&set, alignment, capacity).size <= capacity
    };
    for &buffer in &order {
        let chosen = pool_order.iter().copied().filter(|&p| !(pools[p].cpu_only && reaches[buffer])).find(|&p| {
            members[p].push(buffer);
            let ok = fits(&members[p], pools[p].capacity);
            if !ok {
                members[p].pop();
            }
            ok
        });
        let Some(pool) = chosen else {
            let aligned: Vec<Buffer> =
                buffers.iter().map(|b| Buffer { size: align_up(b.size.max(1), alignment), ..*b }).collect();
            let listed: Vec<String> = pools.iter().map(|p| format!("{} ({} bytes)", p.name, p.capacity)).collect();
            let reached =
                if reaches[buffer] { " (an accelerator reads or writes it: not in a CPU-only pool)" } else { "" };
            return Err(PoolError::DoesNotFit {
                pools: listed.join(", "),
                size: buffers[buffer].size,
                reached,
                bound: liveness_lower_bound(&aligned),
            });
        };
        pool_of[buffer] = pool;
    }
    for members in &mut members {
        members.sort_unstable();
    }
    let plans = members
        .iter()
        .zip(pools)
        .map(|(members, pool)| {
            let set: Vec<Buffer> = members.iter().map(|&m| buffers[m]).collect();
            plan_within(&set, alignment, pool.capacity)
        })
        .collect();
    Ok(PoolPlan { pool_of, members, plans })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(size: u64, start: usize, end: usize) -> Buffer {
        Buffer { size, start, end }
    }

    fn pool(name: &str, capacity: u64, fast: bool) -> Pool {
        Pool { name: name.into(), capacity, fast, cpu_only: false }
    }

    #[test]
    fn pools_parse_with_units_and_flags() {
        assert_eq!(
            parse_pools("dtcm:64K:fast,sram:512K,ext:2M,raw:100").unwrap(),
            [
                pool("dtcm", 65536, true),
                pool("sram", 524288, false),
                pool("ext", 2 << 20, false),
                pool("raw", 100, false)
            ]
        );
        for bad in
            ["dtcm", "dtcm:x", "dtcm:4K:slow", "1a:4K", "a:1K,a:2K", "a:1K:fast:x", "a:1K:cpu:cpu", "a:1K:fast:fast"]
        {
            assert!(parse_pools(bad).is_err(), "{bad}");
        }
        let both = parse_pools("dmem:64K:fast:cpu,ddr:1M,tcm:8K:cpu:fast,own:4K:cpu").unwrap();
        let flags: Vec<(bool, bool)> = both.iter().map(|p| (p.fast, p.cpu_only)).collect();
        assert_eq!(flags, [(true, true), (false, false), (true, true), (false, true)]);
        let specs: Vec<String> = both.iter().map(Pool::spec).collect();
        assert_eq!(specs, ["dmem:65536:fast:cpu", "ddr:1048576", "tcm:8192:fast:cpu", "own:4096:cpu"]);
        assert_eq!(parse_pools(&specs.join(",")).unwrap(), both);
    }

    /// Hand-checked: a KWS-like chain of two 8000-byte activations (each used by 2 operators,
    /// weight 16000) and a 256-byte scratch used by 1 (weight 256) at step 1, with a fast pool of
    /// 8192 bytes and a slow one of 64K. The first activation (A, steps 0-1, weight 16000, taken
    /// first as the larger tie) goes to the fast pool; B (steps 1-2) is alive with A and does not
    /// fit beside it (16000 > 8192): slow; C (8000, steps 2-3) reuses A's bytes: fast; the
    /// scratch (step 1) is alive with A and not beside it in 8192 bytes (8000 + 256): slow.
    #[test]
    fn the_most_accessed_buffers_go_to_the_fast_pool() {
        let buffers = [b(8000, 0, 1), b(8000, 1, 2), b(8000, 2, 3), b(256, 1, 1)];
        let weights = [16000, 16000, 16000, 256];
        let pools = [pool("slow", 65536, false), pool("fast", 8192, true)];
        let planned = plan_pools(&buffers, &weights, &[false; 4], &pools, 16).unwrap();
        assert_eq!(planned.pool_of, [1, 0, 1, 0]);
        assert_eq!(planned.members, [vec![1, 3], vec![0, 2]]);
        assert_eq!(planned.plans[1], Plan { offsets: vec![0, 0], size: 8000 });
        assert_eq!(planned.plans[0].size, 8256);
    }

    #[test]
    fn a_workspace_that_fits_no_pool_names_them_and_the_need() {
        let buffers = [b(8000, 0, 1), b(8000, 1, 2)];
        let error = plan_pools(&buffers, &[1, 1], &[false; 2], &[pool("a", 1024, true), pool("b", 4096, false)], 16)
            .unwrap_err();
        assert_eq!(
            error,
            PoolError::DoesNotFit {
                pools: "a (1024 bytes), b (4096 bytes)".into(),
                size: 8000,
                reached: "",
                bound: 16000
            }
        );
        assert_eq!(
            error.to_string(),
            "the workspace does not fit the pools a (1024 bytes), b (4096 bytes): a 8000-byte buffer fits in none \
             of them after the more accessed ones, and the buffers alive at the busiest point take 16000 bytes"
        );
    }

    /// The same chain with A and C read by an accelerator's kernel and a CPU-only fast pool: A and
    /// C may not go there, so B (the most accessed of the others) does, the scratch (alive with B,
    /// 8000 + 256 > 8192) goes to the slow pool with A and C; A and C reuse the same bytes there.
    /// With room for nothing but the fast pool, A names why it fits nowhere.
    #[test]
    fn what_an_accelerator_reaches_stays_out_of_cpu_only_pools() {
        let buffers = [b(8000, 0, 1), b(8000, 1, 2), b(8000, 2, 3), b(256, 1, 1)];
        let weights = [16000, 16000, 16000, 256];
        let reaches = [true, false, true, false];
        let tcm = Pool { cpu_only: true, ..pool("tcm", 8192, true) };
        let pools = [pool("slow", 65536, false), tcm.clone()];
        let planned = plan_pools(&buffers, &weights, &reaches, &pools, 16).unwrap();
        assert_eq!(planned.pool_of, [0, 1, 0, 0]);
        assert_eq!(planned.members, [vec![0, 2, 3], vec![1]]);
        let error = plan_pools(&buffers, &weights, &reaches, &[tcm], 16).unwrap_err().to_string();
        assert!(
            error.contains("a 8000-byte buffer (an accelerator reads or writes it: not in a CPU-only pool)"),
            "{error}"
        );
    }

    #[test]
    fn one_large_pool_is_a_workspace() {
        let buffers = [b(100, 0, 1), b(200, 1, 2), b(300, 2, 3)];
        let planned = plan_pools(&buffers, &[1, 2, 3], &[false; 3], &[pool("ws", 1 << 20, false)], 16).unwrap();
        assert_eq!(planned.pool_of, [0, 0, 0]);
        assert_eq!(planned.plans[0].size, crate::memory_plan::plan(&buffers, 16).size);
    }
}
