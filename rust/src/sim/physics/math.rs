//! Box2D 2.3's vector algebra (`b2Math.h`), in f32 with the C++ evaluation order.
//!
//! Every formula keeps Box2D's operand order and grouping: float addition is not associative,
//! and bit-exact parity with pybox2d depends on it. Rust never fuses multiply-add on its own.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A 2-D column vector (`b2Vec2`). Units depend on use (world units, world units per second...).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// Builds a vector from its components.
    pub const fn new(x: f32, y: f32) -> Self {
        Vec2 { x, y }
    }

    /// Euclidean length: `sqrtf(x * x + y * y)`.
    pub fn length(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// Squared length: `x * x + y * y`.
    pub fn length_squared(self) -> f32 {
        self.x * self.x + self.y * self.y
    }

    /// Normalizes in place (`b2Vec2::Normalize`); leaves vectors shorter than `FLT_EPSILON`
    /// unchanged. Returns the original length.
    pub fn normalize(&mut self) -> f32 {
        let length = self.length();
        if length < f32::EPSILON {
            return 0.0;
        }
        let inv_length = 1.0 / length;
        self.x *= inv_length;
        self.y *= inv_length;
        length
    }

    /// The components as an array.
    pub fn to_array(self) -> [f32; 2] {
        [self.x, self.y]
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, b: Vec2) -> Vec2 {
        Vec2::new(self.x + b.x, self.y + b.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, b: Vec2) -> Vec2 {
        Vec2::new(self.x - b.x, self.y - b.y)
    }
}

impl Neg for Vec2 {
    type Output = Vec2;
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

impl AddAssign for Vec2 {
    fn add_assign(&mut self, b: Vec2) {
        self.x += b.x;
        self.y += b.y;
    }
}

impl SubAssign for Vec2 {
    fn sub_assign(&mut self, b: Vec2) {
        self.x -= b.x;
        self.y -= b.y;
    }
}

/// Scalar times vector (`float32 * b2Vec2`).
impl Mul<Vec2> for f32 {
    type Output = Vec2;
    fn mul(self, v: Vec2) -> Vec2 {
        Vec2::new(self * v.x, self * v.y)
    }
}

/// Dot product: `a.x * b.x + a.y * b.y`.
pub fn dot(a: Vec2, b: Vec2) -> f32 {
    a.x * b.x + a.y * b.y
}

/// 2-D cross product of two vectors (a scalar): `a.x * b.y - a.y * b.x`.
pub fn cross(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// Cross product of a vector and a scalar: `(s * a.y, -s * a.x)`.
pub fn cross_vs(a: Vec2, s: f32) -> Vec2 {
    Vec2::new(s * a.y, -s * a.x)
}

/// Cross product of a scalar and a vector: `(-s * a.y, s * a.x)`. With `s` an angular velocity
/// (radians per second) and `a` a lever arm, this is the point's linear velocity.
pub fn cross_sv(s: f32, a: Vec2) -> Vec2 {
    Vec2::new(-s * a.y, s * a.x)
}

/// `b2Min` for floats: `a < b ? a : b`.
pub fn min(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// `b2Max` for floats: `a > b ? a : b`.
pub fn max(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `b2Clamp(a, low, high)` = `b2Max(low, b2Min(a, high))`.
pub fn clamp(a: f32, low: f32, high: f32) -> f32 {
    max(low, min(a, high))
}

/// A rotation stored as sine and cosine (`b2Rot`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rot {
    /// Sine of the angle.
    pub s: f32,
    /// Cosine of the angle.
    pub c: f32,
}

impl Rot {
    /// The rotation by `angle` radians: `sinf(angle)`, `cosf(angle)` (glibc's, as Box2D's).
    pub fn new(angle: f32) -> Self {
        Rot {
            s: angle.sin(),
            c: angle.cos(),
        }
    }

    /// Rotates `v` (`b2Mul(q, v)`).
    pub fn apply(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// Rotates `v` by the inverse rotation (`b2MulT(q, v)`).
    pub fn apply_inverse(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }
}

/// A rigid transform: translation (world units) and rotation (`b2Transform`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Origin of the local frame in world coordinates. World units.
    pub p: Vec2,
    /// Orientation of the local frame.
    pub q: Rot,
}

impl Transform {
    /// Maps a local point to world coordinates (`b2Mul(xf, v)`): rotation first, then the
    /// translation added last, component by component.
    pub fn apply(&self, v: Vec2) -> Vec2 {
        let x = (self.q.c * v.x - self.q.s * v.y) + self.p.x;
        let y = (self.q.s * v.x + self.q.c * v.y) + self.p.y;
        Vec2::new(x, y)
    }
}

/// A 3-D vector (`b2Vec3`), used for the revolute joint's stacked point + angle impulse.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// Builds a vector from its components.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vec3 { x, y, z }
    }
}

/// Dot product of 3-D vectors: `(a.x * b.x + a.y * b.y) + a.z * b.z`.
pub fn dot3(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// Cross product of 3-D vectors.
pub fn cross3(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// Solves the 2×2 system `[a11 a12; a21 a22] x = b` by Cramer's rule, exactly as
/// `b2Mat22::Solve` and `b2Mat33::Solve22` do (a singular matrix gives `det = 0`).
pub fn solve22(a11: f32, a12: f32, a21: f32, a22: f32, b: Vec2) -> Vec2 {
    let mut det = a11 * a22 - a12 * a21;
    if det != 0.0 {
        det = 1.0 / det;
    }
    Vec2::new(det * (a22 * b.x - a12 * b.y), det * (a11 * b.y - a21 * b.x))
}

/// A 3×3 matrix stored by columns (`b2Mat33`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mat33 {
    pub ex: Vec3,
    pub ey: Vec3,
    pub ez: Vec3,
}

impl Mat33 {
    /// Solves `A x = b` (`b2Mat33::Solve33`).
    pub fn solve33(&self, b: Vec3) -> Vec3 {
        let mut det = dot3(self.ex, cross3(self.ey, self.ez));
        if det != 0.0 {
            det = 1.0 / det;
        }
        Vec3::new(
            det * dot3(b, cross3(self.ey, self.ez)),
            det * dot3(self.ex, cross3(b, self.ez)),
            det * dot3(self.ex, cross3(self.ey, b)),
        )
    }

    /// Solves the upper-left 2×2 block (`b2Mat33::Solve22`).
    pub fn solve22(&self, b: Vec2) -> Vec2 {
        solve22(self.ex.x, self.ey.x, self.ex.y, self.ey.y, b)
    }
}
