//! The arithmetic of one cell: float coordinates to cell indices on the hot edge loop, an
//! edge's signed area deposited into the cells it crosses, and a summed cell renormalised.

use crate::render::f32x4::F32x4;

/// `floor` of a non-negative value as an index. A NaN or a value beyond `i32` gives an index
/// far outside any grid, so the slicing that follows panics (caught at the binding) rather
/// than drawing garbage.
#[inline]
pub(super) fn floor_usize(v: f32) -> usize {
    floor_i32(v) as usize
}

/// [`floor_usize`] as an `i32` (negative for a NaN or out-of-range input).
#[inline]
pub(super) fn floor_i32(v: f32) -> i32 {
    // Rust's saturating `as` adds NaN and range checks around the conversion; this sits on
    // the hottest path of the rasterizer, so use the bare truncating instruction where we
    // know it (x86-64: `cvttss2si`, defined for every input).
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvttss_si32, _mm_set_ss};
        // SAFETY: SSE is part of the x86-64 baseline.
        unsafe { _mm_cvttss_si32(_mm_set_ss(v)) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        v as i32
    }
}

/// The smaller of two floats, as one `minss`: `f32::min`'s NaN handling costs three more
/// instructions, on the rasterizer's hottest lines. (Coordinates here are finite; a NaN
/// would give a far out-of-range index, hence a caught panic, as with `floor_usize`.)
#[inline]
pub(super) fn min_f(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// The larger of two floats; see [`min_f`].
#[inline]
pub(super) fn max_f(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `ceil` of a non-negative value as an index, without a libm call.
#[inline]
pub(super) fn ceil_usize(v: f32) -> usize {
    let i = floor_i32(v);
    (if (i as f32) < v { i + 1 } else { i }) as usize
}

/// Adds `k` times the colour weight `wgt` to one cell.
#[inline]
pub(super) fn deposit(cell: &mut [f32; 4], wgt: [f32; 4], k: f32) {
    cell[0] += wgt[0] * k;
    cell[1] += wgt[1] * k;
    cell[2] += wgt[2] * k;
    cell[3] += wgt[3] * k;
}

/// Deposits the signed height `d` of an edge that crosses `cells` (three or more, the last
/// one right of the edge) within one row: `xaf` is where it enters the first cell and `xbf`
/// where it leaves the second-last (fractions of a pixel), `s` is `1 / (xb - xa)` (pixels⁻¹).
#[inline]
pub(super) fn deposit_span(
    cells: &mut [[f32; 4]],
    wgt: [f32; 4],
    d: f32,
    xaf: f32,
    xbf: f32,
    s: f32,
) {
    let n = cells.len();
    let a0 = 0.5 * s * (1.0 - xaf) * (1.0 - xaf);
    let am = 0.5 * s * xbf * xbf;
    deposit(&mut cells[0], wgt, d * a0);
    if n == 3 {
        deposit(&mut cells[1], wgt, d * (1.0 - a0 - am));
    } else {
        let a1 = s * (1.5 - xaf);
        deposit(&mut cells[1], wgt, d * (a1 - a0));
        for c in &mut cells[2..n - 2] {
            deposit(c, wgt, d * s);
        }
        let a2 = a1 + (n - 4) as f32 * s;
        deposit(&mut cells[n - 2], wgt, d * (1.0 - a2 - am));
    }
    deposit(&mut cells[n - 1], wgt, d * am);
}

/// A running sum `[r·a, g·a, b·a, a]` with `a` clamped to 1 (colour scaled alike).
#[inline(always)]
pub(super) fn renormalise4(s: F32x4) -> F32x4 {
    if s.a() <= 1.0 {
        // The common case: scaling by 1 would change nothing, so skip the division.
        return s;
    }
    s * (F32x4::splat(1.0) / s.broadcast_a())
}

/// [`renormalise4`] of an array.
#[inline(always)]
pub(super) fn renormalise(s: [f32; 4]) -> [f32; 4] {
    renormalise4(F32x4::load(&s)).to_array()
}
