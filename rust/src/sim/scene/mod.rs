//! What one CarRacing frame shows, as plain data, and the function that draws it.
//!
//! The environment fills a [`SceneView`] from its state; the renderer never reaches into the
//! simulation. Coordinates are world units (Gymnasium's), colours are 0–255 RGB.
//!
//! One concern per file: `renderer` (a frame, layer by layer, on the thread's canvas),
//! `culling` (Gymnasium's clip test), `shared_edges` (the road's shared edges, deposited
//! once), `parts` (the car and the indicator bar), `score` (the score's text).

use crate::render::font;

mod culling;
mod parts;
mod renderer;
mod score;
mod shared_edges;

pub use renderer::Renderer;

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
    pub(super) fn face(self) -> &'static font::Face {
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

/// Gymnasium's window surface, pixels: every coordinate below is in this space before the
/// final scaling to the requested output size.
pub(super) const WINDOW_W: f64 = 1000.0;
pub(super) const WINDOW_H: f64 = 800.0;
pub(super) const SCALE: f64 = 6.0;
pub(super) const ZOOM: f64 = 2.7;
pub(super) const PLAYFIELD: f64 = 2000.0 / SCALE;
pub(super) const GRASS_DIM: f64 = PLAYFIELD / 20.0;
pub(super) const TRACK_WIDTH: f64 = 40.0 / SCALE;
pub(super) const TRACK_DETAIL_STEP: f64 = 21.0 / SCALE;
/// Car geometry (car_dynamics.py): wheel half-extents and the model scale.
pub(super) const SIZE: f64 = 0.02;
pub(super) const WHEEL_R: f64 = 27.0;
pub(super) const WHEEL_W: f64 = 14.0;
pub(super) const HULL_COLOR: [f32; 3] = [204.0, 0.0, 0.0];
pub(super) const WHEEL_COLOR: [f32; 3] = [0.0, 0.0, 0.0];
pub(super) const WHEEL_WHITE: [f32; 3] = [77.0, 77.0, 77.0];

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
