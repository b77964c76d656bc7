//! The [`Renderer`]: draws one frame of a [`SceneView`] layer by layer on a canvas that
//! belongs to the thread (or, for large frames, to the env), and caches the score's patch.

use super::culling::{max_shape_dim, Culler};
use super::parts::{draw_car, draw_indicators, indicator_background};
use super::score::ScoreText;
use super::shared_edges::SharedEdges;
use super::{
    SceneView, ScoreStyle, GRASS_DIM, PLAYFIELD, ROAD_CHUNK, SCALE, WINDOW_H, WINDOW_W, ZOOM,
};
use crate::render::{Canvas, GrayPatch, Quantizer, Transform};

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
/// score changes); the canvas it draws on belongs to the thread (see `CANVASES`).
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
