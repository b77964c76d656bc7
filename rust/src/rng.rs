//! STUB (API contract): NumPy's `Generator(PCG64(SeedSequence(entropy)))`, bit for bit.

/// NumPy's default generator as Gymnasium seeds it (`gymnasium.utils.seeding.np_random`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumpyGenerator {
    _private: (),
}

impl NumpyGenerator {
    /// `Generator(PCG64(SeedSequence(entropy)))` where `entropy` is the seed split into 32-bit
    /// words, least significant first (NumPy's `_coerce_to_uint32_array` of a Python int).
    pub fn from_entropy_words(_words: &[u32]) -> Self {
        todo!()
    }
    /// Same as `from_entropy_words` for a seed that fits in 64 bits.
    pub fn from_seed(_seed: u64) -> Self {
        todo!()
    }
    /// `Generator.random()`: a double in [0, 1).
    pub fn random(&mut self) -> f64 {
        todo!()
    }
    /// `Generator.uniform(low, high)`.
    pub fn uniform(&mut self, _low: f64, _high: f64) -> f64 {
        todo!()
    }
    /// `Generator.integers(low, high)` (int64, `endpoint=False`).
    pub fn integers(&mut self, _low: i64, _high: i64) -> i64 {
        todo!()
    }
}
