//! What one CarRacing frame shows, as plain data, and the function that draws it.
//!
//! The environment fills a [`SceneView`] from its state; the renderer never reaches into the
//! simulation. Coordinates are world units (Gymnasium's), colours are 0–255 RGB.

/// A filled quadrilateral of the road layer (a tile or a red/white kerb), in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoadPoly {
    pub vertices: [[f64; 2]; 4],
    /// Colour as Gymnasium passes it to `gfxdraw` (`int(c)` of each channel).
    pub color: [u8; 3],
}

/// A skid mark (Gymnasium's `Particle`): a polyline, drawn 2 px wide in video frames only.
#[derive(Debug, Clone, PartialEq)]
pub struct SkidMark {
    pub color: [u8; 3],
    pub points: Vec<[f64; 2]>,
}

/// The car's drawable geometry, in world coordinates after Box2D's f32 body transforms.
#[derive(Debug, Clone, PartialEq)]
pub struct CarDrawing {
    /// The four hull fixtures (up to 8 vertices each; `hull_counts` says how many are used).
    pub hull: [[[f32; 2]; 8]; 4],
    pub hull_counts: [usize; 4],
    /// The four wheel boxes, front-left, front-right, rear-left, rear-right.
    pub wheels: [[[f32; 2]; 4]; 4],
    /// Wheel rotation phase (radians), which places the grey stripe on each wheel.
    pub wheel_phase: [f64; 4],
    /// Wheel body transforms (position, angle): the stripe is drawn in wheel-local coordinates.
    pub wheel_pose: [([f32; 2], f32); 4],
}

/// The bottom bar's inputs (Gymnasium's `_render_indicators`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Indicators {
    /// |hull linear velocity|, world units per second.
    pub true_speed: f64,
    /// Wheel angular velocities (Gymnasium's `omega`), radians per second.
    pub wheel_omega: [f64; 4],
    /// Front-left steering joint angle, radians.
    pub steer_angle: f64,
    /// Hull angular velocity, radians per second.
    pub hull_angular_velocity: f64,
}

/// Everything a CarRacing frame depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneView<'a> {
    /// Camera target: hull position (world units) and angle (radians), as Box2D's f32.
    pub hull_position: [f32; 2],
    pub hull_angle: f32,
    /// Episode time in seconds (drives the first-second zoom-in).
    pub t: f64,
    pub bg_color: [f64; 3],
    pub grass_color: [f64; 3],
    /// Tiles and kerbs in Gymnasium's draw order.
    pub road: &'a [RoadPoly],
    /// Optional [`road_chunk_bounds`] of `road`, so whole stretches of road far from the
    /// camera are skipped with one test. Empty (or of the wrong length): every polygon is
    /// tested on its own. Either way the frame is the same.
    pub road_bounds: &'a [[f64; 4]],
    pub car: &'a CarDrawing,
    pub skid_marks: &'a [SkidMark],
    pub indicators: Indicators,
    /// Accumulated episode reward, shown as the score digits in `score`'s style.
    pub reward: f64,
    /// How the score is formatted and which rasterisation of the font draws it.
    pub score: ScoreStyle,
}

/// How Gymnasium formats the score it draws (the text reaches the observation: it is drawn
/// on the 1000×800 window before the scale to 96×96).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScoreFormat {
    /// `"%04i" % reward`: truncated toward zero (Gymnasium up to 1.2.x).
    Truncate,
    /// `f"{reward:04}"`: the float's full repr, e.g. `23.590909090909093` (Gymnasium 1.3.0,
    /// from the ruff reformat of PR #1505, reported in issue #1638).
    Repr,
    /// `f"{reward:04.0f}"`: rounded half to even (Gymnasium 1.4.0, PR #1639).
    #[default]
    Round,
}

/// Which pygame draws the score: Gymnasium's `[box2d]` extra installs pygame up to 1.2.x and
/// pygame-ce from 1.3.0 (PR #1512); their SDL_ttf builds rasterise the font differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FontFlavor {
    Pygame,
    #[default]
    PygameCe,
}

/// The score's format and font, as one Gymnasium release draws them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScoreStyle {
    pub format: ScoreFormat,
    pub font: FontFlavor,
}

impl FontFlavor {
    fn face(self) -> &'static font::Face {
        match self {
            FontFlavor::Pygame => &font::PYGAME,
            FontFlavor::PygameCe => &font::PYGAME_CE,
        }
    }
}

/// Road polygons per [`road_chunk_bounds`] box.
pub const ROAD_CHUNK: usize = 8;

/// World-space bounding boxes `[x_min, x_max, y_min, y_max]` of consecutive runs of
/// [`ROAD_CHUNK`] road polygons (the last run may be shorter), for [`SceneView::road_bounds`].
/// The road's vertices never move within an episode, so this is computed once per track.
pub fn road_chunk_bounds(road: &[RoadPoly]) -> Vec<[f64; 4]> {
    road.chunks(ROAD_CHUNK)
        .map(|chunk| {
            let mut b = [f64::MAX, f64::MIN, f64::MAX, f64::MIN];
            for p in chunk.iter().flat_map(|rp| &rp.vertices) {
                b = [
                    b[0].min(p[0]),
                    b[1].max(p[0]),
                    b[2].min(p[1]),
                    b[3].max(p[1]),
                ];
            }
            b
        })
        .collect()
}

use crate::render::{font, Canvas, GrayPatch, Quantizer, Transform};
use crate::sim::numpy_compat::np_sign;

/// Gymnasium's window surface, pixels: every coordinate below is in this space before the
/// final scaling to the requested output size.
const WINDOW_W: f64 = 1000.0;
const WINDOW_H: f64 = 800.0;
const SCALE: f64 = 6.0;
const ZOOM: f64 = 2.7;
const PLAYFIELD: f64 = 2000.0 / SCALE;
const GRASS_DIM: f64 = PLAYFIELD / 20.0;
const TRACK_WIDTH: f64 = 40.0 / SCALE;
const TRACK_DETAIL_STEP: f64 = 21.0 / SCALE;
/// Car geometry (car_dynamics.py): wheel half-extents and the model scale.
const SIZE: f64 = 0.02;
const WHEEL_R: f64 = 27.0;
const WHEEL_W: f64 = 14.0;
const HULL_COLOR: [f32; 3] = [204.0, 0.0, 0.0];
const WHEEL_COLOR: [f32; 3] = [0.0, 0.0, 0.0];
const WHEEL_WHITE: [f32; 3] = [77.0, 77.0, 77.0];

/// Gymnasium's `MAX_SHAPE_DIM`: the margin (window pixels) of its polygon clip test.
fn max_shape_dim() -> f64 {
    GRASS_DIM.max(TRACK_WIDTH).max(TRACK_DETAIL_STEP) * std::f64::consts::SQRT_2 * ZOOM * SCALE
}

/// Gymnasium's polygon clip test (draw a polygon if any vertex lies within `MAX_SHAPE_DIM`
/// of the window), with a world-space pre-test so that the many polygons far off screen cost
/// a few comparisons rather than a transform.
struct Culler {
    /// World units to output pixels.
    ts: Transform,
    /// The clip box, output pixels: `[x0, x1]`, `[y0, y1]`.
    bx: [f64; 2],
    by: [f64; 2],
    /// A world-space box (world units) holding every point that `ts` maps into the clip box.
    wx: [f64; 2],
    wy: [f64; 2],
}

impl Culler {
    fn new(ts: Transform, bx: [f64; 2], by: [f64; 2]) -> Self {
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
    fn project<const N: usize>(&self, poly: &[[f64; 2]; N], out: &mut [[f32; 2]; N]) -> bool {
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

/// An edge left out of a drawn quad: `(from, to, weight)`, output pixels.
type WaitingEdge = ([f32; 2], [f32; 2], [f32; 4]);

/// Deposits the edge that consecutive road quads share once instead of twice.
///
/// Tile `i` is `[l(i), r(i), r(i-1), l(i-1)]` (Gymnasium's `road1_l, road1_r, road2_r,
/// road2_l`): its edge 2 is tile `i - 1`'s edge 0 reversed, vertex for vertex (the same
/// floats, so the same pixels); kerbs chain the same way. Each quad's edge 0 waits here; when a
/// later quad's edge 2 is exactly its reverse, the pair is deposited as one edge weighted by
/// the difference of the two colours (the coverage parts cancel). Edges never matched are
/// deposited on their own. The sum per pixel is the same up to float rounding.
#[derive(Default)]
struct SharedEdges {
    /// Waiting edges: a tile's and a kerb's can wait at the same time.
    waiting: [Option<WaitingEdge>; 2],
    /// Which slot to give up next when both are taken.
    next_out: usize,
}

impl SharedEdges {
    fn push(&mut self, canvas: &mut Canvas, px: &[[f32; 2]; 4], color: [f32; 3]) {
        let slot = self
            .waiting
            .iter()
            .position(|w| w.is_some_and(|(from, to, _)| from == px[3] && to == px[2]));
        let skip = if slot.is_some() { 0b101 } else { 0b001 };
        let Some(wgt) = canvas.push_pixel_polygon_except(px, color, skip) else {
            return; // Nothing drawn: nothing of it may be merged either.
        };
        if let Some(k) = slot {
            if let Some((from, to, w)) = self.waiting[k].take() {
                let diff = [w[0] - wgt[0], w[1] - wgt[1], w[2] - wgt[2], w[3] - wgt[3]];
                canvas.push_pixel_edge(from, to, diff);
            }
        }
        let k = match self.waiting.iter().position(Option::is_none) {
            Some(k) => k,
            None => {
                let k = self.next_out;
                self.next_out = (k + 1) % self.waiting.len();
                if let Some((from, to, w)) = self.waiting[k].take() {
                    canvas.push_pixel_edge(from, to, w);
                }
                k
            }
        };
        self.waiting[k] = Some((px[0], px[1], wgt));
    }

    /// Deposits every edge still waiting (before the layer is composited).
    fn flush(&mut self, canvas: &mut Canvas) {
        for (from, to, w) in self.waiting.iter_mut().filter_map(Option::take) {
            canvas.push_pixel_edge(from, to, w);
        }
    }
}

/// pygame's `draw.polygon` of an axis-aligned quad with corners `(xa, ya)`, `(xb, yb)`
/// (window pixels): it truncates vertices and fills inclusively, so it covers the whole
/// pixels `[trunc(min), trunc(max) + 1)`. Returns that rectangle scaled by `(sx, sy)` to
/// output pixels, `[x0, y0, x1, y1]`.
fn window_rect(xa: f64, ya: f64, xb: f64, yb: f64, sx: f64, sy: f64) -> [f64; 4] {
    let x0 = xa.min(xb).trunc();
    let x1 = (xa.max(xb).trunc() + 1.0).min(WINDOW_W);
    let y0 = ya.min(yb).trunc();
    let y1 = (ya.max(yb).trunc() + 1.0).min(WINDOW_H);
    [x0 * sx, y0 * sy, x1 * sx, y1 * sy]
}

/// The black background of the indicator bar across the bottom, output pixels.
fn indicator_background(sx: f64, sy: f64) -> [f64; 4] {
    window_rect(
        0.0,
        WINDOW_H - 5.0 * WINDOW_H / 40.0,
        WINDOW_W,
        WINDOW_H,
        sx,
        sy,
    )
}

/// A fixed-capacity string buffer, so formatting the score allocates nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct ScoreText {
    buf: [u8; 32],
    len: usize,
}

impl std::fmt::Write for ScoreText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl ScoreText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    /// The score as Gymnasium's `format` prints `reward`.
    fn format(reward: f64, format: ScoreFormat) -> Self {
        use std::fmt::Write;
        let mut out = ScoreText::default();
        match format {
            // Python's `%i` takes `int(reward)`: truncation toward zero.
            ScoreFormat::Truncate => {
                let _ = write!(out, "{:04}", reward.trunc() as i64);
            }
            // Both round half to even on the exact binary value, and both keep the sign of
            // a negative value rounded to zero (`-000`).
            ScoreFormat::Round => {
                let _ = write!(out, "{reward:04.0}");
            }
            ScoreFormat::Repr => {
                // Rust's `{:?}` is the shortest round-trip repr, as Python's, with the same
                // switch to exponent notation (|x| < 1e-4 or >= 1e16); only the exponent is
                // written differently (`1e-5` there, `1e-05` in Python; `1e16`, `1e+16`).
                let mut raw = ScoreText::default();
                let _ = write!(raw, "{reward:?}");
                let s = raw.as_str();
                let (mantissa, exponent) = match s.split_once('e') {
                    Some((m, e)) => (m, Some(e)),
                    None => (s, None),
                };
                let (sign, digits) = match mantissa.strip_prefix('-') {
                    Some(rest) => ("-", rest),
                    None => ("", mantissa),
                };
                let mut body = ScoreText::default();
                let _ = body.write_str(digits);
                if let Some(e) = exponent {
                    let (esign, edigits) = match e.strip_prefix('-') {
                        Some(rest) => ('-', rest),
                        None => ('+', e),
                    };
                    let _ = write!(body, "e{esign}{edigits:0>2}");
                }
                // `04`: zeros between the sign and the digits up to four characters.
                let _ = out.write_str(sign);
                for _ in (sign.len() + body.len)..4 {
                    let _ = out.write_char('0');
                }
                let _ = out.write_str(body.as_str());
            }
        }
        out
    }
}

/// Most canvas sizes a thread keeps (state frames, video frames, a human window, ...).
const CANVASES_PER_THREAD: usize = 4;
/// Largest canvas (pixels) kept per thread. Bigger ones (video frames: ~20 MB of accumulators
/// at 600×400, the human window: ~65 MB) belong to the env's renderer instead, so their memory
/// goes when the env does.
const THREAD_CANVAS_MAX_PIXELS: usize = 256 * 256;

thread_local! {
    /// This thread's scratch canvases, one per output size, each with a flag set while a
    /// frame is being drawn on it. Every env drawn on the thread shares them: a canvas is
    /// ~0.7 MB of accumulators at 96×96, so per-env canvases put a 1,024-env pool's working
    /// set far outside the caches (and in memory), while per-thread ones stay hot.
    static CANVASES: std::cell::RefCell<Vec<(Canvas, bool)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's `width`×`height` canvas.
fn with_thread_canvas<R>(width: usize, height: usize, f: impl FnOnce(&mut Canvas) -> R) -> R {
    CANVASES.with(|cell| {
        let Ok(mut list) = cell.try_borrow_mut() else {
            // Re-entered (not done by the renderer): draw on a canvas of its own.
            return f(&mut Canvas::new(width, height));
        };
        let i = match list
            .iter()
            .position(|(c, _)| (c.width(), c.height()) == (width, height))
        {
            Some(i) => i,
            None => {
                if list.len() == CANVASES_PER_THREAD {
                    list.remove(0);
                }
                list.push((Canvas::new(width, height), false));
                list.len() - 1
            }
        };
        let (canvas, drawing) = &mut list[i];
        if *drawing {
            // A panic interrupted the last frame drawn on it: start from a clean canvas.
            *canvas = Canvas::new(width, height);
        }
        *drawing = true;
        let out = f(canvas);
        *drawing = false;
        out
    })
}

/// Draws CarRacing scenes. Per env it keeps only the score text (re-rasterized only when the
/// score changes); the canvas it draws on belongs to the thread (see [`CANVASES`]).
#[derive(Debug, Clone, Default)]
pub struct Renderer {
    /// The canvas for sizes above [`THREAD_CANVAS_MAX_PIXELS`].
    large: Option<Canvas>,
    /// Score string and output size of the cached text patch; the glyph bitmap (window
    /// pixels, grey levels) and its area-averaged patch on the output grid.
    text_key: Option<(ScoreText, ScoreStyle, usize, usize)>,
    text: Vec<u8>,
    text_patch: GrayPatch,
    /// Scratch points (window pixels) for skid-mark strokes.
    pts: Vec<[f64; 2]>,
}

impl Renderer {
    /// A renderer with empty buffers; they grow on the first frame.
    pub fn new() -> Self {
        Self::default()
    }

    /// Draws `view` into `out` (`height` rows of `width` RGB pixels, row-major), as
    /// Gymnasium's `_render` shows it after `smoothscale` from its 1000×800 window to
    /// `width`×`height`. `with_skid_marks` is false for the 96×96 state frame, as in Gymnasium.
    pub fn draw_into(
        &mut self,
        view: &SceneView<'_>,
        out: &mut [u8],
        width: usize,
        height: usize,
        with_skid_marks: bool,
    ) {
        assert_eq!(
            out.len(),
            width * height * 3,
            "out must hold width*height RGB pixels"
        );
        if width * height <= THREAD_CANVAS_MAX_PIXELS {
            with_thread_canvas(width, height, |canvas| {
                self.draw_on(canvas, view, out, width, height, with_skid_marks)
            });
            return;
        }
        // A frame interrupted by a panic may have left this canvas mid-frame: start clean.
        let mut canvas = self.large.take().unwrap_or_default();
        self.draw_on(&mut canvas, view, out, width, height, with_skid_marks);
        self.large = Some(canvas);
    }

    fn draw_on(
        &mut self,
        canvas: &mut Canvas,
        view: &SceneView<'_>,
        out: &mut [u8],
        width: usize,
        height: usize,
        with_skid_marks: bool,
    ) {
        canvas.resize(width, height);
        let (sx, sy) = (width as f64 / WINDOW_W, height as f64 / WINDOW_H);
        // The indicator bar, drawn last, hides the rows beneath it: skip drawing them.
        let [x0, y0, x1, y1] = indicator_background(sx, sy);
        canvas.set_clip_rows(canvas.opaque_rows_from(x0, y0, x1, y1));

        // Camera (Gymnasium's `_render`): rotate by -hull angle, zoom in over the first second,
        // keep the car at (W/2, H/4) of the (not yet flipped) window.
        let angle = -(view.hull_angle as f64);
        let zoom = 0.1 * SCALE * (1.0 - view.t).max(0.0) + ZOOM * SCALE * view.t.min(1.0);
        let [hx, hy] = [view.hull_position[0] as f64, view.hull_position[1] as f64];
        let scroll = Transform::from_rotate(angle).apply([-hx * zoom, -hy * zoom]);
        let world_to_window = Transform::from_rotate(angle)
            .then(&Transform::from_scale(zoom, zoom))
            .then(&Transform::from_translate(
                WINDOW_W / 2.0 + scroll[0],
                WINDOW_H / 4.0 + scroll[1],
            ));
        // pygame truncates vertices and fills pixels inclusively, which on average is the
        // continuous polygon itself with pixel (i, j) spanning [i, i+1): no half-pixel shift.
        let window_to_out = Transform::flip_y(WINDOW_H).then(&Transform::from_scale(sx, sy));
        let ts = world_to_window.then(&window_to_out);

        // Gymnasium's clip test: draw a polygon if any vertex lies within MAX_SHAPE_DIM of the
        // window. Checked in output pixels (the flip keeps the box symmetric).
        let m = max_shape_dim();
        let cull = Culler::new(
            ts,
            [-m * sx, (WINDOW_W + m) * sx],
            [-m * sy, (WINDOW_H + m) * sy],
        );
        let mut px = [[0.0f32; 2]; 4];
        // Float colours reach SDL as truncated integers.
        let trunc = |c: [f64; 3]| {
            [
                c[0].trunc() as f32,
                c[1].trunc() as f32,
                c[2].trunc() as f32,
            ]
        };

        // Background field (never clipped), then the grass squares as one layer.
        let b = PLAYFIELD;
        let field = [[b, b], [b, -b], [-b, -b], [-b, b]];
        if canvas.covers_canvas(&field, &ts) {
            canvas.clear(trunc(view.bg_color));
        } else {
            // The window starts black; only needed where the field does not fill the frame.
            canvas.clear([0.0; 3]);
            canvas.push_polygon(&field, &ts, trunc(view.bg_color));
            canvas.composite_layer();
        }
        let grass = trunc(view.grass_color);
        // Whole grid columns and rows of squares with no vertex near the view are skipped
        // before looking at single squares.
        let near = |v: f64, range: [f64; 2]| {
            (range[0]..=range[1]).contains(&v) || (range[0]..=range[1]).contains(&(v + GRASS_DIM))
        };
        for gx in (-20..20).step_by(2) {
            let x = GRASS_DIM * gx as f64;
            if !near(x, cull.wx) {
                continue;
            }
            for gy in (-20..20).step_by(2) {
                let y = GRASS_DIM * gy as f64;
                if !near(y, cull.wy) {
                    continue;
                }
                let poly = [
                    [x + GRASS_DIM, y],
                    [x, y],
                    [x, y + GRASS_DIM],
                    [x + GRASS_DIM, y + GRASS_DIM],
                ];
                if cull.project(&poly, &mut px) {
                    canvas.push_pixel_polygon(&px, grass);
                }
            }
        }
        canvas.composite_layer();

        // Road tiles and kerbs abut: one layer, so shared edges never show the grass.
        let mut shared = SharedEdges::default();
        let chunk_bounds = (view.road_bounds.len() == view.road.len().div_ceil(ROAD_CHUNK))
            .then_some(view.road_bounds);
        for (k, chunk) in view.road.chunks(ROAD_CHUNK).enumerate() {
            // A box that misses the culler's world box holds no vertex the culler would keep.
            if let Some(b) = chunk_bounds.map(|bounds| bounds[k]) {
                if b[1] < cull.wx[0] || b[0] > cull.wx[1] || b[3] < cull.wy[0] || b[2] > cull.wy[1]
                {
                    continue;
                }
            }
            for rp in chunk {
                if cull.project(&rp.vertices, &mut px) {
                    let c = rp.color;
                    shared.push(canvas, &px, [c[0] as f32, c[1] as f32, c[2] as f32]);
                }
            }
        }
        shared.flush(canvas);
        canvas.composite_layer();

        if with_skid_marks {
            // pygame.draw.lines(width=2): a 2-window-pixel stroke per particle.
            for mark in view.skid_marks {
                self.pts.clear();
                self.pts
                    .extend(mark.points.iter().map(|&p| world_to_window.apply(p)));
                let c = mark.color;
                canvas.stroke_polyline(
                    &self.pts,
                    2.0,
                    &window_to_out,
                    [c[0] as f32, c[1] as f32, c[2] as f32],
                );
            }
        }

        draw_car(canvas, view.car, &ts);
        canvas.set_clip_rows(height);
        draw_indicators(canvas, &view.indicators, sx, sy);

        // Score: e.g. f"{reward:04.0f}" centred at (60, H - H·2.5/40), white on black.
        let key = ScoreText::format(view.reward, view.score.format);
        let cache_key = (key, view.score, width, height);
        if self.text_key != Some(cache_key) {
            let (tw, th) = view
                .score
                .font
                .face()
                .render_text(key.as_str(), &mut self.text);
            // pygame's Rect.center setter: left = cx - w // 2, top = cy - h // 2 (integers).
            let left = 60 - (tw / 2) as i64;
            let top = (WINDOW_H - WINDOW_H * 2.5 / 40.0) as i64 - (th / 2) as i64;
            self.text_patch.rasterize(
                &self.text,
                tw,
                th,
                left as f64 * sx,
                top as f64 * sy,
                sx,
                sy,
                width,
                height,
            );
            self.text_key = Some(cache_key);
        }
        canvas.draw_gray_patch(&self.text_patch);

        canvas.write_rgb8(
            out,
            Quantizer::pygame_smoothscale(WINDOW_W as usize, WINDOW_H as usize, width, height),
        );
    }
}

/// Wheels (black, with the grey tread stripe Gymnasium derives from the wheel phase), then
/// the red hull on top.
fn draw_car(canvas: &mut Canvas, car: &CarDrawing, ts: &Transform) {
    let mut poly = [[0.0f64; 2]; 8];
    for wheel in &car.wheels {
        for (d, s) in poly.iter_mut().zip(wheel) {
            *d = [s[0] as f64, s[1] as f64];
        }
        canvas.push_polygon(&poly[..4], ts, WHEEL_COLOR);
    }
    canvas.composite_layer();

    for (phase, pose) in car.wheel_phase.iter().zip(&car.wheel_pose) {
        let (a1, a2) = (*phase, *phase + 1.2);
        let (s1, s2) = (a1.sin(), a2.sin());
        let (mut c1, mut c2) = (a1.cos(), a2.cos());
        if s1 > 0.0 && s2 > 0.0 {
            continue;
        }
        if s1 > 0.0 {
            c1 = np_sign(c1);
        }
        if s2 > 0.0 {
            c2 = np_sign(c2);
        }
        let (w, r) = (WHEEL_W * SIZE, WHEEL_R * SIZE);
        let local = [[-w, r * c1], [w, r * c1], [w, r * c2], [-w, r * c2]];
        let body = Transform::from_rotate(pose.1 as f64).then(&Transform::from_translate(
            pose.0[0] as f64,
            pose.0[1] as f64,
        ));
        for (d, s) in poly.iter_mut().zip(local) {
            *d = body.apply(s);
        }
        canvas.push_polygon(&poly[..4], ts, WHEEL_WHITE);
    }
    canvas.composite_layer();

    // The hull fixtures overlap each other; same colour, so the layer's union is exact inside.
    for (fix, &n) in car.hull.iter().zip(&car.hull_counts) {
        let n = n.min(8);
        for (d, s) in poly.iter_mut().zip(fix) {
            *d = [s[0] as f64, s[1] as f64];
        }
        canvas.push_polygon(&poly[..n], ts, HULL_COLOR);
    }
    canvas.composite_layer();
}

/// The bottom bar (Gymnasium's `_render_indicators`), in flipped window pixels. pygame's
/// `draw.polygon` truncates vertices and fills inclusively, so an axis-aligned quad covers the
/// whole pixels `[trunc(min), trunc(max) + 1)`; these are drawn exactly.
fn draw_indicators(canvas: &mut Canvas, ind: &Indicators, sx: f64, sy: f64) {
    let (w, h) = (WINDOW_W, WINDOW_H);
    let s = w / 40.0;
    let hh = h / 40.0;
    let [x0, y0, x1, y1] = indicator_background(sx, sy);
    canvas.fill_rect(x0, y0, x1, y1, [0.0; 3]);
    let mut rect = |xa: f64, ya: f64, xb: f64, yb: f64, color: [f32; 3]| {
        let [x0, y0, x1, y1] = window_rect(xa, ya, xb, yb, sx, sy);
        canvas.fill_rect(x0, y0, x1, y1, color);
    };
    let mut vertical = |place: f64, val: f64, value: f64, color: [f32; 3]| {
        if value.abs() > 1e-4 {
            rect(
                place * s,
                h - (hh + hh * val),
                (place + 1.0) * s,
                h - hh,
                color,
            );
        }
    };
    vertical(
        5.0,
        0.02 * ind.true_speed,
        ind.true_speed,
        [255.0, 255.0, 255.0],
    );
    let om = ind.wheel_omega;
    vertical(7.0, 0.01 * om[0], om[0], [0.0, 0.0, 255.0]);
    vertical(8.0, 0.01 * om[1], om[1], [0.0, 0.0, 255.0]);
    vertical(9.0, 0.01 * om[2], om[2], [51.0, 0.0, 255.0]);
    vertical(10.0, 0.01 * om[3], om[3], [51.0, 0.0, 255.0]);
    let mut horizontal = |place: f64, val: f64, value: f64, color: [f32; 3]| {
        if value.abs() > 1e-4 {
            rect(
                place * s,
                h - 4.0 * hh,
                (place + val) * s,
                h - 2.0 * hh,
                color,
            );
        }
    };
    horizontal(
        20.0,
        -10.0 * ind.steer_angle,
        ind.steer_angle,
        [0.0, 255.0, 0.0],
    );
    horizontal(
        30.0,
        -0.8 * ind.hull_angular_velocity,
        ind.hull_angular_velocity,
        [255.0, 0.0, 0.0],
    );
}

/// Draws `view` into `out` (`height` rows of `width` RGB pixels, row-major), as Gymnasium's
/// `_render` would show it after scaling its 1000×800 window surface to `width`×`height`.
/// `with_skid_marks` is false for the 96×96 state frame, as in Gymnasium.
///
/// Allocates scratch buffers per call; use [`Renderer::draw_into`] for repeated frames.
pub fn draw(
    view: &SceneView<'_>,
    out: &mut [u8],
    width: usize,
    height: usize,
    with_skid_marks: bool,
) {
    Renderer::new().draw_into(view, out, width, height, with_skid_marks);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(reward: f64, format: ScoreFormat) -> String {
        ScoreText::format(reward, format).as_str().to_owned()
    }

    #[test]
    fn truncate_is_percent_04i() {
        // Python: "%04i" % x
        let cases = [
            (0.0, "0000"),
            (-0.1, "0000"),
            (-0.9, "0000"),
            (-1.5, "-001"),
            (23.59, "0023"),
            (999.99, "0999"),
            (-100.0, "-100"),
            (-1234.5, "-1234"),
            (12345.6, "12345"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Truncate), want, "{x}");
        }
    }

    #[test]
    fn round_is_04_0f() {
        // Python: f"{x:04.0f}"
        let cases = [
            (0.0, "0000"),
            (-0.0, "-000"),
            (-0.1, "-000"),
            (0.5, "0000"),
            (1.5, "0002"),
            (2.5, "0002"),
            (23.59, "0024"),
            (-100.0, "-100"),
            (999.5, "1000"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Round), want, "{x}");
        }
    }

    #[test]
    fn repr_is_04() {
        // Python: f"{x:04}" (repr, zero-padded to four characters)
        let cases = [
            (0.0, "00.0"),
            (-0.0, "-0.0"),
            (-0.1, "-0.1"),
            (5.0, "05.0"),
            (-0.30000000000000004, "-0.30000000000000004"),
            (23.590909090909093, "23.590909090909093"),
            (1e-5, "1e-05"),
            (-1.5e-7, "-1.5e-07"),
            (5.551115123125783e-17, "5.551115123125783e-17"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Repr), want, "{x}");
        }
    }
}
