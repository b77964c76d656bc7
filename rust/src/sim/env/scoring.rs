//! What a contact does to the score: Gymnasium's `FrictionDetector` repaints the touched tile,
//! pays a first visit, and checks the lap.

use super::config::{Config, LapRule, Palette, TILE_REWARD_TOTAL};
use super::episode::{to_u8, Tiles};
use crate::sim::contact::ContactEvent;

/// The episode's running score: Gymnasium's `reward`, `tile_visited_count` and `new_lap`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tally {
    /// Accumulated episode reward, including the time penalty (Gymnasium's `self.reward`).
    pub(super) reward: f64,
    pub(super) visited_count: usize,
    pub(super) new_lap: bool,
}

/// What the contact callbacks of a step read (`tracked`) and update (`on_contact`).
pub(super) struct ContactBook<'a> {
    pub(super) tiles: &'a mut Tiles,
    pub(super) tally: &'a mut Tally,
}

/// What the contact listener needs to know to score a contact.
pub(super) struct LapCheck {
    tiles: usize,
    percent: f64,
    every_contact: bool,
    /// The plain road colour touched tiles are repainted in.
    pub(super) road_color: [u8; 3],
}

impl LapCheck {
    /// The lap rule of `config` on a track of `tiles` tiles painted in `palette`.
    pub(super) fn new(config: &Config, palette: &Palette, tiles: usize) -> Self {
        LapCheck {
            tiles,
            percent: config.lap_complete_percent,
            every_contact: config.lap_rule == LapRule::EveryContact,
            road_color: palette.road.map(to_u8),
        }
    }
}

impl ContactBook<'_> {
    /// Whether `tile` is already in the plain road colour `road_color`.
    pub(super) fn repainted(&self, tile: u32, road_color: [u8; 3]) -> bool {
        self.tiles.road[self.tiles.road_index[tile as usize]].color == road_color
    }

    /// Gymnasium's `FrictionDetector._contact` for one begin or end of a contact.
    pub(super) fn on_contact(&mut self, event: ContactEvent, lap: &LapCheck) {
        let (fixture, tile) = match event {
            ContactEvent::Begin { fixture, tile } => (fixture, tile as usize),
            ContactEvent::End { tile, .. } => (usize::MAX, tile as usize),
        };
        // Any touch, begin or end, by wheel or hull, repaints the tile in the plain road
        // colour: Gymnasium's contact listener does this before anything else.
        let tiles = &mut *self.tiles;
        tiles.road[tiles.road_index[tile]].color = lap.road_color;
        let is_wheel_begin = fixture < 4;
        let first_visit = is_wheel_begin && !tiles.visited[tile];
        let tally = &mut *self.tally;
        if first_visit {
            tiles.visited[tile] = true;
            tiles.first_visits.push(tile);
            tally.reward += TILE_REWARD_TOTAL / lap.tiles as f64;
            tally.visited_count += 1;
        }
        // Gymnasium checks the lap inside the first-visit branch; PR #1670 on every wheel
        // contact with the start tile.
        let checked = if lap.every_contact {
            is_wheel_begin
        } else {
            first_visit
        };
        if checked && tile == 0 && tally.visited_count as f64 / lap.tiles as f64 > lap.percent {
            tally.new_lap = true;
        }
    }
}
