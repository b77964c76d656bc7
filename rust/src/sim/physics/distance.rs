//! Closest points between convex polygons by GJK (`b2Distance`, `b2Collision.cpp`'s
//! `b2TestOverlap`), in f32 with Box2D 2.3's operation order.
//!
//! Box2D decides whether a sensor fixture touches another with `b2TestOverlap`: GJK on the two
//! polygons' vertices (transformed inside the iteration), then both skins
//! ([`POLYGON_RADIUS`] each) subtracted, and "touching" when what is left is below
//! `10 * FLT_EPSILON`. Near the boundary the f32 rounding of this particular algorithm decides,
//! so it is reproduced step for step rather than replaced by an exact distance.
//!
//! Only polygons are supported (the car and the road tiles are all `b2PolygonShape`s).

use super::math::{cross, cross_sv, cross_vs, dot, Transform, Vec2};
use super::polygon::{Polygon, MAX_POLYGON_VERTICES};
use super::settings::LINEAR_SLOP;

/// `b2_epsilon` (`FLT_EPSILON`). Dimensionless, or world units where compared to lengths.
pub const EPSILON: f32 = f32::EPSILON;

/// `b2_polygonRadius` = `2 * b2_linearSlop`: the skin around every polygon. World units.
pub const POLYGON_RADIUS: f32 = 2.0 * LINEAR_SLOP;

/// Most GJK iterations (support-point evaluations) before giving up (`k_maxIters`).
const MAX_ITERATIONS: usize = 20;

/// A shape as GJK sees it (`b2DistanceProxy` for a polygon): its local vertices and skin.
#[derive(Debug, Clone, Copy)]
pub struct DistanceProxy<'a> {
    /// Local vertices, as `b2PolygonShape::Set` ordered them. World units.
    pub vertices: &'a [Vec2],
    /// Skin radius. World units.
    pub radius: f32,
}

impl<'a> DistanceProxy<'a> {
    /// `b2DistanceProxy::Set` for a polygon shape (radius [`POLYGON_RADIUS`]).
    pub fn polygon(polygon: &'a Polygon) -> Self {
        DistanceProxy {
            vertices: polygon.points(),
            radius: POLYGON_RADIUS,
        }
    }

    /// Index of the vertex farthest along `d` (`GetSupport`); the first one wins ties.
    pub fn support(&self, d: Vec2) -> usize {
        let vertices = self.vertices;
        let mut best_index = 0;
        let mut best_value = dot(vertices[0], d);
        for (i, &v) in (1..).zip(&vertices[1..]) {
            let value = dot(v, d);
            if value > best_value {
                best_index = i;
                best_value = value;
            }
        }
        best_index
    }
}

/// Warm-start state for [`distance`] (`b2SimplexCache`). Start with `count = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SimplexCache {
    /// Length (2 vertices) or signed doubled area (3 vertices) of the cached simplex.
    pub metric: f32,
    /// Number of cached vertices (0 to 3).
    pub count: usize,
    /// Vertex indices on shape A.
    pub index_a: [u8; 3],
    /// Vertex indices on shape B.
    pub index_b: [u8; 3],
}

/// Input to [`distance`] (`b2DistanceInput`).
#[derive(Debug, Clone, Copy)]
pub struct DistanceInput<'a> {
    pub proxy_a: DistanceProxy<'a>,
    pub proxy_b: DistanceProxy<'a>,
    pub transform_a: Transform,
    pub transform_b: Transform,
    /// Whether to subtract the skins from the distance.
    pub use_radii: bool,
}

/// Result of [`distance`] (`b2DistanceOutput`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DistanceOutput {
    /// Closest point on shape A, world coordinates. World units.
    pub point_a: Vec2,
    /// Closest point on shape B, world coordinates. World units.
    pub point_b: Vec2,
    /// Distance between the shapes (0 when overlapping). World units.
    pub distance: f32,
    /// Support-point evaluations used.
    pub iterations: usize,
}

/// One vertex of the Minkowski-difference simplex (`b2SimplexVertex`). World units.
#[derive(Debug, Clone, Copy, Default)]
struct SimplexVertex {
    /// Support point on A.
    wa: Vec2,
    /// Support point on B.
    wb: Vec2,
    /// `wb - wa`.
    w: Vec2,
    /// Barycentric coordinate of the closest point.
    a: f32,
    index_a: usize,
    index_b: usize,
}

impl SimplexVertex {
    fn new(a: &Posed, index_a: usize, b: &Posed, index_b: usize) -> Self {
        let wa = a.world[index_a];
        let wb = b.world[index_b];
        SimplexVertex {
            wa,
            wb,
            w: wb - wa,
            a: 0.0,
            index_a,
            index_b,
        }
    }
}

/// A proxy at its pose, with every vertex already mapped to world coordinates.
///
/// `b2Distance` transforms a support vertex each time it enters the simplex
/// (`b2Mul(xf, proxy.GetVertex(i))`); that is a pure function of the vertex and the transform,
/// so computing it once per vertex up front gives the same bits.
#[derive(Debug, Clone, Copy)]
pub struct Posed<'a> {
    pub proxy: DistanceProxy<'a>,
    pub transform: Transform,
    /// `transform.apply(v)` for each of `proxy.vertices`. World units.
    pub world: &'a [Vec2],
}

/// `transform.apply(v)` for each vertex (at most [`MAX_POLYGON_VERTICES`]; the rest zero).
pub fn world_vertices(vertices: &[Vec2], transform: &Transform) -> [Vec2; MAX_POLYGON_VERTICES] {
    assert!(vertices.len() <= MAX_POLYGON_VERTICES, "too many vertices");
    let mut out = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    for (dst, &v) in out.iter_mut().zip(vertices) {
        *dst = transform.apply(v);
    }
    out
}

/// The current simplex (`b2Simplex`): `v[..count]` are live; `v[count]` is scratch for the
/// next candidate, as `m_v1..m_v3` are in Box2D.
#[derive(Debug, Clone, Copy)]
struct Simplex {
    v: [SimplexVertex; 3],
    count: usize,
}

impl Simplex {
    /// `ReadCache`: rebuilds the cached simplex on the new poses, or starts from vertex 0 of
    /// each shape when the cache is empty or its metric changed too much.
    fn read_cache(cache: &SimplexCache, a: &Posed, b: &Posed) -> Self {
        let mut s = Simplex {
            v: [SimplexVertex::default(); 3],
            count: cache.count,
        };
        for i in 0..s.count {
            s.v[i] = SimplexVertex::new(
                a,
                usize::from(cache.index_a[i]),
                b,
                usize::from(cache.index_b[i]),
            );
        }
        if s.count > 1 {
            let metric1 = cache.metric;
            let metric2 = s.metric();
            if metric2 < 0.5 * metric1 || 2.0 * metric1 < metric2 || metric2 < EPSILON {
                s.count = 0;
            }
        }
        if s.count == 0 {
            s.v[0] = SimplexVertex::new(a, 0, b, 0);
            s.v[0].a = 1.0;
            s.count = 1;
        }
        s
    }

    /// The GJK iterations of `b2Distance` from this simplex; returns the number of support
    /// points evaluated.
    fn run(&mut self, a: &Posed, b: &Posed) -> usize {
        // The previous simplex's vertices, to spot a repeated support point (cycling).
        let mut save_a = [0usize; 3];
        let mut save_b = [0usize; 3];

        let mut iter = 0;
        while iter < MAX_ITERATIONS {
            let save_count = self.count;
            for i in 0..save_count {
                save_a[i] = self.v[i].index_a;
                save_b[i] = self.v[i].index_b;
            }

            match self.count {
                1 => {}
                2 => self.solve2(),
                3 => self.solve3(),
                n => unreachable!("{n}-simplex"),
            }

            // Three points: the origin is inside the triangle, so the shapes overlap.
            if self.count == 3 {
                break;
            }

            // Box2D computes the closest point's squared distance here for a progress check
            // that it has disabled: the value is never used, so it is not computed here.

            let d = self.search_direction();
            // A vanishing direction means the origin is (nearly) on the simplex: overlap, or
            // too close to tell. Box2D stops here without declaring zero distance.
            if d.length_squared() < EPSILON * EPSILON {
                break;
            }

            // Tentative new vertex from the support points along -d on A and d on B.
            let index_a = a.proxy.support(a.transform.q.apply_inverse(-d));
            let index_b = b.proxy.support(b.transform.q.apply_inverse(d));
            self.v[self.count] = SimplexVertex::new(a, index_a, b, index_b);
            iter += 1;

            // A repeated support point is the main termination criterion.
            let duplicate = (0..save_count).any(|i| index_a == save_a[i] && index_b == save_b[i]);
            if duplicate {
                break;
            }

            self.count += 1;
        }
        iter
    }

    /// `WriteCache`.
    fn write_cache(&self, cache: &mut SimplexCache) {
        cache.metric = self.metric();
        cache.count = self.count;
        for i in 0..self.count {
            // Polygons have at most 8 vertices, so indices fit Box2D's uint8.
            cache.index_a[i] = self.v[i].index_a as u8;
            cache.index_b[i] = self.v[i].index_b as u8;
        }
    }

    /// `GetSearchDirection`: towards the origin from the point or segment.
    fn search_direction(&self) -> Vec2 {
        match self.count {
            1 => -self.v[0].w,
            2 => {
                let e12 = self.v[1].w - self.v[0].w;
                let sgn = cross(e12, -self.v[0].w);
                if sgn > 0.0 {
                    // Origin is left of e12.
                    cross_sv(1.0, e12)
                } else {
                    // Origin is right of e12.
                    cross_vs(e12, 1.0)
                }
            }
            _ => unreachable!("search direction of a {}-simplex", self.count),
        }
    }

    /// `GetWitnessPoints`: the closest points on A and on B.
    fn witness_points(&self) -> (Vec2, Vec2) {
        let [v1, v2, v3] = &self.v;
        match self.count {
            1 => (v1.wa, v1.wb),
            2 => (v1.a * v1.wa + v2.a * v2.wa, v1.a * v1.wb + v2.a * v2.wb),
            3 => {
                let pa = v1.a * v1.wa + v2.a * v2.wa + v3.a * v3.wa;
                (pa, pa)
            }
            _ => unreachable!("witness points of a {}-simplex", self.count),
        }
    }

    /// `GetMetric`: segment length or doubled signed triangle area.
    fn metric(&self) -> f32 {
        match self.count {
            1 => 0.0,
            2 => (self.v[0].w - self.v[1].w).length(),
            3 => cross(self.v[1].w - self.v[0].w, self.v[2].w - self.v[0].w),
            _ => unreachable!("metric of a {}-simplex", self.count),
        }
    }

    /// `Solve2`: reduces a segment to the feature nearest the origin, with barycentric
    /// coordinates `a1 = d12_1 / d12`, `a2 = d12_2 / d12`.
    fn solve2(&mut self) {
        let w1 = self.v[0].w;
        let w2 = self.v[1].w;
        let e12 = w2 - w1;

        // w1 region
        let d12_2 = -dot(w1, e12);
        if d12_2 <= 0.0 {
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }

        // w2 region
        let d12_1 = dot(w2, e12);
        if d12_1 <= 0.0 {
            self.v[1].a = 1.0;
            self.count = 1;
            self.v[0] = self.v[1];
            return;
        }

        // Must be in the e12 region.
        let inv_d12 = 1.0 / (d12_1 + d12_2);
        self.v[0].a = d12_1 * inv_d12;
        self.v[1].a = d12_2 * inv_d12;
        self.count = 2;
    }

    /// `Solve3`: reduces a triangle to the vertex, edge or interior region holding the origin
    /// (regions tested in Box2D's order: w1, e12, e13, w2, w3, e23, interior).
    fn solve3(&mut self) {
        let w1 = self.v[0].w;
        let w2 = self.v[1].w;
        let w3 = self.v[2].w;

        let e12 = w2 - w1;
        let w1e12 = dot(w1, e12);
        let w2e12 = dot(w2, e12);
        let d12_1 = w2e12;
        let d12_2 = -w1e12;

        let e13 = w3 - w1;
        let w1e13 = dot(w1, e13);
        let w3e13 = dot(w3, e13);
        let d13_1 = w3e13;
        let d13_2 = -w1e13;

        let e23 = w3 - w2;
        let w2e23 = dot(w2, e23);
        let w3e23 = dot(w3, e23);
        let d23_1 = w3e23;
        let d23_2 = -w2e23;

        let n123 = cross(e12, e13);
        let d123_1 = n123 * cross(w2, w3);
        let d123_2 = n123 * cross(w3, w1);
        let d123_3 = n123 * cross(w1, w2);

        // w1 region
        if d12_2 <= 0.0 && d13_2 <= 0.0 {
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }

        // e12
        if d12_1 > 0.0 && d12_2 > 0.0 && d123_3 <= 0.0 {
            let inv_d12 = 1.0 / (d12_1 + d12_2);
            self.v[0].a = d12_1 * inv_d12;
            self.v[1].a = d12_2 * inv_d12;
            self.count = 2;
            return;
        }

        // e13
        if d13_1 > 0.0 && d13_2 > 0.0 && d123_2 <= 0.0 {
            let inv_d13 = 1.0 / (d13_1 + d13_2);
            self.v[0].a = d13_1 * inv_d13;
            self.v[2].a = d13_2 * inv_d13;
            self.count = 2;
            self.v[1] = self.v[2];
            return;
        }

        // w2 region
        if d12_1 <= 0.0 && d23_2 <= 0.0 {
            self.v[1].a = 1.0;
            self.count = 1;
            self.v[0] = self.v[1];
            return;
        }

        // w3 region
        if d13_1 <= 0.0 && d23_1 <= 0.0 {
            self.v[2].a = 1.0;
            self.count = 1;
            self.v[0] = self.v[2];
            return;
        }

        // e23
        if d23_1 > 0.0 && d23_2 > 0.0 && d123_1 <= 0.0 {
            let inv_d23 = 1.0 / (d23_1 + d23_2);
            self.v[1].a = d23_1 * inv_d23;
            self.v[2].a = d23_2 * inv_d23;
            self.count = 2;
            self.v[0] = self.v[2];
            return;
        }

        // Must be inside the triangle.
        let inv_d123 = 1.0 / (d123_1 + d123_2 + d123_3);
        self.v[0].a = d123_1 * inv_d123;
        self.v[1].a = d123_2 * inv_d123;
        self.v[2].a = d123_3 * inv_d123;
        self.count = 3;
    }
}

/// `b2Distance`: closest points of two convex shapes by GJK, warm-started from and written
/// back to `cache`.
pub fn distance(cache: &mut SimplexCache, input: &DistanceInput) -> DistanceOutput {
    let world_a = world_vertices(input.proxy_a.vertices, &input.transform_a);
    let world_b = world_vertices(input.proxy_b.vertices, &input.transform_b);
    let a = Posed {
        proxy: input.proxy_a,
        transform: input.transform_a,
        world: &world_a[..input.proxy_a.vertices.len()],
    };
    let b = Posed {
        proxy: input.proxy_b,
        transform: input.transform_b,
        world: &world_b[..input.proxy_b.vertices.len()],
    };
    distance_posed(cache, &a, &b, input.use_radii)
}

/// [`distance`] on shapes whose world vertices are already known.
pub fn distance_posed(
    cache: &mut SimplexCache,
    a: &Posed,
    b: &Posed,
    use_radii: bool,
) -> DistanceOutput {
    let mut simplex = Simplex::read_cache(cache, a, b);
    let iter = simplex.run(a, b);

    let (mut point_a, mut point_b) = simplex.witness_points();
    let mut dist = (point_a - point_b).length();
    simplex.write_cache(cache);

    if use_radii {
        let r_a = a.proxy.radius;
        let r_b = b.proxy.radius;
        if dist > r_a + r_b && dist > EPSILON {
            // Still apart: move the witness points onto the skins.
            dist -= r_a + r_b;
            let mut normal = point_b - point_a;
            normal.normalize();
            point_a += r_a * normal;
            point_b -= r_b * normal;
        } else {
            // The skins overlap: both witness points at the midpoint.
            let p = 0.5 * (point_a + point_b);
            point_a = p;
            point_b = p;
            dist = 0.0;
        }
    }

    DistanceOutput {
        point_a,
        point_b,
        distance: dist,
        iterations: iter,
    }
}

/// `b2TestOverlap(shapeA, 0, shapeB, 0, xfA, xfB)` for two polygons: whether their skinned
/// shapes overlap, to within `10 * FLT_EPSILON` world units.
pub fn test_overlap(
    polygon_a: &Polygon,
    transform_a: &Transform,
    polygon_b: &Polygon,
    transform_b: &Transform,
) -> bool {
    let input = DistanceInput {
        proxy_a: DistanceProxy::polygon(polygon_a),
        proxy_b: DistanceProxy::polygon(polygon_b),
        transform_a: *transform_a,
        transform_b: *transform_b,
        use_radii: true,
    };
    let mut cache = SimplexCache::default();
    distance(&mut cache, &input).distance < 10.0 * EPSILON
}

/// [`test_overlap`] on polygons whose world vertices (`world_a`, `world_b`: `transform.apply`
/// of each vertex) are already known.
pub fn test_overlap_posed(
    polygon_a: &Polygon,
    transform_a: &Transform,
    world_a: &[Vec2],
    polygon_b: &Polygon,
    transform_b: &Transform,
    world_b: &[Vec2],
) -> bool {
    let a = Posed {
        proxy: DistanceProxy::polygon(polygon_a),
        transform: *transform_a,
        world: &world_a[..polygon_a.count],
    };
    let b = Posed {
        proxy: DistanceProxy::polygon(polygon_b),
        transform: *transform_b,
        world: &world_b[..polygon_b.count],
    };
    // `b2Distance` from an empty cache (`ReadCache` starts at vertex 0 of each shape), keeping
    // only what decides the distance: the cache written back and the witness points moved onto
    // the skins are discarded by `b2TestOverlap`.
    let mut simplex = Simplex {
        v: [SimplexVertex::default(); 3],
        count: 1,
    };
    simplex.v[0] = SimplexVertex::new(&a, 0, &b, 0);
    simplex.v[0].a = 1.0;
    simplex.run(&a, &b);
    let (point_a, point_b) = simplex.witness_points();
    let mut dist = (point_a - point_b).length();
    let (r_a, r_b) = (a.proxy.radius, b.proxy.radius);
    if dist > r_a + r_b && dist > EPSILON {
        dist -= r_a + r_b;
    } else {
        dist = 0.0;
    }
    dist < 10.0 * EPSILON
}

#[cfg(test)]
mod tests;
