//! The public drawing API: an RGB working image in f32 that layers of anti-aliased shapes are
//! composited onto, then quantized into caller-owned `u8` memory.
//!
//! Coordinates given to the canvas are its own pixels (pixel `(x, y)` spans
//! `[x, x + 1) × [y, y + 1)`, y down); shapes take a [`Transform`] from the caller's space so
//! one scene description draws at any resolution.

use super::raster::{Accumulator, Span};
use super::transform::Transform;

/// How the working image (0–255 floats) becomes bytes.
///
/// `out = clamp(floor(v + add) - sub, 0, 255)`. [`Quantizer::round`] is plain rounding;
/// [`Quantizer::pygame_smoothscale`] reproduces the truncation bias of
/// `pygame.transform.smoothscale` when shrinking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantizer {
    /// Added before flooring (0.5 rounds to nearest).
    pub add: f32,
    /// Levels subtracted after flooring.
    pub sub: f32,
}

impl Quantizer {
    /// Round to nearest.
    pub const fn round() -> Self {
        Self { add: 0.5, sub: 0.0 }
    }

    /// Emulates pygame's `smoothscale` from `src_w`×`src_h` down to `dst_w`×`dst_h`.
    ///
    /// Its shrink filter runs one fixed-point box-filter pass per axis and truncates; with a
    /// non-integer ratio the reciprocal is rounded down too, so a flat area of level `v` comes
    /// out `v - 1` per such pass (measured: 102 → 100 at 1000×800 → 96×96, 102 → 101 at
    /// 1000×800 → 600×400, whose 800 → 400 pass is exact). Both lossy: `ceil(v) - 2`; one
    /// lossy: `round(v) - 1` (the mean over edge directions); none: plain rounding.
    pub fn pygame_smoothscale(src_w: usize, src_h: usize, dst_w: usize, dst_h: usize) -> Self {
        let lossy = |s: usize, d: usize| d < s && s % d != 0;
        match (lossy(src_w, dst_w) as u8) + (lossy(src_h, dst_h) as u8) {
            2 => Self {
                add: 1.0 - 1e-3,
                sub: 2.0,
            },
            1 => Self { add: 0.5, sub: 1.0 },
            _ => Self::round(),
        }
    }

    /// Quantizes one 0–255 value.
    #[inline]
    pub fn apply(&self, v: f32) -> u8 {
        // floor(v + add) - sub, clamped, as round-to-nearest of (v + add - 0.5 - sub): adding
        // 2^23 leaves the rounded integer in the low mantissa bits. Branch-free and without a
        // saturating cast, so whole rows vectorize (ties at exact .5 may round to even).
        let x = (v + (self.add - 0.5 - self.sub)).clamp(0.0, 255.0);
        ((x + 8_388_608.0).to_bits() & 0xff) as u8
    }
}

/// An RGB drawing surface with reusable scratch buffers (no allocation per frame once sized).
#[derive(Debug, Clone, Default)]
pub struct Canvas {
    width: usize,
    height: usize,
    /// Working image, 0–255 per channel, row-major. Only part of each row is current; `rows`
    /// says which part and what the rest holds (see [`RowState`]).
    img: Vec<[f32; 3]>,
    rows: Vec<RowState>,
    /// Layers and clears draw rows `0..clip_rows` only; see [`Canvas::set_clip_rows`].
    clip_rows: usize,
    acc: Accumulator,
    pts: Vec<[f32; 2]>,
    patch: GrayPatch,
}

/// What one row of the working image holds: pixels `lo..hi` are in the image, the others are
/// `fill`, not yet written. A clear thus costs nothing until something is drawn over it, and
/// pixels nothing was drawn over quantize as one value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct RowState {
    lo: usize,
    hi: usize,
    fill: [f32; 3],
}

impl RowState {
    /// Extends the written range over `a..b` for the caller to write: fills any gap between
    /// the old range and `a..b`, and returns the part of `a..b` already written (image
    /// values). The rest of `a..b` holds `fill` and the caller must write all of it.
    #[inline]
    fn claim(&mut self, row: &mut [[f32; 3]], a: usize, b: usize) -> std::ops::Range<usize> {
        if self.lo >= self.hi {
            (self.lo, self.hi) = (a, b);
            return a..a;
        }
        let old = self.lo..self.hi;
        if b < old.start {
            fill_px(&mut row[b..old.start], self.fill);
        }
        if a > old.end {
            fill_px(&mut row[old.end..a], self.fill);
        }
        (self.lo, self.hi) = (old.start.min(a), old.end.max(b));
        let lo = a.max(old.start).min(b);
        lo..b.min(old.end).max(lo)
    }

    /// Composites one layer value `v` over pixels `a..b` of `row`.
    fn blend_uniform(&mut self, row: &mut [[f32; 3]], a: usize, b: usize, v: [f32; 4]) {
        let done = self.claim(row, a, b);
        // Pixels still holding the fill all become one value.
        let mut over_fill = self.fill;
        blend(&mut over_fill, &v);
        fill_px(&mut row[a..done.start], over_fill);
        blend_uniform(&mut row[done.clone()], v);
        fill_px(&mut row[done.end..b], over_fill);
    }

    /// Composites per-pixel layer values `vals` over pixels `a..a + vals.len()` of `row`.
    fn blend_varying(&mut self, row: &mut [[f32; 3]], a: usize, vals: &[[f32; 4]]) {
        let done = self.claim(row, a, a + vals.len());
        for (x, v) in (a..).zip(vals) {
            let d = &mut row[x];
            if !done.contains(&x) {
                *d = self.fill;
            }
            blend(d, v);
        }
    }

    /// Makes pixels `a..b` of `row` (this row's image pixels) current; returns them.
    #[inline]
    fn write<'a>(&mut self, row: &'a mut [[f32; 3]], a: usize, b: usize) -> &'a mut [[f32; 3]] {
        let done = self.claim(row, a, b);
        fill_px(&mut row[a..done.start], self.fill);
        fill_px(&mut row[done.end..b], self.fill);
        &mut row[a..b]
    }
}

/// An opaque grey image already area-averaged onto a canvas grid: per canvas pixel of the
/// box at `(x0, y0)` sized `w`×`h`, the summed grey level × area and the covered area. Worth
/// caching when the same image (e.g. a score) is drawn on many frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GrayPatch {
    /// Top-left canvas pixel of the box.
    pub x0: usize,
    pub y0: usize,
    /// Box size, canvas pixels.
    pub w: usize,
    pub h: usize,
    /// Σ grey level (0–255) × covered area, per box pixel, row-major.
    pub value: Vec<f32>,
    /// Covered area (0–1) per box pixel.
    pub cov: Vec<f32>,
    row: Vec<f32>,
    cov_x: Vec<f32>,
    cov_y: Vec<f32>,
}

impl GrayPatch {
    /// Area-averages an opaque grey image (`iw`×`ih` bytes, row-major; pixel `(i, j)` covers
    /// `[x0 + i·sx, x0 + (i+1)·sx) × [y0 + j·sy, y0 + (j+1)·sy)` in canvas pixels) onto a
    /// `canvas_w`×`canvas_h` grid, reusing this patch's buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn rasterize(
        &mut self,
        img: &[u8],
        iw: usize,
        ih: usize,
        x0: f64,
        y0: f64,
        sx: f64,
        sy: f64,
        canvas_w: usize,
        canvas_h: usize,
    ) {
        let cx0 = x0.max(0.0) as usize;
        let cx1 = (((x0 + iw as f64 * sx).max(0.0) as usize) + 1).min(canvas_w);
        let cy0 = y0.max(0.0) as usize;
        let cy1 = (((y0 + ih as f64 * sy).max(0.0) as usize) + 1).min(canvas_h);
        let (nw, nh) = (cx1.saturating_sub(cx0), cy1.saturating_sub(cy0));
        (self.x0, self.y0, self.w, self.h) = (cx0, cy0, nw, nh);
        self.value.clear();
        self.value.resize(nw * nh, 0.0);
        self.cov.clear();
        self.cov.resize(nw * nh, 0.0);
        if nw == 0 || nh == 0 {
            return;
        }
        self.row.clear();
        self.row.resize(nw, 0.0);
        self.cov_x.clear();
        self.cov_x.resize(nw, 0.0);
        self.cov_y.clear();
        self.cov_y.resize(nh, 0.0);
        // Overlap of source span [lo, hi) with canvas cell c, visiting each cell it touches.
        fn spans(lo: f64, hi: f64, c0: usize, c1: usize, mut f: impl FnMut(usize, f32)) {
            // Truncating casts: floor/ceil of clamped non-negative values without libm calls.
            let first = lo.max(c0 as f64) as usize;
            let last = (hi.min(c1 as f64) as usize + 1).min(c1);
            for c in first..last {
                let a = hi.min(c as f64 + 1.0) - lo.max(c as f64);
                if a > 0.0 {
                    f(c - c0, a as f32);
                }
            }
        }
        for j in 0..ih {
            let ylo = y0 + j as f64 * sy;
            let yhi = ylo + sy;
            if yhi <= cy0 as f64 || ylo >= cy1 as f64 {
                continue;
            }
            // Horizontal pass for this source row, then spread it over the rows it covers.
            let row = &mut self.row;
            row.fill(0.0);
            for i in 0..iw {
                let v = img[j * iw + i] as f32;
                if v == 0.0 {
                    continue;
                }
                let xlo = x0 + i as f64 * sx;
                spans(xlo, xlo + sx, cx0, cx1, |c, a| row[c] += a * v);
            }
            let (cov_y, value) = (&mut self.cov_y, &mut self.value);
            spans(ylo, yhi, cy0, cy1, |r, a| {
                cov_y[r] += a;
                for (t, &v) in value[r * nw..(r + 1) * nw].iter_mut().zip(row.iter()) {
                    *t += a * v;
                }
            });
        }
        let cov_x = &mut self.cov_x;
        spans(x0, x0 + iw as f64 * sx, cx0, cx1, |c, a| cov_x[c] += a);
        for r in 0..nh {
            for c in 0..nw {
                self.cov[r * nw + c] = self.cov_x[c] * self.cov_y[r];
            }
        }
    }
}

impl Canvas {
    /// A black `width`×`height` canvas.
    pub fn new(width: usize, height: usize) -> Self {
        let mut c = Self::default();
        c.resize(width, height);
        c
    }

    /// Resizes to `width`×`height` pixels (contents become black) unless unchanged, and lifts
    /// any row clip.
    pub fn resize(&mut self, width: usize, height: usize) {
        if self.width != width || self.height != height || self.img.is_empty() {
            self.width = width;
            self.height = height;
            self.img.clear();
            self.img.resize(width * height, [0.0; 3]);
            self.rows.clear();
            self.rows.resize(height, RowState::default());
            self.acc.resize(width, height);
        }
        self.set_clip_rows(height);
    }

    /// Width, pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height, pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The working image (0–255 floats, row-major RGB).
    pub fn pixels(&mut self) -> &[[f32; 3]] {
        let w = self.width;
        for (row, state) in self.img.chunks_exact_mut(w.max(1)).zip(&mut self.rows) {
            state.write(row, 0, w);
        }
        &self.img
    }

    /// Pixels `a..b` of row `y`, made current for drawing over.
    fn row_mut(&mut self, y: usize, a: usize, b: usize) -> &mut [[f32; 3]] {
        let w = self.width;
        self.rows[y].write(&mut self.img[y * w..(y + 1) * w], a, b)
    }

    /// Fills the canvas (the rows within the clip) with `color` (0–255 RGB).
    pub fn clear(&mut self, color: [f32; 3]) {
        for state in &mut self.rows[..self.clip_rows] {
            *state = RowState {
                lo: 0,
                hi: 0,
                fill: color,
            };
        }
    }

    /// Until called again, polygon layers and clears draw rows `0..rows` only: for when the
    /// rows below are about to be painted over opaquely (see [`Canvas::opaque_rows_from`]),
    /// so drawing them first would be wasted. `set_clip_rows(height)` lifts it.
    pub fn set_clip_rows(&mut self, rows: usize) {
        self.clip_rows = rows.min(self.height);
        self.acc.clip_rows(self.clip_rows);
    }

    /// The first row from which [`Canvas::fill_rect`] of `[x0, x1) × [y0, y1)` paints every
    /// pixel through the bottom edge with full coverage (its colour exactly, whatever lay
    /// beneath); the height if it paints no such row.
    pub fn opaque_rows_from(&self, x0: f64, y0: f64, x1: f64, y1: f64) -> usize {
        let (w, h) = (self.width as f64, self.height as f64);
        if x0 <= 0.0 && x1 >= w && y1 >= h && y0 >= 0.0 {
            (y0.ceil() as usize).min(self.height)
        } else {
            self.height
        }
    }

    /// Adds a polygon (points in the caller's space, mapped by `ts` to canvas pixels) to the
    /// pending layer. Polygons of one layer must not overlap unless they share a colour.
    pub fn push_polygon(&mut self, pts: &[[f64; 2]], ts: &Transform, color: [f32; 3]) {
        self.pts.clear();
        self.pts.extend(pts.iter().map(|&p| {
            let q = ts.apply(p);
            [q[0] as f32, q[1] as f32]
        }));
        self.acc.add_polygon(&self.pts, color);
    }

    /// [`Canvas::push_polygon`] for points already in canvas pixels.
    pub fn push_pixel_polygon(&mut self, pts: &[[f32; 2]], color: [f32; 3]) {
        self.acc.add_polygon(pts, color);
    }

    /// Composites the pending layer over the image (`dst = layer + (1 - coverage)·dst`).
    pub fn composite_layer(&mut self) {
        let w = self.width;
        let (img, rows) = (&mut self.img, &mut self.rows);
        // Pixels the layer does not touch are not reported and stay unchanged.
        self.acc.resolve_spans(|x, y, span| {
            let row = &mut img[y * w..(y + 1) * w];
            match span {
                Span::Varying(vals) => rows[y].blend_varying(row, x, vals),
                Span::Uniform(n, v) => rows[y].blend_uniform(row, x, x + n, v),
            }
        });
    }

    /// Fills one polygon as its own layer. A convex polygon that contains the whole canvas
    /// is a plain clear (the usual case for a background).
    pub fn fill_polygon(&mut self, pts: &[[f64; 2]], ts: &Transform, color: [f32; 3]) {
        if self.covers_canvas(pts, ts) {
            self.clear(color);
            return;
        }
        self.push_polygon(pts, ts, color);
        self.composite_layer();
    }

    /// Whether the (assumed convex) polygon, mapped by `ts`, contains all four canvas corners.
    pub fn covers_canvas(&self, pts: &[[f64; 2]], ts: &Transform) -> bool {
        let n = pts.len();
        if n < 3 {
            return false;
        }
        let (w, h) = (self.width as f64, self.height as f64);
        let corners = [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
        let mut sign = 0.0f64;
        for i in 0..n {
            let a = ts.apply(pts[i]);
            let b = ts.apply(pts[(i + 1) % n]);
            for c in corners {
                let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
                if cross == 0.0 || (sign != 0.0 && cross.signum() != sign) {
                    return false;
                }
                sign = cross.signum();
            }
        }
        true
    }

    /// Fills the axis-aligned rectangle `[x0, x1) × [y0, y1)` (canvas pixels, fractional
    /// edges get exact partial coverage) with `color`.
    pub fn fill_rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: [f32; 3]) {
        let (x0, x1) = (x0.max(0.0), x1.min(self.width as f64));
        let (y0, y1) = (y0.max(0.0), y1.min(self.height as f64));
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        let overlap = |lo: f64, hi: f64, i: usize| {
            ((hi.min(i as f64 + 1.0) - lo.max(i as f64)).max(0.0)) as f32
        };
        // Columns `full` lie wholly inside (overlap exactly 1); only the two ends are partial.
        let cols = x0 as usize..(x1.ceil() as usize);
        let full = (x0.ceil() as usize).min(cols.end)..(x1 as usize).max(cols.start);
        let full = full.start..full.end.max(full.start);
        for y in y0 as usize..(y1.ceil() as usize) {
            let cy = overlap(y0, y1, y);
            if cy == 1.0 && full == (0..self.width) {
                // The whole row becomes exactly `color`: keep it as the row's fill.
                self.rows[y] = RowState {
                    lo: 0,
                    hi: 0,
                    fill: color,
                };
                continue;
            }
            let row = self.row_mut(y, cols.start, cols.end);
            let at = |x: usize| x - cols.start;
            for x in (cols.start..full.start).chain(full.end..cols.end) {
                cover(&mut row[at(x)..at(x) + 1], cy * overlap(x0, x1, x), color);
            }
            cover(&mut row[at(full.start)..at(full.end)], cy, color);
        }
    }

    /// Strokes an open polyline `width` units wide (in the caller's space, before `ts`) with
    /// butt ends; overlapping segment quads merge into one coverage (union).
    pub fn stroke_polyline(
        &mut self,
        pts: &[[f64; 2]],
        width: f64,
        ts: &Transform,
        color: [f32; 3],
    ) {
        let hw = 0.5 * width;
        for s in pts.windows(2) {
            let (a, b) = (s[0], s[1]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt();
            if len == 0.0 {
                continue;
            }
            let (nx, ny) = (-dy / len * hw, dx / len * hw);
            let quad = [
                [a[0] + nx, a[1] + ny],
                [b[0] + nx, b[1] + ny],
                [b[0] - nx, b[1] - ny],
                [a[0] - nx, a[1] - ny],
            ];
            self.push_polygon(&quad, ts, color);
        }
        self.composite_layer();
    }

    /// Draws an opaque grey image (`iw`×`ih` bytes, row-major) whose pixel `(i, j)` covers the
    /// canvas rectangle `[x0 + i·sx, x0 + (i+1)·sx) × [y0 + j·sy, y0 + (j+1)·sy)`; each canvas
    /// pixel receives the exact area average of what covers it.
    #[allow(clippy::too_many_arguments)]
    pub fn draw_gray_image(
        &mut self,
        img: &[u8],
        iw: usize,
        ih: usize,
        x0: f64,
        y0: f64,
        sx: f64,
        sy: f64,
    ) {
        let mut patch = std::mem::take(&mut self.patch);
        patch.rasterize(img, iw, ih, x0, y0, sx, sy, self.width, self.height);
        self.draw_gray_patch(&patch);
        self.patch = patch;
    }

    /// Composites a prepared [`GrayPatch`] (see [`GrayPatch::rasterize`]).
    pub fn draw_gray_patch(&mut self, patch: &GrayPatch) {
        let w = self.width;
        if patch.x0 + patch.w > w || patch.y0 + patch.h > self.height {
            return;
        }
        for r in 0..patch.h {
            let src = r * patch.w..(r + 1) * patch.w;
            let dst = self.row_mut(patch.y0 + r, patch.x0, patch.x0 + patch.w);
            for ((d, &v), &c) in dst
                .iter_mut()
                .zip(&patch.value[src.clone()])
                .zip(&patch.cov[src])
            {
                let k = 1.0 - c;
                d[0] = v + k * d[0];
                d[1] = v + k * d[1];
                d[2] = v + k * d[2];
            }
        }
    }

    /// Writes the image as RGB bytes (`height` rows of `width` pixels) into `out`.
    pub fn write_rgb8(&self, out: &mut [u8], q: Quantizer) {
        let w = self.width;
        let rows = self.img.chunks_exact(w.max(1)).zip(&self.rows);
        for ((src, state), dst) in rows.zip(out.chunks_exact_mut(3 * w.max(1))) {
            let (lo, hi) = if state.lo < state.hi {
                (state.lo, state.hi)
            } else {
                (w, w)
            };
            for (o, &p) in dst[3 * lo..3 * hi]
                .iter_mut()
                .zip(src[lo..hi].as_flattened())
            {
                *o = q.apply(p);
            }
            // Pixels never drawn over hold the row's fill: quantize it once.
            let fill = state.fill.map(|v| q.apply(v));
            for o in dst[..3 * lo].chunks_exact_mut(3) {
                o.copy_from_slice(&fill);
            }
            for o in dst[3 * hi..].chunks_exact_mut(3) {
                o.copy_from_slice(&fill);
            }
        }
    }
}

/// Paints `color` over `px` with coverage `a`: `d += a·(color - d)`, and exactly `color` where
/// `a` is 1 (see [`Canvas::opaque_rows_from`]).
fn cover(px: &mut [[f32; 3]], a: f32, color: [f32; 3]) {
    if a == 1.0 {
        px.fill(color);
        return;
    }
    for d in px {
        for ch in 0..3 {
            d[ch] += a * (color[ch] - d[ch]);
        }
    }
}

/// Fills `px` with `color`, four pixels (twelve floats) at a time so the stores vectorize.
fn fill_px(px: &mut [[f32; 3]], color: [f32; 3]) {
    let pattern: [f32; 12] = std::array::from_fn(|i| color[i % 3]);
    let mut quads = px.as_flattened_mut().chunks_exact_mut(12);
    for q in &mut quads {
        q.copy_from_slice(&pattern);
    }
    let rest = quads.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&pattern[..n]);
}

/// `dst = v + (1 - coverage)·dst` for one pixel, `v = [r·a, g·a, b·a, a]`.
#[inline]
fn blend(d: &mut [f32; 3], v: &[f32; 4]) {
    let k = 1.0 - v[3];
    d[0] = v[0] + k * d[0];
    d[1] = v[1] + k * d[1];
    d[2] = v[2] + k * d[2];
}

/// [`blend`] of one value into a run of pixels. Works on four pixels (twelve floats) at a
/// time so the interleaved channels vectorize; the arithmetic per channel is the same.
fn blend_uniform(px: &mut [[f32; 3]], v: [f32; 4]) {
    let k = 1.0 - v[3];
    let pattern: [f32; 12] = std::array::from_fn(|i| v[i % 3]);
    let mut quads = px.as_flattened_mut().chunks_exact_mut(12);
    for q in &mut quads {
        for (d, &c) in q.iter_mut().zip(&pattern) {
            *d = c + k * *d;
        }
    }
    for (d, &c) in quads.into_remainder().iter_mut().zip(&pattern) {
        *d = c + k * *d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: Transform = Transform::identity();

    #[test]
    fn half_covered_pixel_blends_half() {
        let mut c = Canvas::new(2, 1);
        c.clear([0.0, 0.0, 200.0]);
        c.fill_polygon(
            &[[0.0, 0.0], [1.5, 0.0], [1.5, 1.0], [0.0, 1.0]],
            &ID,
            [100.0, 0.0, 0.0],
        );
        assert_eq!(c.pixels()[0], [100.0, 0.0, 0.0]);
        let p = c.pixels()[1];
        assert!((p[0] - 50.0).abs() < 1e-4 && (p[2] - 100.0).abs() < 1e-4);
    }

    #[test]
    fn abutting_polygons_fill_seamlessly() {
        let mut c = Canvas::new(8, 8);
        c.clear([0.0, 255.0, 0.0]);
        // Two triangles sharing a diagonal, one layer: no green may leak along the seam.
        let (a, b, d, e) = ([0.3, 0.2], [7.7, 0.2], [7.7, 7.9], [0.3, 7.9]);
        c.push_polygon(&[a, b, d], &ID, [90.0, 90.0, 90.0]);
        c.push_polygon(&[a, d, e], &ID, [90.0, 90.0, 90.0]);
        c.composite_layer();
        for y in 1..7 {
            for x in 1..7 {
                let p = c.pixels()[y * 8 + x];
                assert!((p[1] - 90.0).abs() < 1e-3, "seam leak at ({x},{y}): {p:?}");
            }
        }
    }

    #[test]
    fn rect_coverage_is_exact() {
        let mut c = Canvas::new(4, 4);
        c.fill_rect(0.5, 1.0, 3.0, 2.25, [255.0; 3]);
        let px = c.pixels().to_vec();
        let g = |x: usize, y: usize| px[y * 4 + x][0];
        assert_eq!(g(0, 1), 127.5);
        assert_eq!(g(1, 1), 255.0);
        assert_eq!(g(1, 2), 63.75);
        assert_eq!(g(3, 1), 0.0);
        assert_eq!(g(1, 0), 0.0);
    }

    #[test]
    fn gray_image_area_averages() {
        // A 4x4 white block scaled by 1/2 fills 2x2 canvas pixels fully.
        let mut c = Canvas::new(3, 3);
        c.clear([10.0; 3]);
        c.draw_gray_image(&[255; 16], 4, 4, 0.5, 0.0, 0.5, 0.5);
        assert!((c.pixels()[0][0] - (0.5 * 255.0 + 5.0)).abs() < 1e-3);
        assert!((c.pixels()[1][0] - 255.0).abs() < 1e-3);
        assert!((c.pixels()[2][0] - (0.5 * 255.0 + 5.0)).abs() < 1e-3);
        assert!((c.pixels()[7][0] - 10.0).abs() < 1e-3);
    }

    #[test]
    fn quantizer_matches_measured_smoothscale() {
        let q = Quantizer::pygame_smoothscale(1000, 800, 96, 96);
        assert_eq!(q.apply(102.0), 100);
        assert_eq!(q.apply(1.0), 0);
        assert_eq!(q.apply(255.0), 253);
        let v = Quantizer::pygame_smoothscale(1000, 800, 600, 400);
        assert_eq!(v.apply(102.0), 101);
        assert_eq!(
            Quantizer::pygame_smoothscale(1000, 800, 1000, 800).apply(101.6),
            102
        );
    }

    #[test]
    fn lazy_rows_read_and_quantize_as_drawn() {
        let mut c = Canvas::new(5, 3);
        c.clear([40.0, 50.0, 60.0]);
        c.fill_polygon(
            &[[1.5, 1.0], [3.0, 1.0], [3.0, 2.0], [1.5, 2.0]],
            &ID,
            [200.0, 0.0, 0.0],
        );
        c.fill_rect(0.0, 2.0, 5.0, 3.0, [9.0; 3]);
        let q = Quantizer::round();
        let mut out = vec![0u8; 5 * 3 * 3];
        c.write_rgb8(&mut out, q);
        let px = c.pixels().to_vec();
        let expect: Vec<u8> = px.as_flattened().iter().map(|&v| q.apply(v)).collect();
        assert_eq!(out, expect);
        assert_eq!(px[0], [40.0, 50.0, 60.0]);
        assert_eq!(px[5 + 1], [120.0, 25.0, 30.0]);
        assert_eq!(px[5 + 2], [200.0, 0.0, 0.0]);
        assert_eq!(px[5 + 4], [40.0, 50.0, 60.0]);
        assert_eq!(px[10], [9.0; 3]);
    }

    #[test]
    fn opaque_rect_hides_rows_below_its_top() {
        let c = Canvas::new(4, 10);
        assert_eq!(c.opaque_rows_from(0.0, 7.5, 4.0, 10.0), 8);
        assert_eq!(c.opaque_rows_from(0.5, 7.5, 4.0, 10.0), 10);
        assert_eq!(c.opaque_rows_from(0.0, 7.0, 4.0, 9.0), 10);
    }
}
