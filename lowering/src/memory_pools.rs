//! Memory pools: a workspace split over several memories the firmware engineer names (`--pool
//! dtcm:64K:fast --pool sram:512K`), each buffer in one of them, never past a pool's capacity.
//!
//! Buffers are taken most accessed first (their weight: bytes × the operators using them, an
//! estimate of the traffic they carry), each into the first pool it fits in, fast pools first
//! (then the others, in the order given): it fits when the pool's buffers, with it, still have a
//! placement ([`plan_within`]) inside the capacity. Each pool is then placed like a workspace.

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
}

/// Parses `name:size[:fast]` pools separated by commas (`dtcm:65536:fast,sram:524288`; sizes may
/// end in `K` or `M`, binary).
pub fn parse_pools(text: &str) -> Result<Vec<Pool>, String> {
    let mut pools: Vec<Pool> = Vec::new();
    for spec in text.split(',').filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = spec.split(':').collect();
        let bad = || format!("pool '{spec}': expected NAME:SIZE or NAME:SIZE:fast (e.g. dtcm:64K:fast)");
        let (name, size) = match parts.as_slice() {
            [name, size] | [name, size, "fast"] => (*name, *size),
            _ => return Err(bad()),
        };
        let valid_name = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name {
            return Err(format!("pool '{spec}': the name must be a C identifier"));
        }
        let (digits, scale) = match size.as_bytes().last() {
            Some(b'K' | b'k') => (&size[..size.len() - 1], 1024),
            Some(b'M' | b'm') => (&size[..size.len() - 1], 1024 * 1024),
            _ => (size, 1),
        };
        let capacity = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).ok_or_else(bad)?;
        if pools.iter().any(|p| p.name == name) {
            return Err(format!("pool '{name}' is given twice"));
        }
        pools.push(Pool { name: name.to_string(), capacity, fast: parts.len() == 3 });
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

/// Assigns `buffers` (with their `weights`) to `pools` and places each pool; an error names the
/// pools, their capacities and what the buffers need.
pub fn plan_pools(buffers: &[Buffer], weights: &[u64], pools: &[Pool], alignment: u64) -> Result<PoolPlan, String> {
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
        let chosen = pool_order.iter().copied().find(|&p| {
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
            return Err(format!(
                "the workspace does not fit the pools {}: a {}-byte buffer fits in none of them after the more \
                 accessed ones, and the buffers alive at the busiest point take {} bytes",
                listed.join(", "),
                buffers[buffer].size,
                liveness_lower_bound(&aligned)
            ));
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
        Pool { name: name.into(), capacity, fast }
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
        for bad in ["dtcm", "dtcm:x", "dtcm:4K:slow", "1a:4K", "a:1K,a:2K", "a:1K:fast:x"] {
            assert!(parse_pools(bad).is_err(), "{bad}");
        }
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
        let planned = plan_pools(&buffers, &weights, &pools, 16).unwrap();
        assert_eq!(planned.pool_of, [1, 0, 1, 0]);
        assert_eq!(planned.members, [vec![1, 3], vec![0, 2]]);
        assert_eq!(planned.plans[1], Plan { offsets: vec![0, 0], size: 8000 });
        assert_eq!(planned.plans[0].size, 8256);
    }

    #[test]
    fn a_workspace_that_fits_no_pool_names_them_and_the_need() {
        let buffers = [b(8000, 0, 1), b(8000, 1, 2)];
        let error = plan_pools(&buffers, &[1, 1], &[pool("a", 1024, true), pool("b", 4096, false)], 16).unwrap_err();
        assert_eq!(
            error,
            "the workspace does not fit the pools a (1024 bytes), b (4096 bytes): a 8000-byte buffer fits in none \
             of them after the more accessed ones, and the buffers alive at the busiest point take 16000 bytes"
        );
    }

    #[test]
    fn one_large_pool_is_a_workspace() {
        let buffers = [b(100, 0, 1), b(200, 1, 2), b(300, 2, 3)];
        let planned = plan_pools(&buffers, &[1, 2, 3], &[pool("ws", 1 << 20, false)], 16).unwrap();
        assert_eq!(planned.pool_of, [0, 0, 0]);
        assert_eq!(planned.plans[0].size, crate::memory_plan::plan(&buffers, 16).size);
    }
}
