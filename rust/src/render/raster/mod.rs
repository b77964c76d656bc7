//! Exact area-coverage rasterization by signed-area accumulation (as font rasterizers do).
//!
//! Each polygon edge deposits, into the cells of the rows it crosses, the signed area it
//! sweeps; a running sum along each row then yields every pixel's exact coverage. Cells carry
//! colour-weighted coverage `[r·a, g·a, b·a, a]`, so a whole layer of abutting polygons with
//! different colours resolves in one pass without leaking what lies below at shared edges.
//!
//! A bit per cell records where edges deposited. Between such cells the running sum cannot
//! change, so resolving reports those stretches (polygon interiors, empty space) as uniform
//! spans instead of summing cell by cell; the numbers are the same either way.
//!
//! The accumulator is here; `cells` holds the arithmetic of one cell, `mask` the touched-cell
//! bits, `composite` the fused resolve-and-composite of a row.

use cells::{ceil_usize, deposit, deposit_span, floor_i32, floor_usize, max_f, min_f, renormalise};
use mask::{clear_words, mark, mark_pair, touched_runs};

mod cells;
mod composite;
mod mask;

/// One horizontal run of resolved pixels, as [`Accumulator::resolve_spans`] reports it. Each
/// value is `[r·a, g·a, b·a, a]` with `a` the coverage (0–1) and `r, g, b` in 0–255.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span<'a> {
    /// Consecutive pixels, one value each.
    Varying(&'a [[f32; 4]]),
    /// `n` consecutive pixels sharing one value (no edge crosses them).
    Uniform(usize, [f32; 4]),
}

/// Accumulates polygons at pixel resolution. Coordinates are pixels; pixel `(x, y)` spans
/// `[x, x + 1) × [y, y + 1)`.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    width: usize,
    height: usize,
    /// Rows that accept polygons (`0..rows`, at most `height`); see [`Accumulator::clip_rows`].
    rows: usize,
    /// Row stride `width + 2`: edges clamped to the right border deposit into two spare cells.
    cells: Vec<[f32; 4]>,
    /// One bit per cell, `words` u64 per row: set where an edge deposited since the last
    /// resolve. Every cell outside it is zero.
    touched: Vec<u64>,
    words: usize,
    /// Scratch: resolved values of one varying run.
    run: Vec<[f32; 4]>,
    /// Tests set this to check the narrow-row compositing against the general one.
    #[cfg(test)]
    wide_rows_only: bool,
    /// Dirty bounding box (cells), so resolving touches only what was drawn.
    x_min: usize,
    x_max: usize,
    y_min: usize,
    y_max: usize,
}

impl Accumulator {
    /// An accumulator for a `width`×`height` pixel grid.
    pub fn new(width: usize, height: usize) -> Self {
        let mut a = Self::default();
        a.resize(width, height);
        a
    }

    /// Resizes (and clears) the grid; reuses the allocation when it is large enough.
    pub fn resize(&mut self, width: usize, height: usize) {
        let stride = width + 2;
        self.width = width;
        self.height = height;
        self.rows = height;
        self.cells.clear();
        self.cells.resize(stride * height, [0.0; 4]);
        self.words = stride.div_ceil(64);
        self.touched.clear();
        self.touched.resize(self.words * height, 0);
        self.run.clear();
        self.run.resize(stride, [0.0; 4]);
        self.reset_bbox();
    }

    /// Restricts the polygons added from now on to rows `0..rows` (clamped to the height), as
    /// if the grid ended there; `clip_rows(height)` lifts it. Rows are independent, so the rows
    /// kept resolve exactly as without the clip. Call it between layers.
    pub fn clip_rows(&mut self, rows: usize) {
        debug_assert!(self.is_empty(), "clip_rows() with a layer pending");
        self.rows = rows.min(self.height);
    }

    fn reset_bbox(&mut self) {
        self.x_min = usize::MAX;
        self.x_max = 0;
        self.y_min = usize::MAX;
        self.y_max = 0;
    }

    /// Grid width, pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Grid height, pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether nothing has been accumulated since the last resolve.
    pub fn is_empty(&self) -> bool {
        self.y_min > self.y_max
    }

    /// Adds a closed polygon (implicitly closed; either orientation) with colour `color`
    /// (0–255 per channel). Overlapping polygons add up; see [`Accumulator::resolve`].
    pub fn add_polygon(&mut self, pts: &[[f32; 2]], color: [f32; 3]) {
        self.add_polygon_except(pts, color, 0);
    }

    /// [`Accumulator::add_polygon`], leaving out the edges whose bit is set in `skip` (edge
    /// `i` runs from `pts[i]` to `pts[i + 1]`). Returns the weight every edge is deposited
    /// with, or `None` if the polygon deposits nothing (it covers no pixel). Abutting polygons
    /// share edges, traversed in opposite directions: depositing such an edge once with the
    /// difference of the two weights ([`Accumulator::add_edge`]) is the same sum for half the
    /// work.
    pub fn add_polygon_except(
        &mut self,
        pts: &[[f32; 2]],
        color: [f32; 3],
        skip: u32,
    ) -> Option<[f32; 4]> {
        let n = pts.len();
        if n < 3 {
            return None;
        }
        // Normalise orientation so that the interior accumulates +1 coverage.
        let mut area2 = 0.0f32;
        let (mut lo_x, mut hi_x, mut lo_y, mut hi_y) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for i in 0..n {
            let p = pts[i];
            let q = pts[(i + 1) % n];
            area2 += (q[0] - p[0]) * (q[1] + p[1]);
            lo_x = min_f(lo_x, p[0]);
            hi_x = max_f(hi_x, p[0]);
            lo_y = min_f(lo_y, p[1]);
            hi_y = max_f(hi_y, p[1]);
        }
        // Cheap cull: a closed polygon entirely left of, right of, above or below the grid
        // covers no pixel (left of it, its winding cancels before column 0).
        let (w, h) = (self.width as f32, self.rows as f32);
        if area2 == 0.0 || lo_x >= w || hi_x <= 0.0 || hi_y <= 0.0 || lo_y >= h || lo_y >= hi_y {
            return None;
        }
        // A positive sum means left edges run downwards, which accumulates +1 inside.
        let sign = if area2 > 0.0 { 1.0 } else { -1.0 };
        let wgt = [color[0] * sign, color[1] * sign, color[2] * sign, sign];
        self.x_min = self.x_min.min(floor_usize(lo_x.max(0.0)));
        self.x_max = self.x_max.max(ceil_usize(hi_x.max(0.0)).min(self.width));
        self.y_min = self.y_min.min(floor_usize(lo_y.max(0.0)));
        self.y_max = self
            .y_max
            .max(ceil_usize(hi_y).min(self.rows).saturating_sub(1));
        for i in 0..n {
            if skip & (1 << i) == 0 {
                self.add_line(pts[i], pts[(i + 1) % n], wgt);
            }
        }
        Some(wgt)
    }

    /// Deposits one edge with weight `wgt` (colour × coverage sign, as
    /// [`Accumulator::add_polygon_except`] returns): for an edge left out of polygons that
    /// were added, whose dirty box therefore already covers it.
    pub fn add_edge(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        self.add_line(p0, p1, wgt);
    }

    /// Deposits the signed area swept by one edge, clamped horizontally into `[0, width]`
    /// (a clamped part becomes a vertical edge on the border, which covers the same pixels).
    fn add_line(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        let w = self.width as f32;
        if p0[1] == p1[1] {
            return;
        }
        // Split at the vertical borders so each piece lies within one clamp regime.
        let (x0, x1) = (p0[0], p1[0]);
        if x0 >= w && x1 >= w {
            // Clamped to the right border, it would only deposit into the spare cells, which
            // no pixel's coverage sums.
            return;
        }
        for border in [0.0, w] {
            if (x0 < border && x1 > border) || (x0 > border && x1 < border) {
                let t = (border - x0) / (x1 - x0);
                let m = [border, p0[1] + t * (p1[1] - p0[1])];
                self.add_line(p0, m, wgt);
                self.add_line(m, p1, wgt);
                return;
            }
        }
        let c0 = [p0[0].clamp(0.0, w), p0[1]];
        let c1 = [p1[0].clamp(0.0, w), p1[1]];
        self.add_clamped_line(c0, c1, wgt);
    }

    /// font-rs style accumulation of an edge with x already in `[0, width]`.
    fn add_clamped_line(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        let (dir, p0, p1) = if p0[1] < p1[1] {
            (1.0f32, p0, p1)
        } else {
            (-1.0f32, p1, p0)
        };
        let y_start = floor_usize(max_f(p0[1], 0.0));
        let y_end = ceil_usize(max_f(p1[1], 0.0)).min(self.rows);
        if y_start >= y_end {
            return;
        }
        let (stride, words, w) = (self.width + 2, self.words, self.width as f32);
        let dxdy = (p1[0] - p0[0]) / (p1[1] - p0[1]);
        let mut x = p0[0];
        if p0[1] < 0.0 {
            x -= p0[1] * dxdy;
        }
        // Rows by offset rather than `chunks_exact_mut`, whose length is an integer division
        // per edge (most edges cross only a row or three).
        let (mut cell_at, mut mask_at) = (y_start * stride, y_start * words);
        // Row tops as f32, stepped exactly (integers), instead of converting each row index.
        let mut top = y_start as f32;
        for _ in y_start..y_end {
            let cells = &mut self.cells[cell_at..cell_at + stride];
            let mask = &mut self.touched[mask_at..mask_at + words];
            (cell_at, mask_at) = (cell_at + stride, mask_at + words);
            let dy = min_f(top + 1.0, p1[1]) - max_f(top, p0[1]);
            top += 1.0;
            let xnext = min_f(max_f(x + dxdy * dy, 0.0), w);
            let d = dy * dir;
            let (xa, xb) = if x < xnext { (x, xnext) } else { (xnext, x) };
            // x is clamped non-negative, so a truncating cast is floor (and far cheaper than a
            // libm call on baseline x86-64). Through i32: converting back is one instruction,
            // where usize -> f32 needs a sign test.
            let xa_trunc = floor_i32(xa);
            let xa_floor = xa_trunc as f32;
            let xai = xa_trunc as usize;
            // `ceil(xb) <= xai + 1` without computing the ceiling (integers are exact in f32).
            if xb <= xa_floor + 1.0 {
                // The edge stays within one pixel column in this row.
                let xmf = 0.5 * (x + xnext) - xa_floor;
                let pair = &mut cells[xai..xai + 2];
                deposit(&mut pair[0], wgt, d - d * xmf);
                deposit(&mut pair[1], wgt, d * xmf);
                mark_pair(mask, xai);
            } else {
                let xbi = ceil_usize(xb);
                let (xaf, xbf) = (xa - xa_floor, xb - xbi as f32 + 1.0);
                let s = (xb - xa).recip();
                deposit_span(&mut cells[xai..=xbi], wgt, d, xaf, xbf, s);
                mark(mask, xai, xbi);
            }
            x = xnext;
        }
    }

    /// Resolves the accumulated layer span by span, then clears the accumulator. Calls
    /// `f(x, y, span)` for runs of pixels of row `y` starting at column `x`, left to right,
    /// within the dirty box; pixels not reported have zero coverage. Values are the
    /// colour-weighted coverage `[r·a, g·a, b·a, a]`, with `a` clamped to 1 and the colour
    /// renormalised where overlapping polygons summed past full coverage.
    pub fn resolve_spans(&mut self, mut f: impl FnMut(usize, usize, Span<'_>)) {
        for y in 0..self.height {
            if self.is_empty() {
                break;
            }
            self.resolve_row_spans(y, |x, span| f(x, y, span));
        }
    }

    /// [`Accumulator::resolve_spans`] for row `y` alone: calls `f(x, span)` and clears the
    /// row. Resolving rows in increasing order (skipping none of the dirty box) empties the
    /// accumulator, so a row-by-row consumer can interleave several layers.
    pub fn resolve_row_spans(&mut self, y: usize, mut f: impl FnMut(usize, Span<'_>)) {
        let mut run = std::mem::take(&mut self.run);
        run.clear();
        let mut start = 0;
        self.resolve_row_runs(y, |x, n, v| {
            // Single pixels next to each other gather into one varying span.
            let joins = n == 1 && start + run.len() == x;
            if !joins && !run.is_empty() {
                f(start, Span::Varying(&run));
                run.clear();
            }
            if n > 1 {
                f(x, Span::Uniform(n, v));
            } else {
                if run.is_empty() {
                    start = x;
                }
                run.push(v);
            }
        });
        if !run.is_empty() {
            f(start, Span::Varying(&run));
        }
        self.run = run;
    }

    /// [`Accumulator::resolve_row_spans`] without a scratch buffer: calls `f(x, n, value)`
    /// for `n` pixels from column `x` sharing `value`, left to right; pixels where edges
    /// deposited come one at a time (`n == 1`), so a consumer can blend them as they resolve.
    pub fn resolve_row_runs(&mut self, y: usize, mut f: impl FnMut(usize, usize, [f32; 4])) {
        if self.is_empty() || y < self.y_min || y > self.y_max {
            return;
        }
        let stride = self.width + 2;
        let (x0, x1) = (self.x_min, self.x_max.min(self.width));
        // Reports pixels `lo..hi` clipped to the dirty columns.
        let clip = |lo: usize, hi: usize| (lo.max(x0), hi.min(x1));
        let words = &mut self.touched[y * self.words..(y + 1) * self.words];
        let cells = &mut self.cells[y * stride..(y + 1) * stride];
        let mut s = [0.0f32; 4];
        // `x`: first pixel not yet reported; untouched cells before a run hold zero, so
        // the running sum `s` is constant from `x` up to it.
        let mut x = 0;
        for (a, b) in touched_runs(words, stride) {
            let (lo, hi) = clip(x, a);
            if lo < hi && s != [0.0; 4] {
                f(lo, hi - lo, renormalise(s));
            }
            let (lo, hi) = clip(a, b);
            for (i, cell) in (a..b).zip(&mut cells[a..b]) {
                s[0] += cell[0];
                s[1] += cell[1];
                s[2] += cell[2];
                s[3] += cell[3];
                *cell = [0.0; 4];
                if (lo..hi).contains(&i) {
                    f(i, 1, renormalise(s));
                }
            }
            x = b;
        }
        let (lo, hi) = clip(x, stride);
        if lo < hi && s != [0.0; 4] {
            f(lo, hi - lo, renormalise(s));
        }
        clear_words(words);
        // Rows above `y` are resolved (in-order use), so the dirty box now starts below it.
        self.y_min = y + 1;
        if self.is_empty() {
            self.reset_bbox();
        }
    }

    /// [`Accumulator::resolve_spans`] pixel by pixel: calls `f(x, y, [r·a, g·a, b·a, a])`
    /// for every pixel with non-zero coverage (and possibly some with zero).
    pub fn resolve(&mut self, mut f: impl FnMut(usize, usize, [f32; 4])) {
        self.resolve_spans(|x, y, span| match span {
            Span::Varying(vals) => {
                for (i, &v) in vals.iter().enumerate() {
                    f(x + i, y, v);
                }
            }
            Span::Uniform(n, v) => {
                for i in 0..n {
                    f(x + i, y, v);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests;
