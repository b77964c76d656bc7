//! The CarRacing state machine: Gymnasium's `CarRacing.reset` and `CarRacing.step` rules.
//!
//! Seeding is the caller's business: it hands in the generator (a fresh one for a seeded
//! reset, the same one to continue the stream), exactly as Gymnasium's `np_random` works.

//! The folder holds one concern per file: `config` (constants, options, colours), `action`
//! (the two kinds and their check), `episode` (one episode's world), `scoring` (what a
//! contact pays); the state machine itself is here.

use crate::sim::car::CarState;
use crate::sim::contact::{ContactEvent, Fixture, FIXTURES};
use crate::sim::progress::tiles_skipped_before;
use crate::sim::rng::NumpyGenerator;
use crate::sim::scene::{Indicators, Renderer, RoadPoly, SceneView};
use crate::sim::track::{self, PLAYFIELD};
use crate::support::error::{Error, Result};

mod action;
mod config;
mod episode;
mod scoring;

use action::apply_action;
pub use action::{validate, Action};
pub use config::{
    Config, GymnasiumRelease, LapRule, Palette, FPS, OBS_BYTES, OFF_PLAYFIELD_REWARD, STATE_H,
    STATE_W, STEP_REWARD, TILE_REWARD_TOTAL, VIDEO_H, VIDEO_W, WINDOW_H, WINDOW_W,
};
use episode::Episode;
use scoring::{ContactBook, LapCheck, Tally};

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

/// One CarRacing environment.
#[derive(Debug, Clone)]
pub struct CarRacing {
    config: Config,
    rng: NumpyGenerator,
    palette: Palette,
    episode: Option<Episode>,
    tally: Tally,
    prev_reward: f64,
    /// Episode time. Seconds.
    t: f64,
    /// The track attempts of the last reset (failed ones, then the one that succeeded).
    track_attempts: Vec<track::Attempt>,
    /// Scratch buffers and caches for drawing (no allocation per frame).
    renderer: Renderer,
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
            tally: Tally::default(),
            prev_reward: 0.0,
            t: 0.0,
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
        self.episode = Some(Episode::new(track, &self.palette));
        self.tally = Tally::default();
        self.prev_reward = 0.0;
        self.t = 0.0;
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
        let lap = LapCheck::new(&self.config, &self.palette, tiles);
        let road_color = lap.road_color;
        ep.tiles.first_visits.clear();
        let mut book = ContactBook {
            tiles: &mut ep.tiles,
            tally: &mut self.tally,
        };
        // A hull fixture's contact only repaints its tile, and a repaint of a tile already in
        // the plain road colour changes nothing, so such pairs need no exact test. Wheels are
        // always tracked: their contacts drive friction and the visited tiles.
        let tracked = |b: &ContactBook<'_>, fixture: usize, tile: u32| {
            fixture < 4 || !b.repainted(tile, road_color)
        };
        ep.contacts
            .update_tracking(&ep.grid, &fixtures, &mut book, tracked, |b, event| {
                b.on_contact(event, &lap)
            });
        let new_tiles = ep.tiles.first_visits.len() as u32;
        // Counted once every contact of the step is in: a wheel that lands on two new tiles in
        // one step skipped neither, whichever contact came first.
        let skipped_tiles = ep
            .tiles
            .first_visits
            .iter()
            .map(|&tile| tiles_skipped_before(&ep.tiles.visited, tile))
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
            self.tally.reward += STEP_REWARD;
            outcome.reward = self.tally.reward - self.prev_reward;
            self.prev_reward = self.tally.reward;
            if self.tally.visited_count == tiles || self.tally.new_lap {
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
            road: &ep.tiles.road,
            road_bounds: &ep.road_bounds,
            car: &drawing,
            skid_marks: ep.car.skid_marks(),
            indicators: Indicators {
                true_speed: (vx * vx + vy * vy).sqrt(),
                wheel_omega: state.wheel_omega,
                steer_angle: state.joint_angle[0] as f64,
                hull_angular_velocity: state.hull_angular_velocity as f64,
            },
            reward: self.tally.reward,
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
        self.episode.as_ref().map_or(&[], |e| &e.tiles.road)
    }

    /// Which tiles have been visited.
    pub fn tile_visited(&self) -> &[bool] {
        self.episode.as_ref().map_or(&[], |e| &e.tiles.visited)
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
        self.tally.reward
    }
    pub fn tile_visited_count(&self) -> usize {
        self.tally.visited_count
    }
    pub fn t(&self) -> f64 {
        self.t
    }
    pub fn new_lap(&self) -> bool {
        self.tally.new_lap
    }

    /// For tests (Gymnasium's own tests call its contact listener the same way): what a
    /// wheel's contact with `tile` does, begin then end, as if the car touched it: repaint,
    /// first-visit reward, lap check. The car does not move. Returns whether the tile exists.
    pub fn touch_tile(&mut self, tile: usize) -> bool {
        let Some(ep) = self.episode.as_mut() else {
            return false;
        };
        if tile >= ep.track.len() {
            return false;
        }
        let lap = LapCheck::new(&self.config, &self.palette, ep.track.len());
        let mut book = ContactBook {
            tiles: &mut ep.tiles,
            tally: &mut self.tally,
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
