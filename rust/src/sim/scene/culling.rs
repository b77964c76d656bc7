//! Gymnasium's polygon clip test, with a world-space pre-test in front of it.

use super::{GRASS_DIM, SCALE, TRACK_DETAIL_STEP, TRACK_WIDTH, ZOOM};
use crate::render::Transform;

/// Gymnasium's `MAX_SHAPE_DIM`: the margin (window pixels) of its polygon clip test.
pub(super) fn max_shape_dim() -> f64 {
    GRASS_DIM.max(TRACK_WIDTH).max(TRACK_DETAIL_STEP) * std::f64::consts::SQRT_2 * ZOOM * SCALE
}

/// Gymnasium's polygon clip test (draw a polygon if any vertex lies within `MAX_SHAPE_DIM`
/// of the window), with a world-space pre-test so that the many polygons far off screen cost
/// a few comparisons rather than a transform.
pub(super) struct Culler {
    /// World units to output pixels.
    ts: Transform,
    /// The clip box, output pixels: `[x0, x1]`, `[y0, y1]`.
    bx: [f64; 2],
    by: [f64; 2],
    /// A world-space box (world units) holding every point that `ts` maps into the clip box.
    pub(super) wx: [f64; 2],
    pub(super) wy: [f64; 2],
}

impl Culler {
    pub(super) fn new(ts: Transform, bx: [f64; 2], by: [f64; 2]) -> Self {
        let (mut wx, mut wy) = ([f64::MIN, f64::MAX], [f64::MIN, f64::MAX]);
        if let Some(inv) = ts.inverse() {
            let corners = [
                [bx[0], by[0]],
                [bx[1], by[0]],
                [bx[0], by[1]],
                [bx[1], by[1]],
            ];
            let c = corners.map(|q| inv.apply(q));
            let lo = |k: usize| c.iter().map(|p| p[k]).fold(f64::MAX, f64::min);
            let hi = |k: usize| c.iter().map(|p| p[k]).fold(f64::MIN, f64::max);
            // Pad far beyond the rounding of the forward and inverse maps, so the pre-test
            // never rejects a polygon that the exact test in pixels would keep.
            let mag = c.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
            let pad = 1e-6 * mag;
            if c.iter().flatten().all(|v| v.is_finite()) {
                (wx, wy) = ([lo(0) - pad, hi(0) + pad], [lo(1) - pad, hi(1) + pad]);
            }
        }
        Self { ts, bx, by, wx, wy }
    }

    /// Maps `poly` (world units) to output pixels in `out`; returns whether Gymnasium draws it.
    pub(super) fn project<const N: usize>(
        &self,
        poly: &[[f64; 2]; N],
        out: &mut [[f32; 2]; N],
    ) -> bool {
        // Non-short-circuit `&`/`|`: branch-free, as most polygons are far away.
        let inside = |p: [f64; 2], x: [f64; 2], y: [f64; 2]| {
            (p[0] >= x[0]) & (p[0] <= x[1]) & (p[1] >= y[0]) & (p[1] <= y[1])
        };
        if !poly
            .iter()
            .fold(false, |any, &p| any | inside(p, self.wx, self.wy))
        {
            return false;
        }
        let mut visible = false;
        for (o, &p) in out.iter_mut().zip(poly) {
            let q = self.ts.apply(p);
            visible |= inside(q, self.bx, self.by);
            *o = [q[0] as f32, q[1] as f32];
        }
        visible
    }
}
