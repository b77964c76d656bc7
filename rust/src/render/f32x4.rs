//! Four `f32` lanes as one value: a pixel `[r, g, b, a]` of the compositing row, or a cell of
//! colour-weighted coverage. Every operation is the same IEEE operation on each lane as the
//! scalar code it replaces (no fused multiply-add), so results are bit-identical; on x86-64 it
//! is one SSE instruction (part of the baseline, and VEX-encoded inside AVX2-compiled
//! callers), elsewhere a plain array the compiler may vectorize.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Four lanes; lane 3 is the coverage (cells) or unused (row pixels).
#[derive(Clone, Copy)]
pub struct F32x4(
    #[cfg(target_arch = "x86_64")] __m128,
    #[cfg(not(target_arch = "x86_64"))] [f32; 4],
);

// Every intrinsic below needs only SSE/SSE2, part of the x86-64 baseline; each block states its
// own invariant.
#[cfg(target_arch = "x86_64")]
impl F32x4 {
    #[inline(always)]
    pub fn load(v: &[f32; 4]) -> Self {
        // SAFETY: SSE is baseline on x86-64; `v` is a live reference to exactly four f32s, and
        // `loadu` needs no alignment, so the 16-byte read stays inside it.
        Self(unsafe { _mm_loadu_ps(v.as_ptr()) })
    }

    #[inline(always)]
    pub fn store(self, to: &mut [f32; 4]) {
        // SAFETY: SSE is baseline on x86-64; `to` is a unique reference to exactly four f32s,
        // and `storeu` needs no alignment, so the 16-byte write stays inside it.
        unsafe { _mm_storeu_ps(to.as_mut_ptr(), self.0) }
    }

    #[inline(always)]
    pub fn splat(v: f32) -> Self {
        // SAFETY: SSE is baseline on x86-64; the intrinsic touches no memory.
        Self(unsafe { _mm_set1_ps(v) })
    }

    #[inline(always)]
    pub fn zero() -> Self {
        // SAFETY: SSE is baseline on x86-64; the intrinsic touches no memory.
        Self(unsafe { _mm_setzero_ps() })
    }

    /// Lane 3 in every lane.
    #[inline(always)]
    pub fn broadcast_a(self) -> Self {
        // SAFETY: SSE is baseline on x86-64; a register shuffle touches no memory.
        Self(unsafe { _mm_shuffle_ps::<0xff>(self.0, self.0) })
    }

    /// Lane 3.
    #[inline(always)]
    pub fn a(self) -> f32 {
        // SAFETY: SSE is baseline on x86-64; a register shuffle and lane read touch no memory.
        unsafe { _mm_cvtss_f32(_mm_shuffle_ps::<0xff>(self.0, self.0)) }
    }

    /// Whether every lane is zero (`-0.0` counts as zero, as with `==`).
    #[inline(always)]
    pub fn is_zero(self) -> bool {
        // SAFETY: SSE is baseline on x86-64; compare and movemask work on registers only.
        unsafe { _mm_movemask_ps(_mm_cmpneq_ps(self.0, _mm_setzero_ps())) == 0 }
    }

    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        let mut out = [0.0; 4];
        self.store(&mut out);
        out
    }
}

#[cfg(target_arch = "x86_64")]
macro_rules! lanewise {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl std::ops::$trait for F32x4 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                // SAFETY: SSE is part of the x86-64 baseline; lane-wise arithmetic on registers
                // touches no memory.
                Self(unsafe { $intrinsic(self.0, rhs.0) })
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
lanewise!(Add, add, _mm_add_ps);
#[cfg(target_arch = "x86_64")]
lanewise!(Sub, sub, _mm_sub_ps);
#[cfg(target_arch = "x86_64")]
lanewise!(Mul, mul, _mm_mul_ps);
#[cfg(target_arch = "x86_64")]
lanewise!(Div, div, _mm_div_ps);

#[cfg(not(target_arch = "x86_64"))]
impl F32x4 {
    #[inline(always)]
    pub fn load(v: &[f32; 4]) -> Self {
        Self(*v)
    }

    #[inline(always)]
    pub fn store(self, to: &mut [f32; 4]) {
        *to = self.0;
    }

    #[inline(always)]
    pub fn splat(v: f32) -> Self {
        Self([v; 4])
    }

    #[inline(always)]
    pub fn zero() -> Self {
        Self([0.0; 4])
    }

    #[inline(always)]
    pub fn broadcast_a(self) -> Self {
        Self([self.0[3]; 4])
    }

    #[inline(always)]
    pub fn a(self) -> f32 {
        self.0[3]
    }

    #[inline(always)]
    pub fn is_zero(self) -> bool {
        self.0 == [0.0; 4]
    }

    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0
    }
}

#[cfg(not(target_arch = "x86_64"))]
macro_rules! lanewise {
    ($trait:ident, $method:ident, $op:tt) => {
        impl std::ops::$trait for F32x4 {
            type Output = Self;
            #[inline(always)]
            fn $method(self, rhs: Self) -> Self {
                Self(std::array::from_fn(|i| self.0[i] $op rhs.0[i]))
            }
        }
    };
}

#[cfg(not(target_arch = "x86_64"))]
lanewise!(Add, add, +);
#[cfg(not(target_arch = "x86_64"))]
lanewise!(Sub, sub, -);
#[cfg(not(target_arch = "x86_64"))]
lanewise!(Mul, mul, *);
#[cfg(not(target_arch = "x86_64"))]
lanewise!(Div, div, /);

impl F32x4 {
    /// Sets every element of `px` to this value, four per loop iteration from a register
    /// (a fill is most of what a frame's background and covered runs cost).
    #[inline(always)]
    pub fn fill(self, px: &mut [[f32; 4]]) {
        let mut quads = px.chunks_exact_mut(4);
        for q in &mut quads {
            for d in q {
                self.store(d);
            }
        }
        for d in quads.into_remainder() {
            self.store(d);
        }
    }
}

impl std::fmt::Debug for F32x4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_array().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_match_scalar_arithmetic() {
        let a = [1.5f32, -2.25, 1e-3, 7.0];
        let b = [0.1f32, 3.0, -4.5, 0.3];
        let (va, vb) = (F32x4::load(&a), F32x4::load(&b));
        let lanes = |f: fn(f32, f32) -> f32| -> [f32; 4] { std::array::from_fn(|i| f(a[i], b[i])) };
        assert_eq!((va + vb).to_array(), lanes(|x, y| x + y));
        assert_eq!((va - vb).to_array(), lanes(|x, y| x - y));
        assert_eq!((va * vb).to_array(), lanes(|x, y| x * y));
        assert_eq!((va / vb).to_array(), lanes(|x, y| x / y));
        assert_eq!(va.broadcast_a().to_array(), [7.0; 4]);
        assert_eq!(va.a(), 7.0);
        assert!(F32x4::load(&[0.0, -0.0, 0.0, 0.0]).is_zero());
        assert!(!F32x4::load(&[0.0, 0.0, 0.0, 1e-30]).is_zero());
        assert!(!F32x4::load(&[f32::NAN, 0.0, 0.0, 0.0]).is_zero());
    }
}
