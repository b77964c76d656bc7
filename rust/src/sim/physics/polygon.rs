//! Convex polygons (`b2PolygonShape`): vertex order from `Set` and mass from `ComputeMass`.

use super::math::{cross, dot, Vec2};

/// Most vertices a polygon may have here. Box2D allows 16; the car's largest has 8.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// A convex polygon in its body's local frame, counter-clockwise, as `b2PolygonShape::Set`
/// orders it (starting at the right-most, then lowest, input point).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Polygon {
    /// Vertices, local coordinates. World units. Only the first `count` are used.
    pub vertices: [Vec2; MAX_POLYGON_VERTICES],
    /// Number of vertices (3 to [`MAX_POLYGON_VERTICES`]).
    pub count: usize,
}

/// Mass properties of a shape or body (`b2MassData`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassData {
    /// Mass. Kilograms (density × world units²).
    pub mass: f32,
    /// Centre of mass, local coordinates. World units.
    pub center: Vec2,
    /// Rotational inertia about the local origin. Kilogram world units².
    pub inertia: f32,
}

impl Polygon {
    /// The convex hull of `points` by gift wrapping, exactly as `b2PolygonShape::Set` builds it
    /// (same start point, same collinearity rule), so vertex order and mass sums match Box2D.
    ///
    /// Panics if fewer than 3 or more than [`MAX_POLYGON_VERTICES`] points are given: the car's
    /// shapes are fixed, so that is a programming error.
    pub fn new(points: &[Vec2]) -> Self {
        let n = points.len();
        assert!(
            (3..=MAX_POLYGON_VERTICES).contains(&n),
            "a polygon needs between 3 and 8 points"
        );

        // Right-most point (lowest y on ties) starts the hull.
        let mut i0 = 0;
        let mut x0 = points[0].x;
        for (i, p) in points.iter().enumerate().skip(1) {
            if p.x > x0 || (p.x == x0 && p.y < points[i0].y) {
                i0 = i;
                x0 = p.x;
            }
        }

        let mut hull = [0usize; MAX_POLYGON_VERTICES];
        let mut m = 0;
        let mut ih = i0;
        loop {
            hull[m] = ih;
            let mut ie = 0;
            for j in 1..n {
                if ie == ih {
                    ie = j;
                    continue;
                }
                let r = points[ie] - points[hull[m]];
                let v = points[j] - points[hull[m]];
                let c = cross(r, v);
                if c < 0.0 {
                    ie = j;
                }
                // Collinear: keep the farther point.
                if c == 0.0 && v.length_squared() > r.length_squared() {
                    ie = j;
                }
            }
            m += 1;
            ih = ie;
            if ie == i0 {
                break;
            }
        }

        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (dst, &src) in vertices.iter_mut().zip(&hull[..m]) {
            *dst = points[src];
        }
        Polygon { vertices, count: m }
    }

    /// The used vertices. Local coordinates, world units.
    pub fn points(&self) -> &[Vec2] {
        &self.vertices[..self.count]
    }

    /// Mass, centroid and inertia at `density` (kilograms per world unit²), summed over the fan
    /// of triangles about the vertex average as `b2PolygonShape::ComputeMass` does.
    pub fn compute_mass(&self, density: f32) -> MassData {
        let count = self.count;
        let mut center = Vec2::ZERO;
        let mut area = 0.0f32;
        let mut inertia = 0.0f32;

        // Reference point inside the polygon, for accuracy.
        let mut s = Vec2::ZERO;
        for &v in self.points() {
            s += v;
        }
        let inv_count = 1.0 / count as f32;
        s = Vec2::new(s.x * inv_count, s.y * inv_count);

        let k_inv3 = 1.0f32 / 3.0;
        for i in 0..count {
            let e1 = self.vertices[i] - s;
            let e2 = if i + 1 < count {
                self.vertices[i + 1] - s
            } else {
                self.vertices[0] - s
            };
            let d = cross(e1, e2);
            let triangle_area = 0.5 * d;
            area += triangle_area;
            center += (triangle_area * k_inv3) * (e1 + e2);

            let (ex1, ey1) = (e1.x, e1.y);
            let (ex2, ey2) = (e2.x, e2.y);
            let intx2 = ex1 * ex1 + ex2 * ex1 + ex2 * ex2;
            let inty2 = ey1 * ey1 + ey2 * ey1 + ey2 * ey2;
            inertia += (0.25 * k_inv3 * d) * (intx2 + inty2);
        }

        let mass = density * area;
        let inv_area = 1.0 / area;
        center = Vec2::new(center.x * inv_area, center.y * inv_area);
        let mass_center = center + s;
        // Inertia about s, shifted to the centroid and then to the local origin.
        let inertia =
            density * inertia + mass * (dot(mass_center, mass_center) - dot(center, center));
        MassData {
            mass,
            center: mass_center,
            inertia,
        }
    }
}
