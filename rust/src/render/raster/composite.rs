//! Compositing a resolved row straight onto the caller's float row (over it, or onto a uniform
//! base): the fused form of the hottest loop of a frame, with a path for rows of up to 128
//! cells where the touched mask is one integer.

use super::cells::renormalise4;
use super::mask::{clear_words, touched_runs};
use super::Accumulator;
use crate::render::f32x4::F32x4;

impl Accumulator {
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
/// shorter than [`MIN_UNIFORM_SPAN`](super::mask::MIN_UNIFORM_SPAN) are closed with shifts.
/// Which cells are summed one by one does not change a value (untouched cells are zero, and
/// blending the running sum pixel by pixel equals blending it over the run), so this is
/// bit-identical.
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
