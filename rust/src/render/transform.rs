//! 2-D affine transforms: rotate, scale, translate and flip, in f64.

/// An affine map `x' = sx·x + kx·y + tx`, `y' = ky·x + sy·y + ty` (units are whatever the
/// caller's spaces use: world units in, pixels out, typically).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub sx: f64,
    pub kx: f64,
    pub ky: f64,
    pub sy: f64,
    pub tx: f64,
    pub ty: f64,
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The identity map.
    pub const fn identity() -> Self {
        Self {
            sx: 1.0,
            kx: 0.0,
            ky: 0.0,
            sy: 1.0,
            tx: 0.0,
            ty: 0.0,
        }
    }

    /// Translation by `(tx, ty)`.
    pub const fn from_translate(tx: f64, ty: f64) -> Self {
        Self {
            tx,
            ty,
            ..Self::identity()
        }
    }

    /// Axis-aligned scaling by `(sx, sy)` about the origin.
    pub const fn from_scale(sx: f64, sy: f64) -> Self {
        Self {
            sx,
            sy,
            ..Self::identity()
        }
    }

    /// Counter-clockwise rotation by `angle` radians (in a y-up frame), as
    /// `pygame.math.Vector2.rotate_rad`.
    pub fn from_rotate(angle: f64) -> Self {
        let (s, c) = angle.sin_cos();
        Self {
            sx: c,
            kx: -s,
            ky: s,
            sy: c,
            tx: 0.0,
            ty: 0.0,
        }
    }

    /// Mirror of the y axis inside a surface `height` pixels tall (`pygame.transform.flip(s,
    /// False, True)`): pixel row `r` becomes row `height - 1 - r`, i.e. `y' = height - y` in
    /// continuous coordinates where row `r` spans `[r, r + 1)`.
    pub const fn flip_y(height: f64) -> Self {
        Self {
            sx: 1.0,
            kx: 0.0,
            ky: 0.0,
            sy: -1.0,
            tx: 0.0,
            ty: height,
        }
    }

    /// The map that applies `self` first, then `next`.
    pub fn then(&self, next: &Transform) -> Transform {
        Transform {
            sx: next.sx * self.sx + next.kx * self.ky,
            kx: next.sx * self.kx + next.kx * self.sy,
            ky: next.ky * self.sx + next.sy * self.ky,
            sy: next.ky * self.kx + next.sy * self.sy,
            tx: next.sx * self.tx + next.kx * self.ty + next.tx,
            ty: next.ky * self.tx + next.sy * self.ty + next.ty,
        }
    }

    /// The inverse map, if the linear part is invertible (and finite).
    pub fn inverse(&self) -> Option<Transform> {
        let det = self.sx * self.sy - self.kx * self.ky;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let (sx, kx, ky, sy) = (self.sy / det, -self.kx / det, -self.ky / det, self.sx / det);
        Some(Transform {
            sx,
            kx,
            ky,
            sy,
            tx: -(sx * self.tx + kx * self.ty),
            ty: -(ky * self.tx + sy * self.ty),
        })
    }

    /// Maps point `p`.
    #[inline]
    pub fn apply(&self, p: [f64; 2]) -> [f64; 2] {
        [
            self.sx * p[0] + self.kx * p[1] + self.tx,
            self.ky * p[0] + self.sy * p[1] + self.ty,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_rotate_scale_translate() {
        let t = Transform::from_rotate(std::f64::consts::FRAC_PI_2)
            .then(&Transform::from_scale(2.0, 3.0))
            .then(&Transform::from_translate(1.0, 1.0));
        let p = t.apply([1.0, 0.0]);
        assert!((p[0] - 1.0).abs() < 1e-12 && (p[1] - 4.0).abs() < 1e-12);
    }

    #[test]
    fn inverse_undoes() {
        let t = Transform::from_rotate(0.7)
            .then(&Transform::from_scale(16.2, 16.2))
            .then(&Transform::from_translate(500.0, 200.0))
            .then(&Transform::flip_y(800.0));
        let p = t.inverse().unwrap().apply(t.apply([3.5, -120.25]));
        assert!((p[0] - 3.5).abs() < 1e-9 && (p[1] + 120.25).abs() < 1e-9);
        assert!(Transform::from_scale(0.0, 1.0).inverse().is_none());
    }

    #[test]
    fn flip_maps_rows() {
        let f = Transform::flip_y(800.0);
        assert_eq!(f.apply([3.0, 0.0]), [3.0, 800.0]);
        assert_eq!(f.apply([3.0, 799.0]), [3.0, 1.0]);
    }
}
