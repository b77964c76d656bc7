//! Sensor contacts between the car's fixtures and road tiles.
//!
//! Gymnasium's tiles are Box2D sensor fixtures. Box2D reports a sensor contact as touching when
//! `b2TestOverlap` finds the two polygons closer than the sum of their skins (each polygon has
//! radius `b2_polygonRadius` = 0.01), and it evaluates this at the start of `world.Step`, on the
//! poses left by the previous step. A uniform grid keeps the test to the few nearby tiles.

use crate::car::WorldPolygon;

/// Box2D's polygon skin: `b2_polygonRadius = 2 * b2_linearSlop`. World units.
pub const POLYGON_RADIUS: f64 = 0.01;
/// `b2TestOverlap` reports overlap below this distance after removing both skins.
const OVERLAP_EPSILON: f64 = 10.0 * f32::EPSILON as f64;
/// Grid cell edge. World units. Tiles are ~3.5 long and ~13 wide, so a tile spans few cells.
const CELL: f64 = 8.0;
/// Number of car fixtures tracked: four wheels, then four hull pieces.
pub const FIXTURES: usize = 8;

/// A convex polygon with its bounding box, in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Convex {
    pub vertices: [[f64; 2]; 8],
    pub count: usize,
    /// `[min_x, min_y, max_x, max_y]`.
    pub aabb: [f64; 4],
}

impl Convex {
    /// The convex hull of `points` (Box2D stores tiles as the hull of their f32 vertices),
    /// counter-clockwise.
    pub fn hull(points: &[[f64; 2]]) -> Self {
        let mut pts: Vec<[f64; 2]> = points.to_vec();
        pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
        pts.dedup();
        // Andrew's monotone chain.
        let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
            (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
        };
        let mut hull: Vec<[f64; 2]> = Vec::with_capacity(2 * pts.len());
        for pass in 0..2 {
            let start = hull.len();
            let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
                Box::new(pts.iter())
            } else {
                Box::new(pts.iter().rev())
            };
            for &p in iter {
                while hull.len() >= start + 2
                    && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
                {
                    hull.pop();
                }
                hull.push(p);
            }
            hull.pop();
        }
        if hull.is_empty() {
            hull = pts;
        }
        let mut out = Convex {
            vertices: [[0.0; 2]; 8],
            count: hull.len().min(8),
            aabb: [0.0; 4],
        };
        out.vertices[..out.count].copy_from_slice(&hull[..out.count]);
        out.aabb = aabb_of(&out.vertices[..out.count]);
        out
    }

    /// A car fixture, whose vertices Box2D already keeps convex and counter-clockwise.
    pub fn from_world(poly: &WorldPolygon) -> Self {
        let mut vertices = [[0.0; 2]; 8];
        for (dst, src) in vertices.iter_mut().zip(&poly.vertices[..poly.count]) {
            *dst = [src[0] as f64, src[1] as f64];
        }
        Convex {
            vertices,
            count: poly.count,
            aabb: aabb_of(&vertices[..poly.count]),
        }
    }

    fn points(&self) -> &[[f64; 2]] {
        &self.vertices[..self.count]
    }
}

fn aabb_of(points: &[[f64; 2]]) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in points {
        b[0] = b[0].min(p[0]);
        b[1] = b[1].min(p[1]);
        b[2] = b[2].max(p[0]);
        b[3] = b[3].max(p[1]);
    }
    b
}

/// Whether two boxes overlap once each is grown by `margin`.
fn aabbs_overlap(a: &[f64; 4], b: &[f64; 4], margin: f64) -> bool {
    a[0] - margin <= b[2] && b[0] - margin <= a[2] && a[1] - margin <= b[3] && b[1] - margin <= a[3]
}

/// Squared distance from `p` to segment `ab`.
fn point_segment_dist2(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (abx, aby) = (b[0] - a[0], b[1] - a[1]);
    let (apx, apy) = (p[0] - a[0], p[1] - a[1]);
    let len2 = abx * abx + aby * aby;
    let t = if len2 > 0.0 {
        ((apx * abx + apy * aby) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (dx, dy) = (apx - t * abx, apy - t * aby);
    dx * dx + dy * dy
}

/// Whether some edge normal of `a` separates `a` from `b` (separating axis test).
fn separated_by_edges_of(a: &Convex, b: &Convex) -> bool {
    let pa = a.points();
    let orientation = signed_area(pa).signum();
    for i in 0..pa.len() {
        let p0 = pa[i];
        let p1 = pa[(i + 1) % pa.len()];
        // Outward normal for either winding.
        let n = [
            (p1[1] - p0[1]) * orientation,
            -(p1[0] - p0[0]) * orientation,
        ];
        if b.points()
            .iter()
            .all(|q| (q[0] - p0[0]) * n[0] + (q[1] - p0[1]) * n[1] > 0.0)
        {
            return true;
        }
    }
    false
}

fn signed_area(p: &[[f64; 2]]) -> f64 {
    let mut a = 0.0;
    for i in 0..p.len() {
        let j = (i + 1) % p.len();
        a += p[i][0] * p[j][1] - p[j][0] * p[i][1];
    }
    0.5 * a
}

/// Distance between two convex polygons (0 when they intersect).
pub fn distance(a: &Convex, b: &Convex) -> f64 {
    if !separated_by_edges_of(a, b) && !separated_by_edges_of(b, a) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        let qs = q.points();
        for &v in p.points() {
            for i in 0..qs.len() {
                best = best.min(point_segment_dist2(v, qs[i], qs[(i + 1) % qs.len()]));
            }
        }
    }
    best.sqrt()
}

/// `b2TestOverlap` for two polygons with Box2D's skins.
pub fn touching(a: &Convex, b: &Convex) -> bool {
    if !aabbs_overlap(&a.aabb, &b.aabb, 2.0 * POLYGON_RADIUS) {
        return false;
    }
    distance(a, b) - 2.0 * POLYGON_RADIUS < OVERLAP_EPSILON
}

/// The tiles of one track, bucketed in a uniform grid.
#[derive(Debug, Clone, Default)]
pub struct TileGrid {
    tiles: Vec<Convex>,
    origin: [f64; 2],
    dims: [usize; 2],
    /// CSR layout: tiles of cell `c` are `cell_tiles[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<u32>,
    cell_tiles: Vec<u32>,
}

impl TileGrid {
    /// Indexes tile quads (world units, as Gymnasium builds them; Box2D stores them as f32).
    pub fn new(quads: &[[[f64; 2]; 4]]) -> Self {
        let tiles: Vec<Convex> = quads
            .iter()
            .map(|q| {
                let f32_round = q.map(|p| [p[0] as f32 as f64, p[1] as f32 as f64]);
                Convex::hull(&f32_round)
            })
            .collect();
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
            grid.for_cells(&t.aabb, 2.0 * POLYGON_RADIUS, |c| counts[c] += 1);
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
            Self::cells_of(origin, dims, &t.aabb, 2.0 * POLYGON_RADIUS, |c| {
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
        let cell =
            |v: f64, o: f64, n: usize| (((v - o) / CELL).floor().max(0.0) as usize).min(n - 1);
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

    /// Appends to `out` (sorted, deduplicated) every tile `shape` touches.
    pub fn touching_tiles(&self, shape: &Convex, out: &mut Vec<u32>) {
        out.clear();
        if self.tiles.is_empty() {
            return;
        }
        let b = &shape.aabb;
        let far = b[2] < self.origin[0]
            || b[3] < self.origin[1]
            || b[0] > self.origin[0] + self.dims[0] as f64 * CELL
            || b[1] > self.origin[1] + self.dims[1] as f64 * CELL;
        if far || !b.iter().all(|v| v.is_finite()) {
            return;
        }
        self.for_cells(b, 0.0, |c| {
            let range = self.cell_start[c] as usize..self.cell_start[c + 1] as usize;
            for &t in &self.cell_tiles[range] {
                if touching(shape, &self.tiles[t as usize]) {
                    out.push(t);
                }
            }
        });
        out.sort_unstable();
        out.dedup();
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
        fixtures: &[Convex; FIXTURES],
        mut on_event: impl FnMut(ContactEvent),
    ) {
        for (f, shape) in fixtures.iter().enumerate() {
            grid.touching_tiles(shape, &mut self.scratch);
            let (old, new) = (&self.touching[f], &self.scratch);
            for t in old.iter().filter(|t| new.binary_search(t).is_err()) {
                on_event(ContactEvent::End {
                    fixture: f,
                    tile: *t,
                });
            }
            for t in new.iter().filter(|t| old.binary_search(t).is_err()) {
                on_event(ContactEvent::Begin {
                    fixture: f,
                    tile: *t,
                });
            }
            std::mem::swap(&mut self.touching[f], &mut self.scratch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, y: f64, s: f64) -> Convex {
        Convex::hull(&[[x, y], [x + s, y], [x + s, y + s], [x, y + s]])
    }

    #[test]
    fn hull_drops_interior_points_and_is_ccw() {
        let c = Convex::hull(&[[0.0, 0.0], [1.0, 0.0], [0.5, 0.2], [1.0, 1.0], [0.0, 1.0]]);
        assert_eq!(c.count, 4);
        assert!(signed_area(c.points()) > 0.0);
    }

    #[test]
    fn skins_make_near_polygons_touch() {
        let a = square(0.0, 0.0, 1.0);
        assert!(touching(&a, &square(0.5, 0.5, 1.0)), "overlapping");
        assert!(
            touching(&a, &square(1.015, 0.0, 1.0)),
            "gap smaller than both skins"
        );
        assert!(
            !touching(&a, &square(1.025, 0.0, 1.0)),
            "gap larger than both skins"
        );
        assert!((distance(&a, &square(3.0, 4.0, 1.0)) - (13.0f64).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn grid_finds_exactly_the_touching_tiles() {
        let quads: Vec<[[f64; 2]; 4]> = (0..50)
            .map(|i| {
                let x = i as f64 * 3.0;
                [[x, 0.0], [x + 3.0, 0.0], [x + 3.0, 5.0], [x, 5.0]]
            })
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

    #[test]
    fn contact_set_reports_begin_and_end() {
        let quads = [[[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [0.0, 3.0]]];
        let grid = TileGrid::new(&quads);
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
