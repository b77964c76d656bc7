//! Rendering a frame: every recorded operation applied to each row in drawing order, into
//! the canvas's one-row buffer (0–255 floats per channel, lane 3 unused).

use super::super::f32x4::F32x4;
use super::{Canvas, GrayPatch, Op};

impl Canvas {
    /// Renders the frame row by row: calls `emit(y, row)` with each composited row (0–255
    /// floats), top to bottom. Resolves every layer; the recorded operations stay.
    #[inline(always)]
    pub(super) fn render_rows(&mut self, mut emit: impl FnMut(usize, &[[f32; 4]])) {
        self.composite_layer();
        let w = self.width;
        let row = &mut self.row;
        for y in 0..self.height {
            if !matches!(
                self.ops.first(),
                Some(Op::Clear { rows, .. } | Op::ClearThenLayer { rows, .. }) if y < *rows
            ) {
                // The frame starts black.
                fill_px(row, [0.0; 3]);
            }
            for op in &self.ops {
                match op {
                    &Op::Clear { rows, color } => {
                        if y < rows {
                            fill_px(row, color);
                        }
                    }
                    &Op::Layer(i) => self.layers[i].composite_row_over(y, row),
                    &Op::ClearThenLayer { rows, color, layer } => {
                        let layer = &mut self.layers[layer];
                        if y < rows {
                            layer.composite_row_onto(y, row, [color[0], color[1], color[2], 0.0]);
                        } else {
                            layer.composite_row_over(y, row);
                        }
                    }
                    Op::Rect {
                        cols,
                        y: ys,
                        rows,
                        color,
                    } => {
                        if (rows.0..rows.1).contains(&y) {
                            paint_rect_row(row, y, cols, *ys, *color);
                        }
                    }
                    &Op::Patch(i) => blend_patch_row(&self.patches[i], y, row),
                    &Op::Baked => {
                        for (d, p) in row.iter_mut().zip(&self.img[y * w..(y + 1) * w]) {
                            *d = [p[0], p[1], p[2], 0.0];
                        }
                    }
                }
            }
            emit(y, row);
        }
    }
}

/// The columns of a rectangle `[x0, x1) × ...` (canvas pixels, clamped, non-empty), worked out
/// once for all its rows: `full` lie wholly inside (coverage exactly 1), and at most two
/// partial columns at the ends with their coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct RectColumns {
    full: (usize, usize),
    partial: [(usize, f32); 2],
    partial_count: usize,
}

impl RectColumns {
    pub(super) fn new(x0: f64, x1: f64) -> Self {
        let cols = x0 as usize..(x1.ceil() as usize);
        let full = (x0.ceil() as usize).min(cols.end)..(x1 as usize).max(cols.start);
        let full = (full.start, full.end.max(full.start));
        let mut partial = [(0, 0.0); 2];
        let mut partial_count = 0;
        for x in (cols.start..full.0).chain(full.1..cols.end) {
            // A rectangle narrower than a pixel has one partial column (then `full` is empty).
            if partial_count < 2 {
                partial[partial_count] = (x, overlap(x0, x1, x));
                partial_count += 1;
            }
        }
        Self {
            full,
            partial,
            partial_count,
        }
    }
}

/// Length of `[lo, hi) ∩ [i, i + 1)`.
fn overlap(lo: f64, hi: f64, i: usize) -> f32 {
    ((hi.min(i as f64 + 1.0) - lo.max(i as f64)).max(0.0)) as f32
}

/// Row `y` (one the rectangle touches) of [`Canvas::fill_rect`] of columns `cols` × `[ys[0],
/// ys[1])`.
#[inline(always)]
fn paint_rect_row(
    row: &mut [[f32; 4]],
    y: usize,
    cols: &RectColumns,
    ys: [f64; 2],
    color: [f32; 3],
) {
    let cy = overlap(ys[0], ys[1], y);
    let full = cols.full.0..cols.full.1;
    if cy == 1.0 && full == (0..row.len()) {
        fill_px(row, color);
        return;
    }
    for &(x, a) in &cols.partial[..cols.partial_count] {
        cover(&mut row[x..x + 1], cy * a, color);
    }
    cover(&mut row[full], cy, color);
}

/// Row `y` of a grey patch composited over `row` (the patch fits the canvas).
#[inline(always)]
fn blend_patch_row(patch: &GrayPatch, y: usize, row: &mut [[f32; 4]]) {
    if y < patch.y0 || y >= patch.y0 + patch.h {
        return;
    }
    let src = (y - patch.y0) * patch.w..(y - patch.y0 + 1) * patch.w;
    let dst = &mut row[patch.x0..patch.x0 + patch.w];
    for ((d, &v), &c) in dst
        .iter_mut()
        .zip(&patch.value[src.clone()])
        .zip(&patch.cov[src])
    {
        let k = F32x4::splat(1.0 - c);
        (F32x4::splat(v) + k * F32x4::load(d)).store(d);
    }
}

/// `color` as a row pixel (lane 3 unused, kept zero).
#[inline(always)]
fn pixel(color: [f32; 3]) -> F32x4 {
    F32x4::load(&[color[0], color[1], color[2], 0.0])
}

/// Paints `color` over `px` with coverage `a`: `d += a·(color - d)`, and exactly `color` where
/// `a` is 1 (see [`Canvas::opaque_rows_from`]).
#[inline(always)]
fn cover(px: &mut [[f32; 4]], a: f32, color: [f32; 3]) {
    if a == 1.0 {
        fill_px(px, color);
        return;
    }
    let (c, a) = (pixel(color), F32x4::splat(a));
    for d in px {
        let v = F32x4::load(d);
        (v + a * (c - v)).store(d);
    }
}

/// Fills `px` with `color`.
#[inline(always)]
fn fill_px(px: &mut [[f32; 4]], color: [f32; 3]) {
    pixel(color).fill(px);
}
