//! The CarRacing state machine: Gymnasium's `CarRacing.reset` and `CarRacing.step` rules.
//!
//! Seeding is the caller's business: it hands in the generator (a fresh one for a seeded
//! reset, the same one to continue the stream), exactly as Gymnasium's `np_random` works.

use crate::sim::car::{Car, CarState};
use crate::sim::contact::{ContactEvent, ContactSet, Fixture, TileGrid, FIXTURES};
use crate::sim::progress::tiles_skipped_before;
use crate::sim::rng::NumpyGenerator;
use crate::sim::scene::{
    road_chunk_bounds, FontFlavor, Indicators, Renderer, RoadPoly, SceneView, ScoreFormat,
    ScoreStyle,
};
use crate::sim::track::{self, Track, PLAYFIELD};
use crate::support::error::{Error, Result};

/// Simulation rate. Steps per second.
pub const FPS: f64 = 50.0;
/// Observation frame size. Pixels.
pub const STATE_W: usize = 96;
pub const STATE_H: usize = 96;
/// `render_mode="rgb_array"` frame size. Pixels.
pub const VIDEO_W: usize = 600;
pub const VIDEO_H: usize = 400;
/// `render_mode="human"` window size. Pixels.
pub const WINDOW_W: usize = 1000;
pub const WINDOW_H: usize = 800;
/// Bytes in one observation frame.
pub const OBS_BYTES: usize = STATE_W * STATE_H * 3;

/// Per-step reward for every newly visited tile is `TILE_REWARD_TOTAL / tiles`.
pub const TILE_REWARD_TOTAL: f64 = 1000.0;
/// Reward added every step (time penalty).
pub const STEP_REWARD: f64 = -0.1;
/// Step reward when the car leaves the playfield (replaces the step's reward).
pub const OFF_PLAYFIELD_REWARD: f64 = -100.0;

/// Constructor options: Gymnasium's keyword arguments, the Gymnasium release to reproduce
/// where releases differ, and the lap-completion rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub continuous: bool,
    pub domain_randomize: bool,
    /// Fraction of tiles that must be visited, when a wheel touches the start tile, for the
    /// lap to count. When that touch is checked is `lap_rule`'s business.
    pub lap_complete_percent: f64,
    /// Whose `CarRacing-v3` to draw where Gymnasium releases differ (the score's text).
    pub release: GymnasiumRelease,
    /// When `lap_complete_percent` is checked.
    pub lap_rule: LapRule,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            continuous: true,
            domain_randomize: false,
            lap_complete_percent: 0.95,
            release: GymnasiumRelease::default(),
            lap_rule: LapRule::default(),
        }
    }
}

/// The Gymnasium release line whose `CarRacing-v3` is reproduced. Tracks, physics, rewards and
/// endings are the same in every release from 1.0 to 1.4.0; only the score drawn on the frame
/// differs (its format, and the pygame that rasterises it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GymnasiumRelease {
    /// 1.0 to 1.2.x: `"%04i" % reward`, drawn by pygame.
    V1_2,
    /// 1.3.0: `f"{reward:04}"` (the full float), drawn by pygame-ce.
    V1_3,
    /// 1.4.0: `f"{reward:04.0f}"`, drawn by pygame-ce.
    #[default]
    V1_4,
}

impl GymnasiumRelease {
    /// From the name the binding passes: `"1.2"`, `"1.3"` or `"1.4"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "1.2" => Ok(Self::V1_2),
            "1.3" => Ok(Self::V1_3),
            "1.4" => Ok(Self::V1_4),
            _ => Err(Error::InvalidArgument(format!(
                "gymnasium release must be \"1.2\", \"1.3\" or \"1.4\", got {name:?}"
            ))),
        }
    }

    /// How this release draws the score.
    pub fn score_style(self) -> ScoreStyle {
        let (format, font) = match self {
            Self::V1_2 => (ScoreFormat::Truncate, FontFlavor::Pygame),
            Self::V1_3 => (ScoreFormat::Repr, FontFlavor::PygameCe),
            Self::V1_4 => (ScoreFormat::Round, FontFlavor::PygameCe),
        };
        ScoreStyle { format, font }
    }
}

/// When a lap counts as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LapRule {
    /// Every Gymnasium release to 1.4.0: `lap_complete_percent` is checked only on the first
    /// touch of the start tile, which happens during reset (Gymnasium issue #1269), so with
    /// the default 0.95 only visiting every tile ends the lap.
    #[default]
    FirstVisit,
    /// Gymnasium PR #1670 (open): checked on every wheel contact with the start tile, so
    /// crossing the line with more than `lap_complete_percent` of the tiles visited ends it.
    EveryContact,
}

impl LapRule {
    /// From the name the binding passes: `"first_visit"` or `"every_contact"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "first_visit" => Ok(Self::FirstVisit),
            "every_contact" => Ok(Self::EveryContact),
            _ => Err(Error::InvalidArgument(format!(
                "lap_complete_rule must be \"first_visit\" or \"every_contact\", got {name:?}"
            ))),
        }
    }
}

/// Colours of the world, 0–255 per channel (floats, as Gymnasium keeps them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Palette {
    pub road: [f64; 3],
    pub bg: [f64; 3],
    pub grass: [f64; 3],
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            road: [102.0, 102.0, 102.0],
            bg: [102.0, 204.0, 102.0],
            grass: [102.0, 230.0, 102.0],
        }
    }
}

impl Palette {
    /// Gymnasium's domain-randomised colours: road, background, and the background with one
    /// channel brightened by 20 for the grass squares. Draws 3 + 3 uniforms and one integer.
    pub fn randomized(rng: &mut NumpyGenerator) -> Self {
        let mut draw3 = || [0; 3].map(|_| rng.uniform(0.0, 210.0));
        let road = draw3();
        let bg = draw3();
        let mut grass = bg;
        grass[rng.integers(0, 3) as usize] += 20.0;
        Palette { road, bg, grass }
    }
}

/// One action, already checked for shape by the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// `[steer, gas, brake]`, as float64. Finite values outside the box are passed on as
    /// Gymnasium does (gas is clipped by the car; steer and brake are not).
    Continuous([f64; 3]),
    /// 0 nothing, 1 steer right, 2 steer left, 3 gas, 4 brake.
    Discrete(i64),
}

/// What one step produced besides the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepOutcome {
    pub reward: f64,
    pub terminated: bool,
    /// `info["lap_finished"]`: `Some(true)` lap done, `Some(false)` left the playfield.
    pub lap_finished: Option<bool>,
    /// Tiles visited for the first time during this step (the reward's tile events).
    pub new_tiles: u32,
    /// The car left the playfield this step (the reward's off-playfield event).
    pub off_playfield: bool,
    /// Wheels touching no road tile after this step (the reward's off-road event).
    pub wheels_off_road: u32,
    /// Tiles passed without a touch, counted when a wheel lands on a tile further on
    /// ([`tiles_skipped_before`]; the reward's skipped-tile event).
    pub skipped_tiles: u32,
}

/// Per-episode state: the track, its tiles and the car on it.
#[derive(Debug, Clone)]
struct Episode {
    track: Track,
    grid: TileGrid,
    /// Tiles and kerbs in Gymnasium's draw order, with their current colours.
    road: Vec<RoadPoly>,
    /// [`road_chunk_bounds`] of `road`, for culling whole stretches at once.
    road_bounds: Vec<[f64; 4]>,
    /// Index into `road` of each tile (kerbs sit between tiles).
    tile_road_index: Vec<usize>,
    tile_visited: Vec<bool>,
    /// Scratch for the tiles first visited during a step (kept to reuse its allocation).
    first_visits: Vec<usize>,
    car: Car,
    contacts: ContactSet,
}

/// One CarRacing environment.
#[derive(Debug, Clone)]
pub struct CarRacing {
    config: Config,
    rng: NumpyGenerator,
    palette: Palette,
    episode: Option<Episode>,
    /// Accumulated episode reward, including the time penalty (Gymnasium's `self.reward`).
    reward: f64,
    prev_reward: f64,
    tile_visited_count: usize,
    /// Episode time. Seconds.
    t: f64,
    new_lap: bool,
    /// The track attempts of the last reset (failed ones, then the one that succeeded).
    track_attempts: Vec<track::Attempt>,
    /// Scratch buffers and caches for drawing (no allocation per frame).
    renderer: Renderer,
}

/// `int(c)` of a float colour channel, as pygame receives it.
fn to_u8(c: f64) -> u8 {
    c.clamp(0.0, 255.0) as u8
}

/// What the contact callbacks of a step read (`tracked`) and update (`on_event`).
struct ContactBook<'a> {
    road: &'a mut [RoadPoly],
    tile_road_index: &'a [usize],
    tile_visited: &'a mut [bool],
    reward: &'a mut f64,
    visited_count: &'a mut usize,
    new_lap: &'a mut bool,
    /// The tiles first visited in this step, in contact order (cleared by each step).
    first_visits: &'a mut Vec<usize>,
}

/// What the contact listener needs to know to score a contact.
struct LapCheck {
    tiles: usize,
    percent: f64,
    every_contact: bool,
    /// The plain road colour touched tiles are repainted in.
    road_color: [u8; 3],
}

impl ContactBook<'_> {
    /// Whether `tile` is already in the plain road colour `road_color`.
    fn repainted(&self, tile: u32, road_color: [u8; 3]) -> bool {
        self.road[self.tile_road_index[tile as usize]].color == road_color
    }

    /// Gymnasium's `FrictionDetector._contact` for one begin or end of a contact.
    fn on_contact(&mut self, event: ContactEvent, lap: &LapCheck) {
        let (fixture, tile) = match event {
            ContactEvent::Begin { fixture, tile } => (fixture, tile as usize),
            ContactEvent::End { tile, .. } => (usize::MAX, tile as usize),
        };
        // Any touch, begin or end, by wheel or hull, repaints the tile in the plain road
        // colour: Gymnasium's contact listener does this before anything else.
        self.road[self.tile_road_index[tile]].color = lap.road_color;
        let is_wheel_begin = fixture < 4;
        let first_visit = is_wheel_begin && !self.tile_visited[tile];
        if first_visit {
            self.tile_visited[tile] = true;
            self.first_visits.push(tile);
            *self.reward += TILE_REWARD_TOTAL / lap.tiles as f64;
            *self.visited_count += 1;
        }
        // Gymnasium checks the lap inside the first-visit branch; PR #1670 on every wheel
        // contact with the start tile.
        let checked = if lap.every_contact {
            is_wheel_begin
        } else {
            first_visit
        };
        if checked && tile == 0 && *self.visited_count as f64 / lap.tiles as f64 > lap.percent {
            *self.new_lap = true;
        }
    }
}

impl CarRacing {
    /// A new environment drawing from `rng` (Gymnasium draws domain-randomised colours at
    /// construction too, from its not-yet-seeded generator).
    pub fn new(config: Config, mut rng: NumpyGenerator) -> Result<Self> {
        if !config.lap_complete_percent.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "lap_complete_percent must be a finite number, got {}",
                config.lap_complete_percent
            )));
        }
        let palette = if config.domain_randomize {
            Palette::randomized(&mut rng)
        } else {
            Palette::default()
        };
        Ok(CarRacing {
            config,
            rng,
            palette,
            episode: None,
            reward: 0.0,
            prev_reward: 0.0,
            tile_visited_count: 0,
            t: 0.0,
            new_lap: false,
            track_attempts: Vec::new(),
            renderer: Renderer::new(),
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Changes the two settings Gymnasium reads from its attributes at every `reset`
    /// (`lap_complete_percent`, `domain_randomize`); call it just before [`Self::reset`], which
    /// is where they take effect there. `continuous` cannot change: the action space depends
    /// on it.
    pub fn set_reset_options(
        &mut self,
        lap_complete_percent: f64,
        domain_randomize: bool,
    ) -> Result<()> {
        if !lap_complete_percent.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "lap_complete_percent must be a finite number, got {lap_complete_percent}"
            )));
        }
        self.config.lap_complete_percent = lap_complete_percent;
        self.config.domain_randomize = domain_randomize;
        Ok(())
    }

    /// The generator the next unseeded reset continues from.
    pub fn rng(&self) -> &NumpyGenerator {
        &self.rng
    }

    /// Replaces the generator (a seeded reset, or the caller's own `np_random`).
    pub fn set_rng(&mut self, rng: NumpyGenerator) {
        self.rng = rng;
    }

    /// Gymnasium's `reset`, after seeding: new colours (when domain-randomised and `randomize`
    /// is not `Some(false)`), a new track, a new car, and one action-less step.
    pub fn reset(&mut self, randomize: Option<bool>) {
        if self.config.domain_randomize && randomize.unwrap_or(true) {
            self.palette = Palette::randomized(&mut self.rng);
        }
        let (track, attempts) = track::generate(&mut self.rng);
        self.track_attempts = attempts;
        let [_, beta, x, y] = track.points[0];
        let car = Car::new(beta, x, y);
        let road_color = self.palette.road;
        let mut road = Vec::with_capacity(track.tiles.len() + track.kerbs.len());
        let mut tile_road_index = Vec::with_capacity(track.tiles.len());
        let mut kerbs = track.kerbs.iter().peekable();
        for (i, quad) in track.tiles.iter().enumerate() {
            // Gymnasium shades tiles in threes: road colour + 0, 2.55, 5.1.
            let shade = 0.01 * (i % 3) as f64 * 255.0;
            tile_road_index.push(road.len());
            road.push(RoadPoly {
                vertices: *quad,
                color: road_color.map(|c| to_u8(c + shade)),
            });
            while let Some((_, kerb)) = kerbs.next_if(|(k, _)| *k == i) {
                let color = if i % 2 == 0 {
                    [255, 255, 255]
                } else {
                    [255, 0, 0]
                };
                road.push(RoadPoly {
                    vertices: *kerb,
                    color,
                });
            }
        }
        let grid = TileGrid::new(&track.tiles);
        let tiles = track.len();
        self.episode = Some(Episode {
            track,
            grid,
            road_bounds: road_chunk_bounds(&road),
            road,
            tile_road_index,
            tile_visited: vec![false; tiles],
            first_visits: Vec::new(),
            car,
            contacts: ContactSet::default(),
        });
        self.reward = 0.0;
        self.prev_reward = 0.0;
        self.tile_visited_count = 0;
        self.t = 0.0;
        self.new_lap = false;
        self.advance(None);
    }

    /// Gymnasium's `step(action)`. The observation is drawn separately with [`Self::render_state`].
    pub fn step(&mut self, action: Action) -> Result<StepOutcome> {
        validate(&self.config, &action)?;
        if self.episode.is_none() {
            return Err(Error::InvalidState(
                "step() called before reset(): reset the environment first".into(),
            ));
        }
        Ok(self.advance(Some(action)))
    }

    /// One simulation step; `None` is reset's action-less step (no reward bookkeeping).
    fn advance(&mut self, action: Option<Action>) -> StepOutcome {
        let lap_complete_percent = self.config.lap_complete_percent;
        let every_contact = self.config.lap_rule == LapRule::EveryContact;
        let road_color = self.palette.road.map(to_u8);
        let ep = self
            .episode
            .as_mut()
            .expect("advance() runs only after reset()");
        if let Some(action) = action {
            apply_action(&mut ep.car, action);
        }
        let on_road = [0, 1, 2, 3].map(|w| !ep.contacts.tiles_of(w).is_empty());
        ep.car.step(1.0 / FPS, on_road);

        // world.Step: Box2D first updates sensor contacts on the current poses, then solves.
        let fixtures: [Fixture; FIXTURES] = ep
            .car
            .fixtures()
            .map(|(polygon, transform)| Fixture::new(polygon, transform));
        let tiles = ep.track.len();
        let mut book = ContactBook {
            road: &mut ep.road,
            tile_road_index: &ep.tile_road_index,
            tile_visited: &mut ep.tile_visited,
            reward: &mut self.reward,
            visited_count: &mut self.tile_visited_count,
            new_lap: &mut self.new_lap,
            first_visits: &mut ep.first_visits,
        };
        book.first_visits.clear();
        // A hull fixture's contact only repaints its tile, and a repaint of a tile already in
        // the plain road colour changes nothing, so such pairs need no exact test. Wheels are
        // always tracked: their contacts drive friction and the visited tiles.
        let tracked = |b: &ContactBook<'_>, fixture: usize, tile: u32| {
            fixture < 4 || !b.repainted(tile, road_color)
        };
        let lap = LapCheck {
            tiles,
            percent: lap_complete_percent,
            every_contact,
            road_color,
        };
        ep.contacts
            .update_tracking(&ep.grid, &fixtures, &mut book, tracked, |b, event| {
                b.on_contact(event, &lap)
            });
        let new_tiles = ep.first_visits.len() as u32;
        // Counted once every contact of the step is in: a wheel that lands on two new tiles in
        // one step skipped neither, whichever contact came first.
        let skipped_tiles = ep
            .first_visits
            .iter()
            .map(|&tile| tiles_skipped_before(&ep.tile_visited, tile))
            .sum();
        let wheels_off_road = (0..4)
            .filter(|&w| ep.contacts.tiles_of(w).is_empty())
            .count() as u32;
        ep.car.solve((1.0 / FPS) as f32);
        self.t += 1.0 / FPS;

        let mut outcome = StepOutcome {
            reward: 0.0,
            terminated: false,
            lap_finished: None,
            new_tiles,
            off_playfield: false,
            wheels_off_road,
            skipped_tiles,
        };
        if action.is_some() {
            self.reward += STEP_REWARD;
            outcome.reward = self.reward - self.prev_reward;
            self.prev_reward = self.reward;
            if self.tile_visited_count == tiles || self.new_lap {
                outcome.terminated = true;
                outcome.lap_finished = Some(true);
            }
            let [x, y] = ep.car.state().hull_position;
            if (x as f64).abs() > PLAYFIELD || (y as f64).abs() > PLAYFIELD {
                outcome.terminated = true;
                outcome.lap_finished = Some(false);
                outcome.reward = OFF_PLAYFIELD_REWARD;
                outcome.off_playfield = true;
            }
        }
        outcome
    }

    /// Draws the 96×96 observation into `out` (`OBS_BYTES` bytes, HWC RGB).
    pub fn render_state(&mut self, out: &mut [u8]) -> Result<()> {
        self.render(out, STATE_W, STATE_H, false)
    }

    /// Draws the scene at any size; `with_skid_marks` as in Gymnasium's non-state modes.
    pub fn render(
        &mut self,
        out: &mut [u8],
        width: usize,
        height: usize,
        skid: bool,
    ) -> Result<()> {
        let ep = self.episode.as_ref().ok_or_else(|| {
            Error::InvalidState("render() called before reset(): nothing to draw yet".into())
        })?;
        if out.len() != width * height * 3 || width == 0 || height == 0 {
            return Err(Error::InvalidArgument(format!(
                "frame buffer holds {} bytes, expected {width}x{height}x3",
                out.len()
            )));
        }
        let state = ep.car.state();
        let drawing = ep.car.drawing();
        let [vx, vy] = state.hull_linear_velocity.map(f64::from);
        let view = SceneView {
            hull_position: state.hull_position,
            hull_angle: state.hull_angle,
            t: self.t,
            bg_color: self.palette.bg,
            grass_color: self.palette.grass,
            road: &ep.road,
            road_bounds: &ep.road_bounds,
            car: &drawing,
            skid_marks: ep.car.skid_marks(),
            indicators: Indicators {
                true_speed: (vx * vx + vy * vy).sqrt(),
                wheel_omega: state.wheel_omega,
                steer_angle: state.joint_angle[0] as f64,
                hull_angular_velocity: state.hull_angular_velocity as f64,
            },
            reward: self.reward,
            score: self.config.release.score_style(),
        };
        self.renderer.draw_into(&view, out, width, height, skid);
        Ok(())
    }

    /// Gymnasium's `track`: `(alpha, beta, x, y)` per tile. Empty before the first reset.
    pub fn track(&self) -> &[[f64; 4]] {
        self.episode.as_ref().map_or(&[], |e| &e.track.points)
    }

    /// Road and kerb polygons with their current colours, in draw order.
    pub fn road(&self) -> &[RoadPoly] {
        self.episode.as_ref().map_or(&[], |e| &e.road)
    }

    /// Which tiles have been visited.
    pub fn tile_visited(&self) -> &[bool] {
        self.episode.as_ref().map_or(&[], |e| &e.tile_visited)
    }

    /// The car's state; `None` before the first reset.
    pub fn car_state(&self) -> Option<CarState> {
        self.episode.as_ref().map(|e| e.car.state())
    }

    /// Tiles each wheel touches (drives its friction).
    pub fn wheel_tiles(&self, wheel: usize) -> &[u32] {
        self.episode
            .as_ref()
            .map_or(&[], |e| e.contacts.tiles_of(wheel))
    }

    pub fn palette(&self) -> &Palette {
        &self.palette
    }
    pub fn reward(&self) -> f64 {
        self.reward
    }
    pub fn tile_visited_count(&self) -> usize {
        self.tile_visited_count
    }
    pub fn t(&self) -> f64 {
        self.t
    }
    pub fn new_lap(&self) -> bool {
        self.new_lap
    }

    /// For tests (Gymnasium's own tests call its contact listener the same way): what a
    /// wheel's contact with `tile` does, begin then end, as if the car touched it: repaint,
    /// first-visit reward, lap check. The car does not move. Returns whether the tile exists.
    pub fn touch_tile(&mut self, tile: usize) -> bool {
        let road_color = self.palette.road.map(to_u8);
        let Some(ep) = self.episode.as_mut() else {
            return false;
        };
        if tile >= ep.track.len() {
            return false;
        }
        let lap = LapCheck {
            tiles: ep.track.len(),
            percent: self.config.lap_complete_percent,
            every_contact: self.config.lap_rule == LapRule::EveryContact,
            road_color,
        };
        let mut book = ContactBook {
            road: &mut ep.road,
            tile_road_index: &ep.tile_road_index,
            tile_visited: &mut ep.tile_visited,
            reward: &mut self.reward,
            visited_count: &mut self.tile_visited_count,
            new_lap: &mut self.new_lap,
            first_visits: &mut ep.first_visits,
        };
        let tile = tile as u32;
        book.on_contact(ContactEvent::Begin { fixture: 0, tile }, &lap);
        book.on_contact(ContactEvent::End { fixture: 0, tile }, &lap);
        true
    }
    /// Failed track attempts in the last reset.
    pub fn track_retries(&self) -> usize {
        self.track_attempts.len().saturating_sub(1)
    }
    /// Every track attempt of the last reset, the successful last one included.
    pub fn track_attempts(&self) -> &[track::Attempt] {
        &self.track_attempts
    }
    pub fn has_episode(&self) -> bool {
        self.episode.is_some()
    }
}

/// Rejects actions Gymnasium would choke on: non-finite floats, discrete values outside
/// {0, 1, 2, 3, 4}, and the wrong kind for the configured action space.
pub fn validate(config: &Config, action: &Action) -> Result<()> {
    match (config.continuous, action) {
        (true, Action::Continuous(a)) => {
            if let Some(i) = a.iter().position(|v| !v.is_finite()) {
                return Err(Error::InvalidAction(format!(
                    "action[{i}] is {}; continuous actions must be finite [steer, gas, brake]",
                    a[i]
                )));
            }
            Ok(())
        }
        (false, Action::Discrete(a)) if (0..5).contains(a) => Ok(()),
        (false, Action::Discrete(a)) => Err(Error::InvalidAction(format!(
            "discrete action {a} is outside Discrete(5) (0 nothing, 1 right, 2 left, 3 gas, 4 brake)"
        ))),
        (true, Action::Discrete(_)) => Err(Error::InvalidAction(
            "continuous environment expects [steer, gas, brake], got a discrete action".into(),
        )),
        (false, Action::Continuous(_)) => Err(Error::InvalidAction(
            "discrete environment expects an integer in {0, 1, 2, 3, 4}, got a continuous action".into(),
        )),
    }
}

/// Gymnasium's mapping of actions to the car's controls.
fn apply_action(car: &mut Car, action: Action) {
    match action {
        Action::Continuous([steer, gas, brake]) => {
            car.steer(-steer);
            car.gas(gas);
            car.brake(brake);
        }
        Action::Discrete(a) => {
            let is = |k: i64| if a == k { 1.0 } else { 0.0 };
            car.steer(-0.6 * is(1) + 0.6 * is(2));
            car.gas(0.2 * is(3));
            car.brake(0.8 * is(4));
        }
    }
}
