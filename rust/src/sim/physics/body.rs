//! Rigid body state (`b2Body`): only what a dynamic body in the car's island uses.

use super::math::{cross_sv, dot, Rot, Transform, Vec2};
use super::polygon::Polygon;

/// Motion of the centre of mass over one step (`b2Sweep`); the solver integrates `c` and `a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sweep {
    /// Centre of mass, body-local coordinates. World units.
    pub local_center: Vec2,
    /// Centre of mass at the start of the step, world coordinates. World units.
    pub c0: Vec2,
    /// Centre of mass now, world coordinates. World units.
    pub c: Vec2,
    /// Body angle at the start of the step. Radians.
    pub a0: f32,
    /// Body angle now. Radians.
    pub a: f32,
}

/// A dynamic rigid body. Plain data; the world and solver act on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Body origin and orientation, kept in sync with `sweep` (`m_xf`).
    pub transform: Transform,
    /// Centre-of-mass motion (`m_sweep`).
    pub sweep: Sweep,
    /// Velocity of the centre of mass. World units per second.
    pub linear_velocity: Vec2,
    /// Angular velocity. Radians per second.
    pub angular_velocity: f32,
    /// Force accumulated for the next step, applied at the centre of mass. Newtons.
    pub force: Vec2,
    /// Torque accumulated for the next step. Newton world units.
    pub torque: f32,
    /// Mass. Kilograms.
    pub mass: f32,
    /// Inverse mass. Per kilogram.
    pub inv_mass: f32,
    /// Rotational inertia about the centre of mass. Kilogram world units².
    pub inertia: f32,
    /// Inverse rotational inertia. Per kilogram world unit².
    pub inv_inertia: f32,
    /// Linear damping coefficient. Per second (Gymnasium leaves it 0).
    pub linear_damping: f32,
    /// Angular damping coefficient. Per second (Gymnasium leaves it 0).
    pub angular_damping: f32,
    /// Gravity multiplier. Dimensionless.
    pub gravity_scale: f32,
    /// Time the body has been resting below the sleep tolerances. Seconds.
    pub sleep_time: f32,
    /// Whether the body is simulated (`e_awakeFlag`).
    pub awake: bool,
    /// Whether the body may fall asleep (`e_autoSleepFlag`).
    pub auto_sleep: bool,
}

impl Body {
    /// A dynamic body at `position` (world units) and `angle` (radians), awake, at rest, with
    /// Box2D's placeholder unit mass until [`Body::reset_mass_data`] runs.
    pub fn new(position: Vec2, angle: f32) -> Self {
        Body {
            transform: Transform {
                p: position,
                q: Rot::new(angle),
            },
            sweep: Sweep {
                local_center: Vec2::ZERO,
                c0: position,
                c: position,
                a0: angle,
                a: angle,
            },
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            force: Vec2::ZERO,
            torque: 0.0,
            mass: 1.0,
            inv_mass: 1.0,
            inertia: 0.0,
            inv_inertia: 0.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            sleep_time: 0.0,
            awake: true,
            auto_sleep: true,
        }
    }

    /// Recomputes mass, centre of mass and inertia from `fixtures` (shape, density in kilograms
    /// per world unit²) in Box2D's fixture-list order, i.e. most recently created first
    /// (`b2Body::ResetMassData`).
    pub fn reset_mass_data<'a>(&mut self, fixtures: impl IntoIterator<Item = (&'a Polygon, f32)>) {
        self.mass = 0.0;
        self.inv_mass = 0.0;
        self.inertia = 0.0;
        self.inv_inertia = 0.0;
        self.sweep.local_center = Vec2::ZERO;

        let mut local_center = Vec2::ZERO;
        for (shape, density) in fixtures {
            if density == 0.0 {
                continue;
            }
            let md = shape.compute_mass(density);
            self.mass += md.mass;
            local_center += md.mass * md.center;
            self.inertia += md.inertia;
        }

        if self.mass > 0.0 {
            self.inv_mass = 1.0 / self.mass;
            local_center = self.inv_mass * local_center;
        } else {
            // Box2D forces every dynamic body to have positive mass.
            self.mass = 1.0;
            self.inv_mass = 1.0;
        }

        if self.inertia > 0.0 {
            // Shift the inertia from the body origin to the centre of mass.
            self.inertia -= self.mass * dot(local_center, local_center);
            self.inv_inertia = 1.0 / self.inertia;
        } else {
            self.inertia = 0.0;
            self.inv_inertia = 0.0;
        }

        let old_center = self.sweep.c;
        self.sweep.local_center = local_center;
        self.sweep.c = self.transform.apply(local_center);
        self.sweep.c0 = self.sweep.c;
        // Keep the velocity of the body origin unchanged.
        self.linear_velocity += cross_sv(self.angular_velocity, self.sweep.c - old_center);
    }

    /// Wakes the body or puts it to sleep (`b2Body::SetAwake`). Sleeping zeroes velocities and
    /// accumulated forces; waking a sleeping body restarts its rest timer.
    pub fn set_awake(&mut self, flag: bool) {
        if flag {
            if !self.awake {
                self.awake = true;
                self.sleep_time = 0.0;
            }
        } else {
            self.awake = false;
            self.sleep_time = 0.0;
            self.linear_velocity = Vec2::ZERO;
            self.angular_velocity = 0.0;
            self.force = Vec2::ZERO;
            self.torque = 0.0;
        }
    }

    /// Adds `force` (newtons) at the centre of mass (`b2Body::ApplyForceToCenter`). With `wake`
    /// a sleeping body is woken first; a body left asleep accumulates nothing.
    pub fn apply_force_to_center(&mut self, force: Vec2, wake: bool) {
        if wake && !self.awake {
            self.set_awake(true);
        }
        if self.awake {
            self.force += force;
        }
    }

    /// Rotates a body-local direction into world coordinates (`b2Body::GetWorldVector`).
    pub fn world_vector(&self, local: Vec2) -> Vec2 {
        self.transform.q.apply(local)
    }

    /// Maps a body-local point to world coordinates (`b2Body::GetWorldPoint`). World units.
    pub fn world_point(&self, local: Vec2) -> Vec2 {
        self.transform.apply(local)
    }

    /// Body origin, world coordinates (`b2Body::GetPosition`). World units.
    pub fn position(&self) -> Vec2 {
        self.transform.p
    }

    /// Body angle (`b2Body::GetAngle`). Radians.
    pub fn angle(&self) -> f32 {
        self.sweep.a
    }

    /// Rebuilds the transform from the sweep (`b2Body::SynchronizeTransform`).
    pub fn synchronize_transform(&mut self) {
        self.transform.q = Rot::new(self.sweep.a);
        self.transform.p = self.sweep.c - self.transform.q.apply(self.sweep.local_center);
    }
}
