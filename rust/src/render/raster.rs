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

use super::f32x4::F32x4;

/// `floor` of a non-negative value as an index. A NaN or a value beyond `i32` gives an index
/// far outside any grid, so the slicing that follows panics (caught at the binding) rather
/// than drawing garbage.
#[inline]
fn floor_usize(v: f32) -> usize {
    floor_i32(v) as usize
}

/// [`floor_usize`] as an `i32` (negative for a NaN or out-of-range input).
#[inline]
fn floor_i32(v: f32) -> i32 {
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
fn min_f(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// The larger of two floats; see [`min_f`].
#[inline]
fn max_f(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `ceil` of a non-negative value as an index, without a libm call.
#[inline]
fn ceil_usize(v: f32) -> usize {
    let i = floor_i32(v);
    (if (i as f32) < v { i + 1 } else { i }) as usize
}

/// Sets bits `lo..=hi` of a row's touched-cell mask.
#[inline]
fn mark(words: &mut [u64], lo: usize, hi: usize) {
    let (wl, wh) = (lo / 64, hi / 64);
    let lo_mask = !0u64 << (lo % 64);
    let hi_mask = !0u64 >> (63 - hi % 64);
    if wl == wh {
        words[wl] |= lo_mask & hi_mask;
    } else {
        words[wl] |= lo_mask;
        words[wl + 1..wh].fill(!0);
        words[wh] |= hi_mask;
    }
}

/// Sets bits `i` and `i + 1` of a row's touched-cell mask ([`mark`] for the commonest case:
/// an edge crossing a row within one pixel column).
#[inline]
fn mark_pair(words: &mut [u64], i: usize) {
    let (w, b) = (i / 64, i % 64);
    words[w] |= 3 << b;
    if b == 63 {
        words[w + 1] |= 1;
    }
}

/// Index of the first bit at or after `from` that is set (`want == true`) or clear, if any.
#[inline]
fn next_bit(words: &[u64], from: usize, want: bool) -> Option<usize> {
    let flip = if want { 0 } else { !0u64 };
    let mut i = from / 64;
    let mut w = (*words.get(i)? ^ flip) & (!0u64 << (from % 64));
    loop {
        if w != 0 {
            return Some(i * 64 + w.trailing_zeros() as usize);
        }
        i += 1;
        w = *words.get(i)? ^ flip;
    }
}

/// The runs `a..b` of touched cells in a row's mask (`stride` cells), left to right, with gaps
/// shorter than [`MIN_UNIFORM_SPAN`] joined into the runs around them (the running sum is
/// constant across a gap, so a gap is reported as a uniform span only where that is cheaper
/// than summing through it).
struct TouchedRuns<'a> {
    words: &'a [u64],
    stride: usize,
    x: usize,
}

impl Iterator for TouchedRuns<'_> {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        let a = next_bit(self.words, self.x, true)?;
        let mut b = next_bit(self.words, a, false).unwrap_or(self.stride);
        while let Some(next) = next_bit(self.words, b, true) {
            if next >= b + MIN_UNIFORM_SPAN {
                break;
            }
            b = next_bit(self.words, next, false).unwrap_or(self.stride);
        }
        self.x = b;
        Some((a, b))
    }
}

#[inline(always)]
fn touched_runs(words: &[u64], stride: usize) -> TouchedRuns<'_> {
    TouchedRuns {
        words,
        stride,
        x: 0,
    }
}

/// Adds `k` times the colour weight `wgt` to one cell.
#[inline]
fn deposit(cell: &mut [f32; 4], wgt: [f32; 4], k: f32) {
    cell[0] += wgt[0] * k;
    cell[1] += wgt[1] * k;
    cell[2] += wgt[2] * k;
    cell[3] += wgt[3] * k;
}

/// Deposits the signed height `d` of an edge that crosses `cells` (three or more, the last
/// one right of the edge) within one row: `xaf` is where it enters the first cell and `xbf`
/// where it leaves the second-last (fractions of a pixel), `s` is `1 / (xb - xa)` (pixels⁻¹).
#[inline]
fn deposit_span(cells: &mut [[f32; 4]], wgt: [f32; 4], d: f32, xaf: f32, xbf: f32, s: f32) {
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

/// Gaps between touched cells shorter than this (pixels) are summed through rather than
/// reported as their own span: a span costs more than a few cells.
const MIN_UNIFORM_SPAN: usize = 6;

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

    /// Resolves row `y` and composites it over `row` (0–255 RGB per pixel, lane 3 unused):
    /// `dst = v + (1 - a)·dst` with `v = [r·a, g·a, b·a, a]`, exactly as blending each run
    /// that [`Accumulator::resolve_row_runs`] reports; then clears the row. The fused form of
    /// the hottest loop of a frame: no callback per pixel, four lanes per operation, and fully
    /// covered runs become plain stores (`v + 0·dst` is `v` for every finite `dst`).
    #[inline(always)]
    pub fn composite_row_over(&mut self, y: usize, row: &mut [[f32; 4]]) {
        self.composite_row::<true>(y, row, F32x4::zero());
    }

    /// [`Accumulator::composite_row_over`] onto a row that is `base` everywhere (lane 3
    /// unused), writing every pixel of `row`: the same values as filling the row with `base`
    /// first, in one pass and without reading `row`.
    #[inline(always)]
    pub fn composite_row_onto(&mut self, y: usize, row: &mut [[f32; 4]], base: [f32; 4]) {
        self.composite_row::<false>(y, row, F32x4::load(&base));
    }

    /// Whether rows of up to 128 cells take the narrow path (tests can turn it off).
    #[inline(always)]
    fn narrow_rows_allowed(&self) -> bool {
        #[cfg(test)]
        return !self.wide_rows_only;
        #[cfg(not(test))]
        true
    }

    /// The two above: `OVER` reads each destination pixel, otherwise it is `base`.
    #[inline(always)]
    fn composite_row<const OVER: bool>(&mut self, y: usize, row: &mut [[f32; 4]], base: F32x4) {
        if self.is_empty() || y < self.y_min || y > self.y_max {
            if !OVER {
                fill(row, base);
            }
            return;
        }
        let stride = self.width + 2;
        let x1 = self.x_max.min(self.width).min(row.len());
        let x0 = self.x_min.min(x1);
        if !OVER {
            fill(&mut row[..x0], base);
            fill(&mut row[x1..], base);
        }
        let narrow = self.words <= 2 && self.narrow_rows_allowed();
        let words = &mut self.touched[y * self.words..(y + 1) * self.words];
        let cells = &mut self.cells[y * stride..(y + 1) * stride];
        if narrow {
            // Rows of up to 128 cells (the 96-pixel observation): the mask as one integer.
            let mask = words
                .iter()
                .rev()
                .fold(0u128, |m, &w| (m << 64) | u128::from(w));
            clear_words(words);
            composite_narrow_row::<OVER>(mask, cells, row, (x0, x1), base);
        } else {
            composite_wide_row::<OVER>(words, cells, row, (x0, x1), base);
        }
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

/// [`Accumulator::composite_row_over`] of one row whose touched mask is `words`: follows
/// the runs of touched cells, each gap between them sharing the running sum.
#[inline(always)]
fn composite_wide_row<const OVER: bool>(
    words: &mut [u64],
    cells: &mut [[f32; 4]],
    row: &mut [[f32; 4]],
    (x0, x1): (usize, usize),
    base: F32x4,
) {
    let stride = cells.len();
    // Pixels between touched runs share the running sum `s`.
    let gap = |px: &mut [[f32; 4]], s: F32x4| blend_gap::<OVER>(px, s, base);
    let mut s = F32x4::zero();
    let mut x = 0;
    for (a, b) in touched_runs(words, stride) {
        let (lo, hi) = (x.max(x0), a.min(x1));
        if lo < hi {
            gap(&mut row[lo..hi], s);
        }
        // Cells a..b: sum (and clear) all of them, blend those within the dirty columns.
        let lo = a.max(x0).min(b);
        let hi = b.min(x1).max(lo);
        for cell in &mut cells[a..lo] {
            s = take_add(s, cell);
        }
        for (cell, px) in cells[lo..hi].iter_mut().zip(&mut row[lo..hi]) {
            s = take_add(s, cell);
            blend_px::<OVER>(px, renormalise4(s), base);
        }
        for cell in &mut cells[hi..b] {
            s = take_add(s, cell);
        }
        x = b;
    }
    let (lo, hi) = (x.max(x0), stride.min(x1));
    if lo < hi {
        gap(&mut row[lo..hi], s);
    }
    clear_words(words);
}

/// [`composite_wide_row`] for rows of at most 128 cells, with the touched mask as one
/// integer: runs and gaps come from bit scans rather than word-by-word searches, and gaps
/// shorter than [`MIN_UNIFORM_SPAN`] are closed with shifts. Which cells are summed one by
/// one does not change a value (untouched cells are zero, and blending the running sum pixel
/// by pixel equals blending it over the run), so this is bit-identical.
#[inline(always)]
fn composite_narrow_row<const OVER: bool>(
    mask: u128,
    cells: &mut [[f32; 4]],
    row: &mut [[f32; 4]],
    (x0, x1): (usize, usize),
    base: F32x4,
) {
    // Bits 0..n; callers pass n <= x1 <= width < 128 (every set bit of `runs` lies below x1).
    let below = |n: usize| (1u128 << (n & 127)) - 1;
    debug_assert!(x1 < 128);
    let inside = mask & below(x1) & !below(x0);
    // Close gaps of up to five cells: a cell is kept if a touched one lies within five to its
    // left and within five to its right.
    let (l1, r1) = (inside | inside << 1, inside | inside >> 1);
    let (l3, r3) = (l1 | l1 << 2, r1 | r1 >> 2);
    let runs = (l3 | l1 << 4) & (r3 | r1 >> 4);
    let gap = |px: &mut [[f32; 4]], s: F32x4| blend_gap::<OVER>(px, s, base);
    // Cells left of the dirty columns (an edge's rounding can reach one past its polygon's
    // box) cover no blended pixel but count in the sum.
    let mut s = F32x4::zero();
    let mut before = mask & below(x0);
    while before != 0 {
        s = take_add(s, &mut cells[before.trailing_zeros() as usize]);
        before &= before - 1;
    }
    let (mut x, mut rest) = (x0, runs);
    while rest != 0 {
        let a = rest.trailing_zeros() as usize;
        let b = a + (!(rest >> a)).trailing_zeros() as usize;
        if x < a {
            gap(&mut row[x..a], s);
        }
        for (cell, px) in cells[a..b].iter_mut().zip(&mut row[a..b]) {
            s = take_add(s, cell);
            blend_px::<OVER>(px, renormalise4(s), base);
        }
        x = b;
        // Drops the lowest run of ones (adding its lowest bit carries through it).
        rest &= rest.wrapping_add(rest & rest.wrapping_neg());
    }
    if x < x1 {
        gap(&mut row[x..x1], s);
    }
    // Touched cells at or right of `x1` (edges clamped to the right border deposit into the
    // spare cells) cover no pixel: only clear them.
    let mut beyond = mask & !below(x1);
    while beyond != 0 {
        let i = beyond.trailing_zeros() as usize;
        cells[i] = [0.0; 4];
        beyond &= beyond - 1;
    }
}

/// Composites pixels that lie between touched cells, where the running sum `s` is constant:
/// nothing to do over a zero sum (unless the row must be written, `!OVER`), one blend otherwise.
#[inline(always)]
fn blend_gap<const OVER: bool>(px: &mut [[f32; 4]], s: F32x4, base: F32x4) {
    if !s.is_zero() {
        blend_run::<OVER>(px, renormalise4(s), base);
    } else if !OVER {
        fill(px, base);
    }
}

/// `s + cell`, clearing the cell.
#[inline(always)]
fn take_add(s: F32x4, cell: &mut [f32; 4]) -> F32x4 {
    let sum = s + F32x4::load(cell);
    F32x4::zero().store(cell);
    sum
}

/// `dst = v + (1 - coverage)·dst` for one pixel, `v = [r·a, g·a, b·a, a]`, where `dst` is
/// the pixel (`OVER`) or `base` (lane 3 of `dst` is unused and stays finite).
#[inline(always)]
fn blend_px<const OVER: bool>(d: &mut [f32; 4], v: F32x4, base: F32x4) {
    let k = F32x4::splat(1.0) - v.broadcast_a();
    let below = if OVER { F32x4::load(d) } else { base };
    (v + k * below).store(d);
}

/// [`blend_px`] of one value over a run of pixels; a plain fill where the coverage is full.
#[inline(always)]
fn blend_run<const OVER: bool>(px: &mut [[f32; 4]], v: F32x4, base: F32x4) {
    if v.a() == 1.0 {
        fill(px, v);
        return;
    }
    let k = F32x4::splat(1.0) - v.broadcast_a();
    if OVER {
        for d in px {
            (v + k * F32x4::load(d)).store(d);
        }
    } else {
        fill(px, v + k * base);
    }
}

/// Sets every pixel of `px` to `v`.
#[inline(always)]
fn fill(px: &mut [[f32; 4]], v: F32x4) {
    v.fill(px);
}

/// Clears a row's touched mask: for the usual one or two words, plain stores rather than a
/// `memset` call.
#[inline(always)]
fn clear_words(words: &mut [u64]) {
    match words {
        [a] => *a = 0,
        [a, b] => (*a, *b) = (0, 0),
        _ => words.fill(0),
    }
}

/// A running sum `[r·a, g·a, b·a, a]` with `a` clamped to 1 (colour scaled alike).
#[inline(always)]
fn renormalise4(s: F32x4) -> F32x4 {
    if s.a() <= 1.0 {
        // The common case: scaling by 1 would change nothing, so skip the division.
        return s;
    }
    s * (F32x4::splat(1.0) / s.broadcast_a())
}

/// [`renormalise4`] of an array.
#[inline(always)]
fn renormalise(s: [f32; 4]) -> [f32; 4] {
    renormalise4(F32x4::load(&s)).to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coverage(acc: &mut Accumulator) -> Vec<f32> {
        let mut out = vec![0.0; acc.width() * acc.height()];
        let w = acc.width();
        acc.resolve(|x, y, c| out[y * w + x] = c[3]);
        out
    }

    #[test]
    fn axis_aligned_rect_is_exact() {
        let mut acc = Accumulator::new(6, 5);
        acc.add_polygon(
            &[[1.25, 0.5], [4.5, 0.5], [4.5, 3.0], [1.25, 3.0]],
            [1.0; 3],
        );
        let cov = coverage(&mut acc);
        let expect_x = [0.0, 0.75, 1.0, 1.0, 0.5, 0.0];
        let expect_y = [0.5, 1.0, 1.0, 0.0, 0.0];
        for y in 0..5 {
            for x in 0..6 {
                let e = expect_x[x] * expect_y[y];
                assert!((cov[y * 6 + x] - e).abs() < 1e-5, "({x},{y})");
            }
        }
    }

    #[test]
    fn orientation_does_not_matter() {
        let tri = [[0.2, 0.3], [3.7, 1.1], [1.4, 3.9]];
        let rev = [tri[2], tri[1], tri[0]];
        let mut a = Accumulator::new(4, 4);
        a.add_polygon(&tri, [1.0; 3]);
        let ca = coverage(&mut a);
        a.add_polygon(&rev, [1.0; 3]);
        let cb = coverage(&mut a);
        assert_eq!(ca, cb);
        let total: f32 = ca.iter().sum();
        let area = 0.5 * ((3.7 - 0.2) * (3.9 - 0.3) - (1.4 - 0.2) * (1.1 - 0.3)) as f32;
        assert!((total - area).abs() < 1e-4);
    }

    #[test]
    fn clipped_polygon_keeps_inside_coverage() {
        let mut acc = Accumulator::new(4, 4);
        acc.add_polygon(
            &[[-3.0, -2.0], [2.5, -2.0], [2.5, 9.0], [-3.0, 9.0]],
            [1.0; 3],
        );
        let cov = coverage(&mut acc);
        for y in 0..4 {
            assert_eq!(&cov[y * 4..y * 4 + 4], &[1.0, 1.0, 0.5, 0.0]);
        }
    }

    #[test]
    fn interior_resolves_as_one_uniform_span() {
        let mut acc = Accumulator::new(24, 4);
        acc.add_polygon(
            &[[1.5, 0.5], [20.5, 0.5], [20.5, 3.0], [1.5, 3.0]],
            [10.0, 20.0, 30.0],
        );
        let mut spans = Vec::new();
        acc.resolve_spans(|x, y, span| {
            if let Span::Uniform(n, v) = span {
                spans.push((x, y, n, v));
            }
        });
        // Rows 1 and 2: columns 3..20 (between the cells the side edges touch) are one fully
        // covered span each.
        for y in 1..3 {
            assert!(
                spans.contains(&(3, y, 17, [10.0, 20.0, 30.0, 1.0])),
                "{spans:?}"
            );
        }
        assert!(acc.is_empty() && coverage(&mut acc).iter().all(|&c| c == 0.0));
    }

    #[test]
    fn compositing_onto_a_colour_equals_filling_then_compositing_over() {
        // Overlapping, partly clipped polygons of several colours (sums past full coverage too).
        let polys: [(&[[f32; 2]], [f32; 3]); 3] = [
            (&[[-2.0, 0.3], [7.3, 1.1], [5.5, 6.8]], [200.0, 10.0, 30.0]),
            (
                &[[3.2, -1.0], [11.0, 2.0], [9.5, 5.5], [2.5, 4.0]],
                [5.0, 250.0, 99.0],
            ),
            (
                &[[1.0, 2.0], [4.0, 2.0], [4.0, 9.0], [1.0, 9.0]],
                [200.0, 10.0, 30.0],
            ),
        ];
        let base = [102.0, 204.0, 102.0, 0.0];
        let (mut over, mut onto) = (Accumulator::new(10, 7), Accumulator::new(10, 7));
        for (pts, c) in polys {
            over.add_polygon(pts, c);
            onto.add_polygon(pts, c);
        }
        for y in 0..7 {
            let mut expect = vec![base; 10];
            over.composite_row_over(y, &mut expect);
            let mut got = vec![[f32::NAN; 4]; 10];
            onto.composite_row_onto(y, &mut got, base);
            let bits = |r: &[[f32; 4]]| -> Vec<u32> {
                r.iter()
                    .flat_map(|p| p[..3].iter().map(|v| v.to_bits()))
                    .collect()
            };
            assert_eq!(bits(&got), bits(&expect), "row {y}");
        }
        assert!(over.is_empty() && onto.is_empty());
    }

    proptest::proptest! {
        /// Random overlapping polygons (partly off the grid, several colours) composite to the
        /// same bits through the narrow-row path as through the general one.
        #[test]
        fn narrow_and_wide_rows_composite_alike(
            polys in proptest::collection::vec(
                (proptest::collection::vec((-8.0f32..40.0, -4.0f32..14.0), 3..7), 0usize..3),
                1..6,
            ),
            base in proptest::array::uniform3(0.0f32..255.0),
        ) {
            let colours = [[200.0, 10.0, 30.0], [5.0, 250.0, 99.0], [102.0, 102.0, 102.0]];
            let (mut narrow, mut wide) = (Accumulator::new(33, 10), Accumulator::new(33, 10));
            wide.wide_rows_only = true;
            for (pts, c) in &polys {
                let pts: Vec<[f32; 2]> = pts.iter().map(|&(x, y)| [x, y]).collect();
                narrow.add_polygon(&pts, colours[*c]);
                wide.add_polygon(&pts, colours[*c]);
            }
            let base = [base[0], base[1], base[2], 0.0];
            for y in 0..10 {
                let (mut a, mut b) = (vec![base; 33], vec![base; 33]);
                if y % 2 == 0 {
                    narrow.composite_row_over(y, &mut a);
                    wide.composite_row_over(y, &mut b);
                } else {
                    narrow.composite_row_onto(y, &mut a, base);
                    wide.composite_row_onto(y, &mut b, base);
                }
                let bits = |r: &[[f32; 4]]| -> Vec<u32> {
                    r.iter().flat_map(|p| p[..3].iter().map(|v| v.to_bits())).collect()
                };
                proptest::prop_assert_eq!(bits(&a), bits(&b), "row {}", y);
            }
            proptest::prop_assert!(narrow.is_empty() && wide.is_empty());
            proptest::prop_assert!(narrow.cells.iter().all(|c| *c == [0.0; 4]));
            proptest::prop_assert!(narrow.touched.iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn clipped_rows_receive_nothing() {
        let mut acc = Accumulator::new(4, 4);
        acc.clip_rows(2);
        acc.add_polygon(&[[0.5, 0.0], [3.5, 0.0], [3.5, 4.0], [0.5, 4.0]], [1.0; 3]);
        let cov = coverage(&mut acc);
        assert_eq!(&cov[..8], &[0.5, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5]);
        assert!(cov[8..].iter().all(|&c| c == 0.0));
    }
}
