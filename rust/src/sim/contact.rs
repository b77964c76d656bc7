//! Sensor contacts between the car's fixtures and road tiles.
//!
//! Gymnasium's tiles are Box2D sensor fixtures. Box2D reports a sensor contact as touching when
//! `b2TestOverlap` (GJK in f32, [`crate::sim::physics::distance`]) finds the two polygons closer
//! than the sum of their skins (each polygon has radius `b2_polygonRadius` = 0.01), and it
//! evaluates this at the start of `world.Step`, on the poses left by the previous step. The same
//! f32 GJK runs here, so boundary cases round exactly as in Box2D. A uniform grid and bounding
//! boxes keep it to the few nearby tiles.

use crate::sim::physics::distance::{test_overlap_posed, world_vertices, POLYGON_RADIUS};
use crate::sim::physics::polygon::MAX_POLYGON_VERTICES;
use crate::sim::physics::{Polygon, Rot, Transform, Vec2};

/// Grid cell edge. World units. Tiles are ~3.5 long and ~13 wide, so a tile spans few cells.
const CELL: f64 = 8.0;
/// How far apart two bounding boxes may be and still hold a pair worth running GJK on. World
/// units. GJK's distance is measured between convex combinations of the (f32) vertices, so it
/// can undercut the true gap only by rounding (~1e-4 at world coordinates ~1000); touching
/// needs a gap below both skins (0.02) plus `10 * FLT_EPSILON`. The 0.1 of slack (Box2D's own
/// `b2_aabbExtension`) makes the prefilter unable to drop a pair GJK would call touching.
const REACH: f64 = 2.0 * POLYGON_RADIUS as f64 + 0.1;
/// Number of car fixtures tracked: four wheels, then four hull pieces.
pub const FIXTURES: usize = 8;

/// A tile body's transform. Gymnasium creates tiles as static bodies at the origin, unrotated
/// (`b2Rot::Set(0)`: sine 0, cosine 1), with the tile quad as the fixture's local polygon.
const TILE_TRANSFORM: Transform = Transform {
    p: Vec2::ZERO,
    q: Rot { s: 0.0, c: 1.0 },
};

/// A road tile as Box2D stores it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tile {
    /// The quad after `b2PolygonShape::Set` (f32, convex hull, Box2D's vertex order). Local
    /// coordinates of a body at the origin, so also world coordinates. World units.
    pub polygon: Polygon,
    /// The vertices through the tile body's transform, as GJK evaluates them (identical to
    /// the local ones except perhaps for the sign of a zero). World units.
    pub world: [Vec2; MAX_POLYGON_VERTICES],
    /// Bounding box of the vertices, `[min_x, min_y, max_x, max_y]`. World units.
    pub aabb: [f64; 4],
}

impl Tile {
    /// A tile from Gymnasium's quad `[road1_l, road1_r, road2_r, road2_l]` (Python floats,
    /// rounded to f32 by pybox2d as `fd_tile.shape.vertices` is set).
    pub fn new(quad: &[[f64; 2]; 4]) -> Self {
        let points = quad.map(|p| Vec2::new(p[0] as f32, p[1] as f32));
        let polygon = Polygon::new(&points);
        Tile {
            polygon,
            world: world_vertices(polygon.points(), &TILE_TRANSFORM),
            aabb: aabb_of(polygon.points().iter().copied()),
        }
    }
}

/// A car fixture at its body's current pose: what Box2D's overlap test reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fixture {
    /// Local polygon, as `b2PolygonShape::Set` stored it. World units.
    pub polygon: Polygon,
    /// The body's transform (`b2Body::m_xf`). World units.
    pub transform: Transform,
    /// The vertices through `transform` (`b2Mul(xf, v)`, as GJK evaluates them). World units.
    pub world: [Vec2; MAX_POLYGON_VERTICES],
    /// Bounding box of the transformed vertices, `[min_x, min_y, max_x, max_y]`. World units.
    pub aabb: [f64; 4],
}

impl Fixture {
    /// Poses `polygon` (local coordinates) with `transform`.
    pub fn new(polygon: Polygon, transform: Transform) -> Self {
        let world = world_vertices(polygon.points(), &transform);
        Fixture {
            polygon,
            transform,
            world,
            aabb: aabb_of(world[..polygon.count].iter().copied()),
        }
    }
}

fn aabb_of(points: impl Iterator<Item = Vec2>) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in points {
        let (x, y) = (f64::from(p.x), f64::from(p.y));
        b[0] = b[0].min(x);
        b[1] = b[1].min(y);
        b[2] = b[2].max(x);
        b[3] = b[3].max(y);
    }
    b
}

/// Whether two boxes overlap once each is grown by `margin`.
fn aabbs_overlap(a: &[f64; 4], b: &[f64; 4], margin: f64) -> bool {
    a[0] - margin <= b[2] && b[0] - margin <= a[2] && a[1] - margin <= b[3] && b[1] - margin <= a[3]
}

/// Box2D's sensor test for a tile/fixture pair: `b2TestOverlap(tile, fixture)`.
///
/// The tile is fixture A: Box2D makes the pair's lower broad-phase proxy id fixture A
/// (`b2BroadPhase::QueryCallback`, `b2ContactManager::AddPair`; polygon–polygon contacts are
/// not swapped), and tiles get their proxies before the car in a fresh world (pybox2d shows
/// the tile as fixture A in every contact of an episode). Later resets recycle proxy ids, but
/// that cannot matter: the test is symmetric bit for bit (swapping A and B negates every
/// simplex vector, which rounds identically), as the recorded oracle confirms.
pub fn touching(tile: &Tile, fixture: &Fixture) -> bool {
    aabbs_overlap(&tile.aabb, &fixture.aabb, REACH) && gjk_touching(tile, fixture)
}

/// [`touching`] without the bounding-box prefilter: the GJK test alone.
fn gjk_touching(tile: &Tile, fixture: &Fixture) -> bool {
    test_overlap_posed(
        &tile.polygon,
        &TILE_TRANSFORM,
        &tile.world,
        &fixture.polygon,
        &fixture.transform,
        &fixture.world,
    )
}

/// The tiles of one track, bucketed in a uniform grid.
#[derive(Debug, Clone, Default)]
pub struct TileGrid {
    tiles: Vec<Tile>,
    origin: [f64; 2],
    dims: [usize; 2],
    /// CSR layout: tiles of cell `c` are `cell_tiles[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<u32>,
    cell_tiles: Vec<u32>,
}

impl TileGrid {
    /// Indexes tile quads (world units, as Gymnasium builds them; Box2D stores them as f32).
    pub fn new(quads: &[[[f64; 2]; 4]]) -> Self {
        let tiles: Vec<Tile> = quads.iter().map(Tile::new).collect();
        let mut bounds = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for t in &tiles {
            bounds[0] = bounds[0].min(t.aabb[0]);
            bounds[1] = bounds[1].min(t.aabb[1]);
            bounds[2] = bounds[2].max(t.aabb[2]);
            bounds[3] = bounds[3].max(t.aabb[3]);
        }
        if tiles.is_empty() {
            return TileGrid::default();
        }
        let origin = [bounds[0] - CELL, bounds[1] - CELL];
        let dims = [
            ((bounds[2] - origin[0]) / CELL) as usize + 2,
            ((bounds[3] - origin[1]) / CELL) as usize + 2,
        ];
        let mut grid = TileGrid {
            tiles,
            origin,
            dims,
            cell_start: vec![0; dims[0] * dims[1] + 1],
            cell_tiles: Vec::new(),
        };
        // Two passes (count, then fill) build the CSR arrays without per-cell vectors.
        let mut counts = vec![0u32; dims[0] * dims[1]];
        for t in &grid.tiles {
            grid.for_cells(&t.aabb, REACH, |c| counts[c] += 1);
        }
        let mut acc = 0u32;
        for (c, n) in counts.iter().enumerate() {
            grid.cell_start[c] = acc;
            acc += n;
        }
        grid.cell_start[counts.len()] = acc;
        grid.cell_tiles = vec![0; acc as usize];
        let mut fill: Vec<u32> = grid.cell_start[..counts.len()].to_vec();
        for (i, t) in grid.tiles.iter().enumerate() {
            let (origin, dims) = (grid.origin, grid.dims);
            Self::cells_of(origin, dims, &t.aabb, REACH, |c| {
                grid.cell_tiles[fill[c] as usize] = i as u32;
                fill[c] += 1;
            });
        }
        grid
    }

    /// Number of tiles indexed.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether no tiles are indexed.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    fn for_cells(&self, aabb: &[f64; 4], margin: f64, f: impl FnMut(usize)) {
        Self::cells_of(self.origin, self.dims, aabb, margin, f)
    }

    fn cells_of(
        origin: [f64; 2],
        dims: [usize; 2],
        aabb: &[f64; 4],
        margin: f64,
        mut f: impl FnMut(usize),
    ) {
        // `as usize` truncates towards zero and saturates (negative and NaN to 0), which for
        // the clamped cell index is the same as `floor().max(0.0)` first, minus a libm call.
        let cell = |v: f64, o: f64, n: usize| (((v - o) / CELL) as usize).min(n - 1);
        let x0 = cell(aabb[0] - margin, origin[0], dims[0]);
        let x1 = cell(aabb[2] + margin, origin[0], dims[0]);
        let y0 = cell(aabb[1] - margin, origin[1], dims[1]);
        let y1 = cell(aabb[3] + margin, origin[1], dims[1]);
        for y in y0..=y1 {
            for x in x0..=x1 {
                f(y * dims[0] + x);
            }
        }
    }

    /// The indexed tiles, in track order.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// Fills `out` (sorted, deduplicated) with every tile `fixture` touches.
    pub fn touching_tiles(&self, fixture: &Fixture, out: &mut Vec<u32>) {
        self.touching_tiles_where(fixture, out, |_| true);
    }

    /// [`TileGrid::touching_tiles`] among the tiles `keep` accepts (the others are not tested).
    pub fn touching_tiles_where(
        &self,
        fixture: &Fixture,
        out: &mut Vec<u32>,
        keep: impl Fn(u32) -> bool,
    ) {
        out.clear();
        if self.tiles.is_empty() {
            return;
        }
        let b = &fixture.aabb;
        let far = b[2] < self.origin[0]
            || b[3] < self.origin[1]
            || b[0] > self.origin[0] + self.dims[0] as f64 * CELL
            || b[1] > self.origin[1] + self.dims[1] as f64 * CELL;
        if far || !b.iter().all(|v| v.is_finite()) {
            return;
        }
        // Candidates first (a tile listed in several of the fixture's cells is tested once),
        // then the exact test on each, in tile order.
        self.for_cells(b, 0.0, |c| {
            let range = self.cell_start[c] as usize..self.cell_start[c + 1] as usize;
            for &t in &self.cell_tiles[range] {
                if aabbs_overlap(&self.tiles[t as usize].aabb, b, REACH) && keep(t) {
                    out.push(t);
                }
            }
        });
        out.sort_unstable();
        out.dedup();
        out.retain(|&t| gjk_touching(&self.tiles[t as usize], fixture));
    }
}

/// A change in what a fixture touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactEvent {
    /// Fixture (0–3 wheels, 4–7 hull) started touching the tile.
    Begin { fixture: usize, tile: u32 },
    /// Fixture stopped touching the tile.
    End { fixture: usize, tile: u32 },
}

/// Which tiles each car fixture touches, updated once per step like Box2D's `Collide`.
#[derive(Debug, Clone, Default)]
pub struct ContactSet {
    touching: [Vec<u32>; FIXTURES],
    scratch: Vec<u32>,
}

impl ContactSet {
    /// Forgets every contact (a new car on a new track).
    pub fn clear(&mut self) {
        self.touching.iter_mut().for_each(Vec::clear);
    }

    /// Tiles fixture `f` touches, sorted.
    pub fn tiles_of(&self, fixture: usize) -> &[u32] {
        &self.touching[fixture]
    }

    /// Re-evaluates every fixture against the grid and reports the changes, ends before begins
    /// for each fixture, fixtures in order.
    pub fn update(
        &mut self,
        grid: &TileGrid,
        fixtures: &[Fixture; FIXTURES],
        mut on_event: impl FnMut(ContactEvent),
    ) {
        self.update_tracking(grid, fixtures, &mut (), |_, _, _| true, |_, e| on_event(e));
    }

    /// [`ContactSet::update`] for the (fixture, tile) pairs `tracked` accepts: the others are
    /// neither tested nor reported (a pair that stops being tracked reports an end). For pairs
    /// whose events can no longer change anything, so they need no exact test. `state` is what
    /// both closures look at, and `on_event` may change.
    pub fn update_tracking<S>(
        &mut self,
        grid: &TileGrid,
        fixtures: &[Fixture; FIXTURES],
        state: &mut S,
        tracked: impl Fn(&S, usize, u32) -> bool,
        mut on_event: impl FnMut(&mut S, ContactEvent),
    ) {
        for (f, fixture) in fixtures.iter().enumerate() {
            let state_now: &S = state;
            grid.touching_tiles_where(fixture, &mut self.scratch, |t| tracked(state_now, f, t));
            let (old, new) = (&self.touching[f], &self.scratch);
            for t in old.iter().filter(|t| new.binary_search(t).is_err()) {
                on_event(
                    state,
                    ContactEvent::End {
                        fixture: f,
                        tile: *t,
                    },
                );
            }
            for t in new.iter().filter(|t| old.binary_search(t).is_err()) {
                on_event(
                    state,
                    ContactEvent::Begin {
                        fixture: f,
                        tile: *t,
                    },
                );
            }
            std::mem::swap(&mut self.touching[f], &mut self.scratch);
        }
    }
}

#[cfg(test)]
mod tests;
