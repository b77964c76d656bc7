//! The public drawing API: a frame of anti-aliased layers, rects and grey images recorded in
//! drawing order, then composited row by row in f32 and quantized into caller-owned `u8`
//! memory (each layer keeps its own accumulator until then, so no full-size float image is
//! written).
//!
//! Coordinates given to the canvas are its own pixels (pixel `(x, y)` spans
//! `[x, x + 1) × [y, y + 1)`, y down); shapes take a [`Transform`] from the caller's space so
//! one scene description draws at any resolution.

use super::f32x4::F32x4;
use super::raster::Accumulator;
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

    /// [`Quantizer::apply`] of sixteen values, written as plain array passes so they
    /// vectorize.
    #[inline]
    // `max`/`min` rather than `clamp` (the same for every non-NaN input): `clamp`'s NaN
    // semantics keep this from vectorizing, which made quantizing 3.5x dearer.
    #[allow(clippy::manual_clamp)]
    pub fn apply16(&self, v: &[f32; 16]) -> [u8; 16] {
        let off = self.add - 0.5 - self.sub;
        let bits: [u32; 16] =
            std::array::from_fn(|i| ((v[i] + off).max(0.0).min(255.0) + 8_388_608.0).to_bits());
        std::array::from_fn(|i| (bits[i] & 0xff) as u8)
    }
}

/// An RGB drawing surface with reusable scratch buffers (no allocation per frame once sized).
/// Colours are 0–255 per channel and must be finite.
///
/// Drawing calls record a frame (layers of polygons, rects, grey patches); rendering it
/// ([`Canvas::write_rgb8`]) composites every operation row by row into a one-row buffer and
/// quantizes that row at once, so each pixel is written once and no full-size float image
/// is touched. A frame starts black; `write_rgb8` ends it.
#[derive(Debug, Clone, Default)]
pub struct Canvas {
    width: usize,
    height: usize,
    /// The image baked by [`Canvas::pixels`] (0–255 per channel, row-major), which the
    /// frame then starts from.
    img: Vec<[f32; 3]>,
    /// Scratch: the row being composited (0–255 per channel; lane 3 unused, so each pixel
    /// is one four-lane vector).
    row: Vec<[f32; 4]>,
    /// Layers and clears draw rows `0..clip_rows` only; see [`Canvas::set_clip_rows`].
    clip_rows: usize,
    /// One accumulator per polygon layer of the frame (`used_layers` of them are in use).
    layers: Vec<Accumulator>,
    used_layers: usize,
    /// The layer receiving polygons, until [`Canvas::composite_layer`].
    open: Option<usize>,
    /// Grey patches of the frame (`used_patches` in use), copied so the caller keeps its own.
    patches: Vec<GrayPatch>,
    used_patches: usize,
    /// The frame's operations in drawing order.
    ops: Vec<Op>,
    pts: Vec<[f32; 2]>,
    /// Scratch for [`Canvas::bake`]: the next baked image.
    baking: Vec<[f32; 3]>,
    /// Bytes the layers' accumulators may hold at once (0: the default budget).
    layer_budget: usize,
}

/// How many bytes of layer accumulators a canvas keeps. A frame with more layers than fit
/// (a video frame with its 30 skid marks, each a layer) bakes what it has drawn and reuses
/// them, so a rendering env's memory stays bounded instead of growing with every new layer
/// count or screen area a frame reaches. Small frames (the 96x96 observation) never get near
/// it.
const LAYER_BUDGET_BYTES: usize = 32 << 20;
/// Layers a canvas may always keep, whatever their size.
const MIN_LAYERS: usize = 4;

/// One recorded drawing operation, applied to each row when the frame is rendered.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    /// Rows `0..rows` become `color`.
    Clear { rows: usize, color: [f32; 3] },
    /// Composite `layers[i]`.
    Layer(usize),
    /// A clear of rows `0..rows` to `color` followed by `layers[layer]`, done in one pass
    /// (each pixel written once; see [`Accumulator::composite_row_onto`]).
    ClearThenLayer {
        rows: usize,
        color: [f32; 3],
        layer: usize,
    },
    /// Paint a rectangle (see [`Canvas::fill_rect`]) with `color`; it touches rows `rows`.
    Rect {
        cols: RectColumns,
        y: [f64; 2],
        rows: (usize, usize),
        color: [f32; 3],
    },
    /// Composite `patches[i]`.
    Patch(usize),
    /// Rows become the image baked by [`Canvas::pixels`].
    Baked,
}

/// The columns of a rectangle `[x0, x1) × ...` (canvas pixels, clamped, non-empty), worked out
/// once for all its rows: `full` lie wholly inside (coverage exactly 1), and at most two
/// partial columns at the ends with their coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RectColumns {
    full: (usize, usize),
    partial: [(usize, f32); 2],
    partial_count: usize,
}

impl RectColumns {
    fn new(x0: f64, x1: f64) -> Self {
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
    /// Per source column `i`, the canvas cells it overlaps and by how much:
    /// `col_cells[col_start[i]..col_start[i + 1]]`.
    col_cells: Vec<(usize, f32)>,
    col_start: Vec<usize>,
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
        // Which cells each source column overlaps is the same on every source row: work it
        // out once (the same overlaps, in the same order, as computing them per pixel).
        self.col_cells.clear();
        self.col_start.clear();
        for i in 0..iw {
            self.col_start.push(self.col_cells.len());
            let xlo = x0 + i as f64 * sx;
            let cells = &mut self.col_cells;
            spans(xlo, xlo + sx, cx0, cx1, |c, a| cells.push((c, a)));
        }
        self.col_start.push(self.col_cells.len());
        for j in 0..ih {
            let ylo = y0 + j as f64 * sy;
            let yhi = ylo + sy;
            if yhi <= cy0 as f64 || ylo >= cy1 as f64 {
                continue;
            }
            // Horizontal pass for this source row, then spread it over the rows it covers.
            let row = &mut self.row;
            row.fill(0.0);
            for (i, &px) in img[j * iw..(j + 1) * iw].iter().enumerate() {
                let v = px as f32;
                if v == 0.0 {
                    continue;
                }
                for &(c, a) in &self.col_cells[self.col_start[i]..self.col_start[i + 1]] {
                    row[c] += a * v;
                }
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

    /// Resizes to `width`×`height` pixels (the frame restarts black) unless unchanged, and
    /// lifts any row clip.
    pub fn resize(&mut self, width: usize, height: usize) {
        if self.width != width || self.height != height || self.row.is_empty() {
            self.width = width;
            self.height = height;
            self.img.clear();
            self.row.clear();
            self.row.resize(width, [0.0; 4]);
            for acc in &mut self.layers {
                acc.resize(width, height);
            }
            self.end_frame();
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

    /// The image drawn so far (0–255 floats, row-major RGB). Composites any pending layer;
    /// drawing continues on top of it.
    pub fn pixels(&mut self) -> &[[f32; 3]] {
        let mut baked = Vec::with_capacity(self.width * self.height);
        self.render_rows(|_, row| baked.extend(row.iter().map(|p| [p[0], p[1], p[2]])));
        self.img = baked;
        self.ops.push(Op::Baked);
        &self.img
    }

    /// Forgets the recorded frame (every layer must be resolved or cleared).
    fn end_frame(&mut self) {
        self.ops.clear();
        self.used_layers = 0;
        self.used_patches = 0;
        self.open = None;
    }

    /// Fills the canvas (the rows within the clip) with `color` (0–255 RGB).
    pub fn clear(&mut self, color: [f32; 3]) {
        self.ops.push(Op::Clear {
            rows: self.clip_rows,
            color,
        });
    }

    /// Until called again, polygon layers and clears draw rows `0..rows` only: for when the
    /// rows below are about to be painted over opaquely (see [`Canvas::opaque_rows_from`]),
    /// so drawing them first would be wasted. `set_clip_rows(height)` lifts it. Call it
    /// between layers.
    pub fn set_clip_rows(&mut self, rows: usize) {
        self.clip_rows = rows.min(self.height);
        if let Some(i) = self.open {
            self.layers[i].clip_rows(self.clip_rows);
        }
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

    /// Layers whose accumulators fit the budget (at least [`MIN_LAYERS`]).
    fn max_layers(&self) -> usize {
        let budget = if self.layer_budget == 0 {
            LAYER_BUDGET_BYTES
        } else {
            self.layer_budget
        };
        let per_layer = (self.width + 2) * self.height * std::mem::size_of::<[f32; 4]>();
        (budget / per_layer.max(1)).max(MIN_LAYERS)
    }

    /// Composites everything recorded so far into the baked image and starts the frame's
    /// operations afresh from it, so the layers' accumulators can be reused. The bytes of
    /// the frame do not change: later operations apply to exactly the values they would have
    /// found in the row.
    fn bake(&mut self) {
        let mut baked = std::mem::take(&mut self.baking);
        baked.clear();
        baked.reserve(self.width * self.height);
        self.render_rows(|_, row| baked.extend(row.iter().map(|p| [p[0], p[1], p[2]])));
        self.baking = std::mem::replace(&mut self.img, baked);
        self.ops.clear();
        self.ops.push(Op::Baked);
        self.used_layers = 0;
        self.used_patches = 0;
    }

    /// The accumulator of the pending layer, starting a new layer if none is pending.
    fn layer(&mut self) -> &mut Accumulator {
        let i = match self.open {
            Some(i) => i,
            None => {
                if self.used_layers >= self.max_layers() {
                    self.bake();
                }
                let i = self.used_layers;
                self.used_layers += 1;
                if i == self.layers.len() {
                    self.layers.push(Accumulator::new(self.width, self.height));
                }
                self.layers[i].clip_rows(self.clip_rows);
                self.open = Some(i);
                i
            }
        };
        &mut self.layers[i]
    }

    /// Adds a polygon (points in the caller's space, mapped by `ts` to canvas pixels) to the
    /// pending layer. Polygons of one layer must not overlap unless they share a colour.
    pub fn push_polygon(&mut self, pts: &[[f64; 2]], ts: &Transform, color: [f32; 3]) {
        let mut mapped = std::mem::take(&mut self.pts);
        mapped.clear();
        mapped.extend(pts.iter().map(|&p| {
            let q = ts.apply(p);
            [q[0] as f32, q[1] as f32]
        }));
        self.layer().add_polygon(&mapped, color);
        self.pts = mapped;
    }

    /// [`Canvas::push_polygon`] for points already in canvas pixels.
    pub fn push_pixel_polygon(&mut self, pts: &[[f32; 2]], color: [f32; 3]) {
        self.layer().add_polygon(pts, color);
    }

    /// [`Canvas::push_pixel_polygon`] leaving out some edges, to be deposited later with
    /// [`Canvas::push_pixel_edge`]; see [`Accumulator::add_polygon_except`].
    pub fn push_pixel_polygon_except(
        &mut self,
        pts: &[[f32; 2]],
        color: [f32; 3],
        skip: u32,
    ) -> Option<[f32; 4]> {
        self.layer().add_polygon_except(pts, color, skip)
    }

    /// Deposits an edge left out of polygons of the pending layer; see
    /// [`Accumulator::add_edge`].
    pub fn push_pixel_edge(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        self.layer().add_edge(p0, p1, wgt);
    }

    /// Composites the pending layer over the image (`dst = layer + (1 - coverage)·dst`).
    pub fn composite_layer(&mut self) {
        if let Some(i) = self.open.take() {
            if self.layers[i].is_empty() {
                // Nothing drawn: hand the accumulator back (it is the last one taken).
                self.used_layers -= 1;
            } else if let Some(&Op::Clear { rows, color }) = self.ops.last() {
                *self.ops.last_mut().expect("an op") = Op::ClearThenLayer {
                    rows,
                    color,
                    layer: i,
                };
            } else {
                self.ops.push(Op::Layer(i));
            }
        }
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
        self.ops.push(Op::Rect {
            cols: RectColumns::new(x0, x1),
            y: [y0, y1],
            rows: (y0 as usize, y1.ceil() as usize),
            color,
        });
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
        let i = self.next_patch();
        let (w, h) = (self.width, self.height);
        self.patches[i].rasterize(img, iw, ih, x0, y0, sx, sy, w, h);
        self.record_patch(i);
    }

    /// Composites a prepared [`GrayPatch`] (see [`GrayPatch::rasterize`]).
    pub fn draw_gray_patch(&mut self, patch: &GrayPatch) {
        let i = self.next_patch();
        self.patches[i].clone_from(patch);
        self.record_patch(i);
    }

    /// A free slot in `patches` for the frame.
    fn next_patch(&mut self) -> usize {
        let i = self.used_patches;
        if i == self.patches.len() {
            self.patches.push(GrayPatch::default());
        }
        self.used_patches += 1;
        i
    }

    /// Records patch slot `i` (just filled) for compositing, if it fits the canvas.
    fn record_patch(&mut self, i: usize) {
        let p = &self.patches[i];
        if p.x0 + p.w > self.width || p.y0 + p.h > self.height {
            self.used_patches -= 1;
            return;
        }
        self.ops.push(Op::Patch(i));
    }

    /// Renders the frame row by row: calls `emit(y, row)` with each composited row (0–255
    /// floats), top to bottom. Resolves every layer; the recorded operations stay.
    #[inline(always)]
    fn render_rows(&mut self, mut emit: impl FnMut(usize, &[[f32; 4]])) {
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

    /// Renders the frame as RGB bytes (`height` rows of `width` pixels) into `out`, and
    /// starts a new (black) frame.
    pub fn write_rgb8(&mut self, out: &mut [u8], q: Quantizer) {
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked above).
            unsafe { self.write_rgb8_avx2(out, q) };
            self.end_frame();
            return;
        }
        self.write_rgb8_rows(out, q, quantize_row_baseline);
        self.end_frame();
    }

    /// [`Canvas::write_rgb8`]'s compositing compiled for AVX2: the row loops (fills, blends,
    /// layer resolves, quantizing) are inlined here, so they use 256-bit vectors. The same
    /// IEEE operations in the same order (no FMA), so the same bytes.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn write_rgb8_avx2(&mut self, out: &mut [u8], q: Quantizer) {
        // The closure inherits this function's target features, so the call is safe.
        self.write_rgb8_rows(out, q, |src, dst, q| quantize_row_avx2(src, dst, q));
    }

    #[inline(always)]
    fn write_rgb8_rows(
        &mut self,
        out: &mut [u8],
        q: Quantizer,
        quantize: impl Fn(&[[f32; 4]], &mut [u8], Quantizer),
    ) {
        let w3 = 3 * self.width.max(1);
        let mut rows = out.chunks_exact_mut(w3);
        self.render_rows(|_, row| {
            if let Some(dst) = rows.next() {
                quantize(row, dst, q);
            }
        });
    }
}

/// [`quantize_row_baseline`] eight pixels at a time: quantizing is a large part of what a
/// frame costs after the rasterizer, and AVX2 halves its instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn quantize_row_avx2(src: &[[f32; 4]], dst: &mut [u8], q: Quantizer) {
    use std::arch::x86_64::*;
    let off = _mm256_set1_ps(q.add - 0.5 - q.sub);
    // The conversion rounds to nearest-even like the 2^23 trick, and the packs saturate to
    // 0-255. Unlike `apply16` there is no `min(255, x)` first (a tenth of the loop): rows hold
    // compositing results of finite colours, within 0-255 up to rounding, and only values of
    // 2^31 and above (+inf included) would come out differently (0 instead of 255). NaN
    // gives 0 either way.
    let conv = |x: __m256| _mm256_cvtps_epi32(_mm256_add_ps(x, off));
    // After the packs each 32-bit group is one pixel's RGBx, groups in the order 0 2 4 6 |
    // 1 3 5 7; the permute puts them in order, the byte shuffle drops each x (per 128-bit
    // half: 12 bytes of RGB, then 4 spare bytes).
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let rgb = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13,
        14, -1, -1, -1, -1,
    );
    // Eight pixels as 24 RGB bytes, in the low 12 bytes of each 128-bit half.
    let group = |p: *const f32| {
        // SAFETY: callers pass a pointer to eight pixels (32 floats); loads are unaligned.
        unsafe {
            let i0 = conv(_mm256_loadu_ps(p));
            let i1 = conv(_mm256_loadu_ps(p.add(8)));
            let i2 = conv(_mm256_loadu_ps(p.add(16)));
            let i3 = conv(_mm256_loadu_ps(p.add(24)));
            let bytes = _mm256_packus_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
            let bytes = _mm256_permutevar8x32_epi32(bytes, order);
            _mm256_shuffle_epi8(bytes, rgb)
        }
    };
    let mut i = 0;
    // Each group stores 28 bytes: its 24 and 4 spare ones that the next group overwrites.
    while i + 8 <= src.len() && 3 * i + 28 <= dst.len() {
        let bytes = group(src[i..].as_ptr().cast());
        // SAFETY: bytes 3i..3i+28 of `dst` exist (checked above); stores are unaligned.
        unsafe {
            let d = dst.as_mut_ptr().add(3 * i);
            _mm_storeu_si128(d.cast(), _mm256_castsi256_si128(bytes));
            _mm_storeu_si128(d.add(12).cast(), _mm256_extracti128_si256::<1>(bytes));
        }
        i += 8;
    }
    // The last whole group of a row has no spare bytes after it: go through a buffer.
    if i + 8 <= src.len() {
        let bytes = group(src[i..].as_ptr().cast());
        let mut buf = [0u8; 32];
        // SAFETY: `buf` holds 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(buf.as_mut_ptr().cast(), bytes) };
        dst[3 * i..3 * i + 12].copy_from_slice(&buf[..12]);
        dst[3 * i + 12..3 * i + 24].copy_from_slice(&buf[16..28]);
        i += 8;
    }
    quantize_row_baseline(&src[i..], &mut dst[3 * i..], q);
}

/// Quantizes one row of pixels (0–255 floats, lane 3 ignored) into RGB bytes, four pixels at
/// a time (SSE2, the x86-64 baseline, or portable code). [`quantize_row_avx2`] gives the same
/// bytes.
fn quantize_row_baseline(src: &[[f32; 4]], dst: &mut [u8], q: Quantizer) {
    let mut s = src.chunks_exact(4);
    let mut d = dst.chunks_exact_mut(12);
    for (a, b) in (&mut s).zip(&mut d) {
        let a: &[f32; 16] = a.as_flattened().try_into().expect("four pixels");
        let rgbx = apply16(q, a);
        for (o, p) in b.chunks_exact_mut(3).zip(rgbx.chunks_exact(4)) {
            o.copy_from_slice(&p[..3]);
        }
    }
    for (o, p) in d.into_remainder().chunks_exact_mut(3).zip(s.remainder()) {
        for (o, &v) in o.iter_mut().zip(p) {
            *o = q.apply(v);
        }
    }
}

/// [`Quantizer::apply16`] with SSE2's convert-and-saturate instructions, which do in four
/// steps what the portable form needs seven for: `cvtps2dq` rounds to nearest-even (the
/// default MXCSR mode, which the `2^23` trick of [`Quantizer::apply`] also relies on) and the
/// saturating packs clamp to 0–255. The `min` first sends +inf to 255 (the conversion would
/// make it 0) and keeps NaN, which converts to 0 as before: same bytes for every input.
#[cfg(target_arch = "x86_64")]
#[inline]
fn apply16(q: Quantizer, v: &[f32; 16]) -> [u8; 16] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; loads and stores are unaligned and stay
    // within the two arrays.
    unsafe {
        let off = _mm_set1_ps(q.add - 0.5 - q.sub);
        let top = _mm_set1_ps(255.0);
        let p = v.as_ptr();
        // `minps` returns its second operand when either is NaN: NaN stays NaN.
        let conv = |x: __m128| _mm_cvtps_epi32(_mm_min_ps(top, _mm_add_ps(x, off)));
        let i0 = conv(_mm_loadu_ps(p));
        let i1 = conv(_mm_loadu_ps(p.add(4)));
        let i2 = conv(_mm_loadu_ps(p.add(8)));
        let i3 = conv(_mm_loadu_ps(p.add(12)));
        let bytes = _mm_packus_epi16(_mm_packs_epi32(i0, i1), _mm_packs_epi32(i2, i3));
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), bytes);
        out
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn apply16(q: Quantizer, v: &[f32; 16]) -> [u8; 16] {
    q.apply16(v)
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
    fn fast_quantizer_matches_the_portable_one() {
        let mut vals: Vec<f32> = (-40..=2200).map(|i| i as f32 * 0.125).collect();
        // Ties, near-ties and non-finite values.
        for k in 0..300 {
            let v = k as f32 + 0.5;
            vals.extend([v, v.next_up(), v.next_down(), v - 1.501, v + 0.499]);
        }
        vals.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e9, -1e9, -0.0]);
        while vals.len() % 16 != 0 {
            vals.push(0.0);
        }
        for q in [
            Quantizer::round(),
            Quantizer::pygame_smoothscale(1000, 800, 96, 96),
            Quantizer::pygame_smoothscale(1000, 800, 600, 400),
        ] {
            for chunk in vals.chunks_exact(16) {
                let c: &[f32; 16] = chunk.try_into().unwrap();
                let expect: Vec<u8> = c.iter().map(|&v| q.apply(v)).collect();
                assert_eq!(apply16(q, c).to_vec(), expect, "{c:?}");
                assert_eq!(q.apply16(c).to_vec(), expect, "{c:?}");
            }
        }
    }

    #[test]
    fn row_quantizers_agree() {
        let src: Vec<[f32; 4]> = (0..1000)
            .map(|i| {
                std::array::from_fn(|ch| match (i + ch) % 7 {
                    0 => i as f32 * 0.37 - 20.0,
                    1 => (i % 256) as f32 + 0.5,
                    2 => f32::NAN,
                    3 => 1e9,
                    _ => ((i + ch) * 31 % 2600) as f32 * 0.1,
                })
            })
            .collect();
        // Any value a row can hold: finite (below 2^31; see `quantize_row_avx2`), or NaN.
        let q = Quantizer::pygame_smoothscale(1000, 800, 96, 96);
        // Without AVX2 only the baseline half below runs: fail rather than pass on half a test.
        #[cfg(target_arch = "x86_64")]
        assert!(
            std::arch::is_x86_feature_detected!("avx2") || crate::cpu::no_avx2_allowed(),
            "no AVX2 on this CPU, so quantize_row_avx2 is untested; set {}=1 to accept that",
            crate::cpu::ALLOW_NO_AVX2_ENV
        );
        for len in [0, 1, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 96, 1000] {
            // Lane 3 is not a channel: it never reaches the bytes.
            let expect: Vec<u8> = src[..len]
                .iter()
                .flat_map(|p| p[..3].iter().map(|&v| q.apply(v)))
                .collect();
            let mut out = vec![0u8; 3 * len];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked above).
                unsafe { quantize_row_avx2(&src[..len], &mut out, q) };
                assert_eq!(out, expect, "len {len}");
            }
            out.fill(0);
            quantize_row_baseline(&src[..len], &mut out, q);
            assert_eq!(out, expect, "len {len}");
        }
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
    fn a_frame_beyond_the_layer_budget_bakes_and_gives_the_same_bytes() {
        // 60 overlapping anti-aliased layers (a video frame with skid marks has ~40), with
        // rects and a clip between them: bounded to MIN_LAYERS accumulators, the same bytes.
        let draw = |c: &mut Canvas| {
            c.clear([40.0, 50.0, 60.0]);
            for k in 0..60 {
                let (x, y) = (7.3 * k as f64 % 560.0, 5.1 * k as f64 % 360.0);
                let color = [(k * 37 % 256) as f32, (k * 91 % 256) as f32, 128.0];
                let pts = [[x, y], [x + 40.5, y + 3.25], [x + 31.0, y + 38.75]];
                c.fill_polygon(&pts, &ID, color);
                if k % 13 == 0 {
                    c.fill_rect(x, y, x + 20.0, y + 9.5, [9.0, 200.0, 30.0]);
                    c.set_clip_rows(300 + k);
                }
            }
            c.set_clip_rows(400);
        };
        let frame = |budget: usize| {
            let mut c = Canvas::new(600, 400);
            c.layer_budget = budget;
            draw(&mut c);
            let mut out = vec![0u8; 600 * 400 * 3];
            c.write_rgb8(&mut out, Quantizer::round());
            // A second frame on the same canvas reuses the same accumulators.
            draw(&mut c);
            let mut again = vec![0u8; 600 * 400 * 3];
            c.write_rgb8(&mut again, Quantizer::round());
            assert_eq!(out, again);
            (out, c.layers.len())
        };
        let (unbounded, many) = frame(usize::MAX);
        let (bounded, few) = frame(1);
        assert_eq!(many, 60);
        assert_eq!(few, MIN_LAYERS);
        assert!(unbounded == bounded, "baking changed the frame");
    }

    #[test]
    fn pixels_read_and_quantize_as_drawn() {
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
        let px = c.pixels().to_vec();
        c.write_rgb8(&mut out, q);
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
