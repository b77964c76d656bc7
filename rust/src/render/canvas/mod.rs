//! The public drawing API: a frame of anti-aliased layers, rects and grey images recorded in
//! drawing order, then composited row by row in f32 and quantized into caller-owned `u8`
//! memory (each layer keeps its own accumulator until then, so no full-size float image is
//! written).
//!
//! Coordinates given to the canvas are its own pixels (pixel `(x, y)` spans
//! `[x, x + 1) × [y, y + 1)`, y down); shapes take a [`Transform`] from the caller's space so
//! one scene description draws at any resolution.
//!
//! This module holds the drawing API (the canvas, its recorded operations, grey patches);
//! `composite` renders a frame's operations row by row, `quantize` turns rows of floats into
//! bytes, and `simd` has the x86-64 intrinsics of quantizing, which give the same bytes as the
//! portable code.

mod composite;
mod quantize;
mod simd;

pub use quantize::Quantizer;

use super::raster::Accumulator;
use super::transform::Transform;
use composite::RectColumns;

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
}

#[cfg(test)]
mod tests;
