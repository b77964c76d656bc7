//! NumPy's default random generator, `Generator(PCG64(SeedSequence(entropy)))`, bit for bit.
//!
//! Gymnasium seeds every environment with `gymnasium.utils.seeding.np_random(seed)`, which builds
//! exactly this generator, and CarRacing's track shape, colours and retries depend on every draw.
//! To produce the same track as Gymnasium for the same seed we therefore reproduce, without
//! shortcuts, each stage NumPy goes through:
//!
//! 1. `SeedSequence`: the seed (a Python int) is split into 32-bit words and hashed into a
//!    4-word pool (`mix_entropy`), then expanded into 4 × u64 (`generate_state(4, np.uint64)`).
//! 2. `PCG64`: a 128-bit LCG seeded from those words, with the XSL-RR 64-bit output function.
//! 3. `Generator`: `random`, `uniform` and `integers` map raw draws to values the way NumPy's C
//!    distributions do, including PCG64's buffered upper half for 32-bit requests.
//!
//! Reference values in the tests come from NumPy itself (`tools/gen_rng_reference.py`).

/// `SeedSequence` pool size (NumPy's `DEFAULT_POOL_SIZE`, in 32-bit words).
const POOL_SIZE: usize = 4;
/// Hash constants of NumPy's `SeedSequence` (from `bit_generator.pyx`).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
/// Half the bit width of a pool word.
const XSHIFT: u32 = 16;

/// PCG64's 128-bit LCG multiplier (`PCG_DEFAULT_MULTIPLIER_128`).
const PCG_MULTIPLIER: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// NumPy's `_coerce_to_uint32_array` for a non-negative int: 32-bit words, least significant
/// first, with zero giving `[0]` rather than an empty array.
pub fn coerce_seed_words(seed: u128) -> Vec<u32> {
    let mut words = vec![seed as u32];
    let mut rest = seed >> 32;
    while rest != 0 {
        words.push(rest as u32);
        rest >>= 32;
    }
    words
}

/// `SeedSequence`'s `hashmix`: the multiplier `hash_const` advances on every call, so the
/// order of calls matters and must follow NumPy exactly.
fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut value = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    value = value.wrapping_mul(*hash_const);
    value ^ (value >> XSHIFT)
}

/// `SeedSequence`'s `mix`: combines two pool words.
fn mix(x: u32, y: u32) -> u32 {
    let result = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    result ^ (result >> XSHIFT)
}

/// `SeedSequence.mix_entropy` for an empty spawn key: the 4-word entropy pool.
pub fn seed_sequence_pool(entropy: &[u32]) -> [u32; POOL_SIZE] {
    let mut hash_const = INIT_A;
    let mut pool = [0u32; POOL_SIZE];
    // Words beyond the entropy are hashed as zeros.
    for (i, slot) in pool.iter_mut().enumerate() {
        *slot = hashmix(entropy.get(i).copied().unwrap_or(0), &mut hash_const);
    }
    // Every word influences every other.
    for i_src in 0..POOL_SIZE {
        for i_dst in 0..POOL_SIZE {
            if i_src != i_dst {
                let h = hashmix(pool[i_src], &mut hash_const);
                pool[i_dst] = mix(pool[i_dst], h);
            }
        }
    }
    // Entropy longer than the pool is folded in afterwards.
    for &word in entropy.iter().skip(POOL_SIZE) {
        for slot in pool.iter_mut() {
            let h = hashmix(word, &mut hash_const);
            *slot = mix(*slot, h);
        }
    }
    pool
}

/// `SeedSequence.generate_state(4, np.uint64)`: 8 u32 words paired little-endian into u64s.
pub fn seed_sequence_state_u64x4(pool: &[u32; POOL_SIZE]) -> [u64; 4] {
    let mut hash_const = INIT_B;
    let mut words = [0u32; 8];
    for (i, word) in words.iter_mut().enumerate() {
        let mut value = pool[i % POOL_SIZE] ^ hash_const;
        hash_const = hash_const.wrapping_mul(MULT_B);
        value = value.wrapping_mul(hash_const);
        *word = value ^ (value >> XSHIFT);
    }
    let mut out = [0u64; 4];
    for (i, v) in out.iter_mut().enumerate() {
        *v = u64::from(words[2 * i]) | (u64::from(words[2 * i + 1]) << 32);
    }
    out
}

/// NumPy's default generator as Gymnasium seeds it (`gymnasium.utils.seeding.np_random`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumpyGenerator {
    /// PCG64 LCG state.
    state: u128,
    /// PCG64 LCG increment (always odd).
    inc: u128,
    /// Whether `uinteger` holds the unused upper half of a 64-bit draw.
    has_uint32: bool,
    /// Buffered upper half, handed out by the next 32-bit request.
    uinteger: u32,
}

/// Lemire's bounded rejection sampling as NumPy writes it, at one width: the high half of a
/// draw times `rng + 1`, redrawn while the low half falls below NumPy's threshold. NumPy has it
/// twice (32 and 64 bits), and each width must draw exactly as NumPy's does.
macro_rules! bounded_lemire {
    ($(#[$doc:meta])* fn $name:ident(rng: $t:ty, product: $wide:ty, draw: $next:ident)) => {
        $(#[$doc])*
        fn $name(&mut self, rng: $t) -> $t {
            let rng_excl = rng + 1;
            let mut m = <$wide>::from(self.$next()) * <$wide>::from(rng_excl);
            let mut leftover = m as $t;
            if leftover < rng_excl {
                let threshold = (<$t>::MAX - rng) % rng_excl;
                while leftover < threshold {
                    m = <$wide>::from(self.$next()) * <$wide>::from(rng_excl);
                    leftover = m as $t;
                }
            }
            (m >> <$t>::BITS) as $t
        }
    };
}

impl NumpyGenerator {
    /// `Generator(PCG64(SeedSequence(entropy)))` where `entropy` is the seed split into 32-bit
    /// words, least significant first (NumPy's `_coerce_to_uint32_array` of a Python int).
    pub fn from_entropy_words(words: &[u32]) -> Self {
        let s = seed_sequence_state_u64x4(&seed_sequence_pool(words));
        let initstate = (u128::from(s[0]) << 64) | u128::from(s[1]);
        let initseq = (u128::from(s[2]) << 64) | u128::from(s[3]);
        Self::from_pcg64_seed(initstate, initseq)
    }

    /// Same as `from_entropy_words` for a seed that fits in 64 bits.
    pub fn from_seed(seed: u64) -> Self {
        Self::from_entropy_words(&coerce_seed_words(u128::from(seed)))
    }

    /// PCG's `pcg_setseq_128_srandom_r(initstate, initseq)`, with an empty 32-bit buffer.
    pub fn from_pcg64_seed(initstate: u128, initseq: u128) -> Self {
        let mut rng = Self {
            state: 0,
            inc: (initseq << 1) | 1,
            has_uint32: false,
            uinteger: 0,
        };
        rng.step();
        rng.state = rng.state.wrapping_add(initstate);
        rng.step();
        rng
    }

    /// The PCG64 `(state, inc)` pair, as in NumPy's `bit_generator.state["state"]`.
    pub fn pcg64_state(&self) -> (u128, u128) {
        (self.state, self.inc)
    }

    /// Rebuilds a generator from NumPy's full `bit_generator.state`: `state`, `inc`,
    /// `has_uint32`, `uinteger`. Lets a caller's `np_random` and ours be one stream.
    pub fn from_pcg64_state(state: u128, inc: u128, has_uint32: bool, uinteger: u32) -> Self {
        Self {
            state,
            inc,
            has_uint32,
            uinteger,
        }
    }

    /// The full state in NumPy's terms, `(state, inc, has_uint32, uinteger)`.
    pub fn pcg64_full_state(&self) -> (u128, u128, bool, u32) {
        (self.state, self.inc, self.has_uint32, self.uinteger)
    }

    /// The buffered upper half of the last 64-bit draw split for a 32-bit request, if any
    /// (NumPy's `has_uint32` / `uinteger`).
    pub fn buffered_uint32(&self) -> Option<u32> {
        self.has_uint32.then_some(self.uinteger)
    }

    /// Advances the 128-bit LCG one step.
    fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(PCG_MULTIPLIER)
            .wrapping_add(self.inc);
    }

    /// PCG64's `next_uint64`: step, then XSL-RR output of the new state.
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let xored = ((self.state >> 64) as u64) ^ (self.state as u64);
        xored.rotate_right((self.state >> 122) as u32)
    }

    /// PCG64's `next_uint32`. Each 64-bit draw serves two 32-bit requests: the low half now,
    /// the high half on the next call. The buffer persists across `random`/`uniform` calls
    /// (which draw full 64 bits), so interleaved sequences depend on it.
    pub fn next_u32(&mut self) -> u32 {
        if self.has_uint32 {
            self.has_uint32 = false;
            return self.uinteger;
        }
        let next = self.next_u64();
        self.has_uint32 = true;
        self.uinteger = (next >> 32) as u32;
        next as u32
    }

    /// `Generator.random()`: a double in [0, 1) from the top 53 bits of one 64-bit draw.
    pub fn random(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `Generator.uniform(low, high)`: `low + (high - low) * random()`, unfused like NumPy's C.
    ///
    /// NumPy raises `OverflowError` when `high - low` is not finite; here the result is then
    /// simply non-finite.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        let range = high - low;
        low + range * self.random()
    }

    /// `Generator.integers(low, high)` (int64, `endpoint=False`): a value in `[low, high)`.
    ///
    /// Follows NumPy's `random_bounded_uint64_fill` without masking: Lemire's method on a
    /// 32-bit draw (which uses the buffered half) when `high - 1 - low` fits in 32 bits,
    /// otherwise on a full 64-bit draw.
    ///
    /// # Panics
    ///
    /// If `low >= high`, where NumPy raises `ValueError`.
    pub fn integers(&mut self, low: i64, high: i64) -> i64 {
        assert!(low < high, "integers: low >= high ({low} >= {high})");
        // Inclusive span as NumPy computes it: `high - 1 - low` in two's complement.
        let rng = (high as u64).wrapping_sub(1).wrapping_sub(low as u64);
        let off = low as u64;
        let value = if rng == 0 {
            0
        } else if rng <= u64::from(u32::MAX) {
            if rng == u64::from(u32::MAX) {
                u64::from(self.next_u32())
            } else {
                u64::from(self.bounded_lemire_u32(rng as u32))
            }
        } else if rng == u64::MAX {
            self.next_u64()
        } else {
            self.bounded_lemire_u64(rng)
        };
        off.wrapping_add(value) as i64
    }

    bounded_lemire! {
        /// NumPy's `buffered_bounded_lemire_uint32`: uniform in `[0, rng]`, `rng < u32::MAX`.
        fn bounded_lemire_u32(rng: u32, product: u64, draw: next_u32)
    }

    bounded_lemire! {
        /// NumPy's `bounded_lemire_uint64`: uniform in `[0, rng]`, `rng < u64::MAX`.
        fn bounded_lemire_u64(rng: u64, product: u128, draw: next_u64)
    }
}

#[cfg(test)]
mod tests;
