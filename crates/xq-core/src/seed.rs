//! Seeds and stable hashes: the one place every xq crate takes them from.
//!
//! Everything random in xq derives from a configuration's seed, so the same seed and inputs
//! give the same games and files. [`derive_seed`] splits one seed into independent streams
//! (a game's, a player's, an epoch's), [`SplitMix64`] is a tiny generator for tables and
//! tests, and [`fnv1a64`] hashes text into stable identifiers (configuration hashes).
//! None of them is for security.
//!
//! ```
//! use xq_core::seed::{SplitMix64, derive_seed, fnv1a64};
//! assert_ne!(derive_seed(1, 0), derive_seed(1, 1));
//! let mut rng = SplitMix64::new(7);
//! assert!(rng.below(10) < 10);
//! assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
//! ```

/// The golden-ratio increment of SplitMix64 (2⁶⁴/φ).
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: mixes a 64-bit state into a well-distributed value.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One SplitMix64 step: the next state and the value it yields (usable in `const` tables).
#[inline]
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(GOLDEN_GAMMA);
    (next, mix64(next))
}

/// A seed derived from `base` and `index`, so every game of an event, every player in it and
/// every stage of a run gets its own reproducible stream.
#[inline]
pub const fn derive_seed(base: u64, index: u64) -> u64 {
    mix64(base ^ index.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA))
}

/// FNV-1a over `bytes`: a small, stable, dependency-free hash for identifiers.
#[inline]
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// [`fnv1a64`] as 16 lowercase hex digits, the form configuration hashes are recorded in.
pub fn fnv1a64_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

/// SplitMix64 as a generator: fast, seedable, good enough for tables, tests and weight
/// initialisation (not for anything an adversary sees).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose stream depends on `seed` alone.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let (state, value) = splitmix64(self.0);
        self.0 = state;
        value
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2⁻³² for boards and move lists).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((self.next_u64() >> 32) % n as u64) as usize
    }

    /// Uniform in `[0, 1)` with 24 bits of precision.
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_seed_is_the_splitmix_finaliser_of_the_salted_base() {
        // The values self-play and events recorded before this module existed.
        let old = |base: u64, index: u64| {
            let mut z = base ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for (base, index) in [(0, 0), (1, 7), (u64::MAX, 3), (12_345, 1 << 40)] {
            assert_eq!(derive_seed(base, index), old(base, index));
        }
    }

    #[test]
    fn fnv_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(fnv1a64_hex(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn splitmix_stream_is_the_reference_stream() {
        // First outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
