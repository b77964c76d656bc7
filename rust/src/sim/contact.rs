//! Sensor contacts between the car's fixtures and road tiles.
//!
//! Gymnasium's tiles are Box2D sensor fixtures. Box2D reports a sensor contact as touching when
//! `b2TestOverlap` (GJK in f32, [`crate::sim::physics::distance`]) finds the two polygons closer than
//! the sum of their skins (each polygon has radius `b2_polygonRadius` = 0.01), and it evaluates
//! this at the start of `world.Step`, on the poses left by the previous step. The same f32 GJK
//! runs here, so boundary cases round exactly as in Box2D. A uniform grid and bounding boxes
//! keep it to the few nearby tiles.

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
mod tests {
    use super::*;
    use crate::sim::physics::distance::test_overlap;

    /// An axis-aligned square fixture with its corner at (x, y), unrotated body at the origin.
    fn square(x: f32, y: f32, s: f32) -> Fixture {
        let polygon = Polygon::new(&[
            Vec2::new(x, y),
            Vec2::new(x + s, y),
            Vec2::new(x + s, y + s),
            Vec2::new(x, y + s),
        ]);
        Fixture::new(polygon, TILE_TRANSFORM)
    }

    fn quad(x: f64, y: f64, w: f64, h: f64) -> [[f64; 2]; 4] {
        [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    }

    #[test]
    fn tiles_are_stored_as_box2d_hulls() {
        // Gymnasium's order road1_l, road1_r, road2_r, road2_l; Set starts at the right-most.
        let t = Tile::new(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
        assert_eq!(t.polygon.count, 4);
        assert_eq!(t.polygon.vertices[0], Vec2::new(1.0, 0.0));
        assert_eq!(t.aabb, [0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn skins_make_near_polygons_touch() {
        let tile = Tile::new(&quad(0.0, 0.0, 1.0, 1.0));
        assert!(touching(&tile, &square(0.5, 0.5, 1.0)), "overlapping");
        assert!(
            touching(&tile, &square(1.015, 0.0, 1.0)),
            "gap smaller than both skins"
        );
        assert!(
            !touching(&tile, &square(1.025, 0.0, 1.0)),
            "gap larger than both skins"
        );
        assert!(!touching(&tile, &square(3.0, 4.0, 1.0)));
    }

    #[test]
    fn grid_finds_exactly_the_touching_tiles() {
        let quads: Vec<[[f64; 2]; 4]> = (0..50)
            .map(|i| quad(i as f64 * 3.0, 0.0, 3.0, 5.0))
            .collect();
        let grid = TileGrid::new(&quads);
        let mut out = Vec::new();
        grid.touching_tiles(&square(10.0, 1.0, 0.5), &mut out);
        assert_eq!(out, vec![3]);
        grid.touching_tiles(&square(8.8, 1.0, 0.5), &mut out);
        assert_eq!(out, vec![2, 3], "straddles the shared edge");
        grid.touching_tiles(&square(500.0, 1.0, 0.5), &mut out);
        assert!(out.is_empty());
    }

    /// The grid and the bounding-box prefilter never drop a pair that GJK alone calls
    /// touching: compare with a brute-force scan on fixtures placed around tile boundaries,
    /// far from the origin where f32 rounding is coarse.
    #[test]
    fn grid_matches_brute_force_near_boundaries() {
        // A fan of skewed quads around a circle of radius ~300, like a track's tiles.
        let quads: Vec<[[f64; 2]; 4]> = (0..64)
            .map(|i| {
                let a0 = i as f64 * 0.05;
                let a1 = a0 + 0.05;
                let p = |a: f64, r: f64| [r * a.cos() + 40.0, r * a.sin() - 20.0];
                [p(a0, 293.3), p(a0, 306.6), p(a1, 306.7), p(a1, 293.4)]
            })
            .collect();
        let grid = TileGrid::new(&quads);
        let wheel = Polygon::new(&[
            Vec2::new(-0.28, 0.54),
            Vec2::new(0.28, 0.54),
            Vec2::new(0.28, -0.54),
            Vec2::new(-0.28, -0.54),
        ]);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut uniform = move || {
            // SplitMix64, enough for test coverage.
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut out, mut touches) = (Vec::new(), 0);
        for _ in 0..20_000 {
            // Around an outer or inner edge or a seam between tiles, within ~0.6 + 0.04.
            let t = &quads[(uniform() * 64.0) as usize];
            let (e0, e1) = match (uniform() * 3.0) as usize {
                0 => (t[0], t[3]),
                1 => (t[1], t[2]),
                _ => (t[0], t[1]),
            };
            let s = uniform();
            let base = [e0[0] + s * (e1[0] - e0[0]), e0[1] + s * (e1[1] - e0[1])];
            let r = 0.58 + 0.08 * uniform();
            let phi = uniform() * std::f64::consts::TAU;
            let transform = Transform {
                p: Vec2::new(
                    (base[0] + r * phi.cos()) as f32,
                    (base[1] + r * phi.sin()) as f32,
                ),
                q: Rot::new((uniform() * 7.0) as f32),
            };
            let fixture = Fixture::new(wheel, transform);
            grid.touching_tiles(&fixture, &mut out);
            let brute: Vec<u32> = (0..grid.len() as u32)
                .filter(|&i| {
                    test_overlap(
                        &grid.tiles()[i as usize].polygon,
                        &TILE_TRANSFORM,
                        &wheel,
                        &transform,
                    )
                })
                .collect();
            assert_eq!(out, brute, "{transform:?}");
            touches += usize::from(!brute.is_empty());
        }
        assert!(touches > 1000, "too few touching samples: {touches}");
    }

    /// Replays pybox2d's `b2TestOverlap` and `b2Distance` on near-boundary fixture/tile pairs
    /// recorded by `tools/overlap_oracle.py`: every answer, distance and witness point must be
    /// identical, with the tile as shape A and (answer only) swapped.
    #[test]
    fn overlap_matches_box2d_oracle() {
        use crate::sim::car::Car;
        use crate::sim::physics::distance::{distance, DistanceInput, DistanceProxy, SimplexCache};

        const ORACLE: &str = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/rust/tests/data/overlap_box2d.txt"
        ));
        let car_fixtures = Car::new(0.3, 10.0, -20.0).fixtures();
        let (mut tiles, mut cases, mut touching_cases) = (Vec::new(), 0, 0);
        for line in ORACLE.lines().filter(|l| !l.starts_with('#')) {
            let t: Vec<&str> = line.split_whitespace().collect();
            let f = |i: usize| t[i].parse::<f32>().expect("f32");
            let vertices = |start: usize| -> Vec<Vec2> {
                let n: usize = t[start].parse().expect("count");
                (0..n)
                    .map(|k| Vec2::new(f(start + 1 + 2 * k), f(start + 2 + 2 * k)))
                    .collect()
            };
            match t[0] {
                "shape" => {
                    let fixture: usize = t[1].parse().expect("fixture");
                    assert_eq!(
                        car_fixtures[fixture].0.points(),
                        vertices(2),
                        "shape {fixture}"
                    );
                }
                "tile" => {
                    let d = |i: usize| t[i].parse::<f64>().expect("f64");
                    let quad = std::array::from_fn(|k| [d(2 + 2 * k), d(3 + 2 * k)]);
                    let tile = Tile::new(&quad);
                    assert_eq!(tile.polygon.points(), vertices(10), "tile {}", t[1]);
                    tiles.push(tile);
                }
                "case" => {
                    let tile = &tiles[t[2].parse::<usize>().expect("tile")];
                    let polygon = car_fixtures[t[3].parse::<usize>().expect("fixture")].0;
                    let transform = Transform {
                        p: Vec2::new(f(4), f(5)),
                        q: Rot { s: f(6), c: f(7) },
                    };
                    let (ab, ba) = (t[8] == "1", t[9] == "1");
                    let fixture = Fixture::new(polygon, transform);
                    assert_eq!(touching(tile, &fixture), ab, "{line}");
                    let swapped =
                        test_overlap(&polygon, &transform, &tile.polygon, &TILE_TRANSFORM);
                    assert_eq!(swapped, ba, "{line}");
                    let input = DistanceInput {
                        proxy_a: DistanceProxy::polygon(&tile.polygon),
                        proxy_b: DistanceProxy::polygon(&polygon),
                        transform_a: TILE_TRANSFORM,
                        transform_b: transform,
                        use_radii: true,
                    };
                    let out = distance(&mut SimplexCache::default(), &input);
                    let got = [
                        out.distance,
                        out.point_a.x,
                        out.point_a.y,
                        out.point_b.x,
                        out.point_b.y,
                    ];
                    let want = [f(10), f(12), f(13), f(14), f(15)];
                    assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{line}");
                    assert_eq!(out.iterations.to_string(), t[11], "{line}");
                    cases += 1;
                    touching_cases += usize::from(ab);
                }
                other => panic!("unknown record {other:?}"),
            }
        }
        assert!(
            cases >= 900 && touching_cases >= 300,
            "{cases} cases, {touching_cases} touching"
        );
    }

    #[test]
    fn untracked_pairs_are_not_reported_and_leaving_tracking_ends_a_contact() {
        let grid = TileGrid::new(&[quad(0.0, 0.0, 3.0, 3.0)]);
        let mut set = ContactSet::default();
        let mut fixtures = [square(100.0, 100.0, 1.0); FIXTURES];
        fixtures[0] = square(1.0, 1.0, 0.5);
        fixtures[5] = square(1.5, 1.0, 0.5);
        // `state` says whether fixture 5's pairs are tracked.
        let mut step = |tracked_5: bool| {
            let mut events = Vec::new();
            let mut state = tracked_5;
            set.update_tracking(
                &grid,
                &fixtures,
                &mut state,
                |&t5, f, _| f != 5 || t5,
                |_, e| events.push(e),
            );
            events
        };
        let begin = |fixture| ContactEvent::Begin { fixture, tile: 0 };
        assert_eq!(step(false), vec![begin(0)]);
        assert_eq!(step(true), vec![begin(5)]);
        assert_eq!(
            step(false),
            vec![ContactEvent::End {
                fixture: 5,
                tile: 0
            }]
        );
        assert_eq!(step(false), vec![]);
    }

    #[test]
    fn contact_set_reports_begin_and_end() {
        let grid = TileGrid::new(&[quad(0.0, 0.0, 3.0, 3.0)]);
        let mut set = ContactSet::default();
        let far = square(100.0, 100.0, 1.0);
        let mut fixtures = [far; FIXTURES];
        fixtures[0] = square(1.0, 1.0, 0.5);
        let mut events = Vec::new();
        set.update(&grid, &fixtures, |e| events.push(e));
        assert_eq!(
            events,
            vec![ContactEvent::Begin {
                fixture: 0,
                tile: 0
            }]
        );
        events.clear();
        fixtures[0] = far;
        set.update(&grid, &fixtures, |e| events.push(e));
        assert_eq!(
            events,
            vec![ContactEvent::End {
                fixture: 0,
                tile: 0
            }]
        );
    }
}
