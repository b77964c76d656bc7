//! One episode's world: the track, its road polygons with their current colours, which tiles
//! were visited, and the car on it.

use super::config::Palette;
use crate::sim::car::Car;
use crate::sim::contact::{ContactSet, TileGrid};
use crate::sim::scene::{road_chunk_bounds, RoadPoly};
use crate::sim::track::Track;

/// The tiles as the contact listener sees them: what it repaints and marks visited.
#[derive(Debug, Clone)]
pub(super) struct Tiles {
    /// Tiles and kerbs in Gymnasium's draw order, with their current colours.
    pub(super) road: Vec<RoadPoly>,
    /// Index into `road` of each tile (kerbs sit between tiles).
    pub(super) road_index: Vec<usize>,
    pub(super) visited: Vec<bool>,
    /// Scratch for the tiles first visited during a step (kept to reuse its allocation).
    pub(super) first_visits: Vec<usize>,
}

/// Per-episode state: the track, its tiles and the car on it.
#[derive(Debug, Clone)]
pub(super) struct Episode {
    pub(super) track: Track,
    pub(super) grid: TileGrid,
    pub(super) tiles: Tiles,
    /// [`road_chunk_bounds`] of the road, for culling whole stretches at once.
    pub(super) road_bounds: Vec<[f64; 4]>,
    pub(super) car: Car,
    pub(super) contacts: ContactSet,
}

/// `int(c)` of a float colour channel, as pygame receives it.
pub(super) fn to_u8(c: f64) -> u8 {
    c.clamp(0.0, 255.0) as u8
}

impl Episode {
    /// A new episode on `track`, its road painted in `palette`, the car on the start line.
    pub(super) fn new(track: Track, palette: &Palette) -> Self {
        let [_, beta, x, y] = track.points[0];
        let car = Car::new(beta, x, y);
        let road_color = palette.road;
        let mut road = Vec::with_capacity(track.tiles.len() + track.kerbs.len());
        let mut road_index = Vec::with_capacity(track.tiles.len());
        let mut kerbs = track.kerbs.iter().peekable();
        for (i, quad) in track.tiles.iter().enumerate() {
            // Gymnasium shades tiles in threes: road colour + 0, 2.55, 5.1.
            let shade = 0.01 * (i % 3) as f64 * 255.0;
            road_index.push(road.len());
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
        Episode {
            track,
            grid,
            road_bounds: road_chunk_bounds(&road),
            tiles: Tiles {
                road,
                road_index,
                visited: vec![false; tiles],
                first_visits: Vec::new(),
            },
            car,
            contacts: ContactSet::default(),
        }
    }
}
