//! The revolute joint with motor and angle limit (`b2RevoluteJoint`).
//!
//! Point-to-point constraint plus an optional motor (target relative angular velocity, torque
//! limited) and an optional angle limit; solved with Box2D 2.3's sequential impulses, including
//! warm starting and the non-linear position correction.

use super::body::Body;
use super::island::{Position, SolverData, SweepState, TimeStep, Velocity};
use super::math::{clamp, cross, cross3, cross_sv, dot3, solve22, Mat33, Rot, Vec2, Vec3};
use super::settings::{ANGULAR_SLOP, LINEAR_SLOP, MAX_ANGULAR_CORRECTION};

/// Which side of the angle limit is active (`b2LimitState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitState {
    Inactive,
    AtLower,
    AtUpper,
    Equal,
}

/// Creation parameters (`b2RevoluteJointDef`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RevoluteJointDef {
    /// Index of body A in the world.
    pub body_a: usize,
    /// Index of body B in the world.
    pub body_b: usize,
    /// Anchor in body A's frame. World units.
    pub local_anchor_a: Vec2,
    /// Anchor in body B's frame. World units.
    pub local_anchor_b: Vec2,
    /// Angle of B relative to A that counts as zero joint angle. Radians.
    pub reference_angle: f32,
    pub enable_limit: bool,
    /// Lower joint angle limit. Radians.
    pub lower_angle: f32,
    /// Upper joint angle limit. Radians.
    pub upper_angle: f32,
    pub enable_motor: bool,
    /// Target relative angular velocity. Radians per second.
    pub motor_speed: f32,
    /// Largest motor torque. Newton world units.
    pub max_motor_torque: f32,
}

/// A revolute joint: definition, accumulated impulses, and per-step solver temporaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RevoluteJoint {
    /// Index of body A in the world.
    pub body_a: usize,
    /// Index of body B in the world.
    pub body_b: usize,
    /// Anchor in body A's frame. World units.
    pub local_anchor_a: Vec2,
    /// Anchor in body B's frame. World units.
    pub local_anchor_b: Vec2,
    /// Radians.
    pub reference_angle: f32,
    /// Accumulated point (x, y: newton seconds) and limit (z: newton world unit seconds) impulse.
    pub impulse: Vec3,
    /// Accumulated motor impulse. Newton world unit seconds.
    pub motor_impulse: f32,
    pub enable_motor: bool,
    /// Newton world units.
    pub max_motor_torque: f32,
    /// Radians per second.
    pub motor_speed: f32,
    pub enable_limit: bool,
    /// Radians.
    pub lower_angle: f32,
    /// Radians.
    pub upper_angle: f32,
    /// Limit state carried between steps (it decides whether the limit impulse is kept).
    pub limit_state: LimitState,

    // Solver temporaries, set by `init_velocity_constraints`.
    index_a: usize,
    index_b: usize,
    r_a: Vec2,
    r_b: Vec2,
    local_center_a: Vec2,
    local_center_b: Vec2,
    inv_mass_a: f32,
    inv_mass_b: f32,
    inv_i_a: f32,
    inv_i_b: f32,
    /// Effective mass of the point-to-point + limit constraint.
    mass: Mat33,
    /// Effective mass of the motor / limit angle constraint. Kilogram world units².
    motor_mass: f32,
}

impl RevoluteJoint {
    /// A joint with zero accumulated impulses (`b2RevoluteJoint` constructor).
    pub fn new(def: &RevoluteJointDef) -> Self {
        RevoluteJoint {
            body_a: def.body_a,
            body_b: def.body_b,
            local_anchor_a: def.local_anchor_a,
            local_anchor_b: def.local_anchor_b,
            reference_angle: def.reference_angle,
            impulse: Vec3::ZERO,
            motor_impulse: 0.0,
            enable_motor: def.enable_motor,
            max_motor_torque: def.max_motor_torque,
            motor_speed: def.motor_speed,
            enable_limit: def.enable_limit,
            lower_angle: def.lower_angle,
            upper_angle: def.upper_angle,
            limit_state: LimitState::Inactive,
            index_a: 0,
            index_b: 0,
            r_a: Vec2::ZERO,
            r_b: Vec2::ZERO,
            local_center_a: Vec2::ZERO,
            local_center_b: Vec2::ZERO,
            inv_mass_a: 0.0,
            inv_mass_b: 0.0,
            inv_i_a: 0.0,
            inv_i_b: 0.0,
            mass: Mat33::default(),
            motor_mass: 0.0,
        }
    }

    /// Current joint angle, B relative to A (`GetJointAngle`), from the bodies' sweeps. Radians.
    pub fn joint_angle(&self, bodies: &[Body]) -> f32 {
        bodies[self.body_b].sweep.a - bodies[self.body_a].sweep.a - self.reference_angle
    }

    /// Computes lever arms and effective masses, updates the limit state and applies the
    /// warm-start impulses scaled by the step ratio. `island_index[b]` is body b's slot in `data`.
    pub fn init_velocity_constraints(
        &mut self,
        bodies: &[Body],
        island_index: &[usize],
        data: &mut SolverData<'_>,
    ) {
        let body_a = &bodies[self.body_a];
        let body_b = &bodies[self.body_b];
        self.index_a = island_index[self.body_a];
        self.index_b = island_index[self.body_b];
        self.local_center_a = body_a.sweep.local_center;
        self.local_center_b = body_b.sweep.local_center;
        self.inv_mass_a = body_a.inv_mass;
        self.inv_mass_b = body_b.inv_mass;
        self.inv_i_a = body_a.inv_inertia;
        self.inv_i_b = body_b.inv_inertia;

        let a_a = data.positions[self.index_a].a;
        let Velocity {
            v: mut v_a,
            w: mut w_a,
        } = data.velocities[self.index_a];
        let a_b = data.positions[self.index_b].a;
        let Velocity {
            v: mut v_b,
            w: mut w_b,
        } = data.velocities[self.index_b];

        let q_a = Rot::new(a_a);
        let q_b = Rot::new(a_b);
        self.r_a = q_a.apply(self.local_anchor_a - self.local_center_a);
        self.r_b = q_b.apply(self.local_anchor_b - self.local_center_b);
        let (r_a, r_b) = (self.r_a, self.r_b);

        let (m_a, m_b) = (self.inv_mass_a, self.inv_mass_b);
        let (i_a, i_b) = (self.inv_i_a, self.inv_i_b);
        let fixed_rotation = i_a + i_b == 0.0;

        let m = &mut self.mass;
        m.ex.x = m_a + m_b + r_a.y * r_a.y * i_a + r_b.y * r_b.y * i_b;
        m.ey.x = -r_a.y * r_a.x * i_a - r_b.y * r_b.x * i_b;
        m.ez.x = -r_a.y * i_a - r_b.y * i_b;
        m.ex.y = m.ey.x;
        m.ey.y = m_a + m_b + r_a.x * r_a.x * i_a + r_b.x * r_b.x * i_b;
        m.ez.y = r_a.x * i_a + r_b.x * i_b;
        m.ex.z = m.ez.x;
        m.ey.z = m.ez.y;
        m.ez.z = i_a + i_b;

        self.motor_mass = i_a + i_b;
        if self.motor_mass > 0.0 {
            self.motor_mass = 1.0 / self.motor_mass;
        }

        if !self.enable_motor || fixed_rotation {
            self.motor_impulse = 0.0;
        }

        if self.enable_limit && !fixed_rotation {
            let joint_angle = a_b - a_a - self.reference_angle;
            if (self.upper_angle - self.lower_angle).abs() < 2.0 * ANGULAR_SLOP {
                self.limit_state = LimitState::Equal;
            } else if joint_angle <= self.lower_angle {
                if self.limit_state != LimitState::AtLower {
                    self.impulse.z = 0.0;
                }
                self.limit_state = LimitState::AtLower;
            } else if joint_angle >= self.upper_angle {
                if self.limit_state != LimitState::AtUpper {
                    self.impulse.z = 0.0;
                }
                self.limit_state = LimitState::AtUpper;
            } else {
                self.limit_state = LimitState::Inactive;
                self.impulse.z = 0.0;
            }
        } else {
            self.limit_state = LimitState::Inactive;
        }

        if data.step.warm_starting {
            // Rescale last step's impulses for a possibly different time step.
            let ratio = data.step.dt_ratio;
            self.impulse = Vec3::new(
                self.impulse.x * ratio,
                self.impulse.y * ratio,
                self.impulse.z * ratio,
            );
            self.motor_impulse *= ratio;

            let p = Vec2::new(self.impulse.x, self.impulse.y);
            v_a -= m_a * p;
            w_a -= i_a * (cross(r_a, p) + self.motor_impulse + self.impulse.z);
            v_b += m_b * p;
            w_b += i_b * (cross(r_b, p) + self.motor_impulse + self.impulse.z);
        } else {
            self.impulse = Vec3::ZERO;
            self.motor_impulse = 0.0;
        }

        data.velocities[self.index_a] = Velocity { v: v_a, w: w_a };
        data.velocities[self.index_b] = Velocity { v: v_b, w: w_b };
    }

    /// The constants of this joint's velocity sweeps, gathered after
    /// [`Self::init_velocity_constraints`]: its bodies' and its impulses' chunks in the island's
    /// packed [`SweepState`] (see [`VelocityRow`]) plus every value
    /// Box2D's `b2RevoluteJoint::SolveVelocityConstraints` reads but the sweeps never change,
    /// with the matrix determinants it would recompute on every call evaluated once (same
    /// operations on the same operands, so the same bits).
    pub fn velocity_row(
        &self,
        step: &TimeStep,
        body_chunks: [u8; 2],
        impulse_chunk: u8,
    ) -> VelocityRow {
        let fixed_rotation = self.inv_i_a + self.inv_i_b == 0.0;
        let m = &self.mass;
        // `Mat33::solve22`'s determinant.
        let mut det22 = m.ex.x * m.ey.y - m.ey.x * m.ex.y;
        if det22 != 0.0 {
            det22 = 1.0 / det22;
        }
        // `Mat33::solve33`'s determinant and its shared `ey x ez`.
        let ey_ez = cross3(m.ey, m.ez);
        let mut det33 = dot3(m.ex, ey_ez);
        if det33 != 0.0 {
            det33 = 1.0 / det33;
        }
        let limit =
            if self.enable_limit && self.limit_state != LimitState::Inactive && !fixed_rotation {
                self.limit_state
            } else {
                LimitState::Inactive
            };
        VelocityRow {
            a: body_chunks[0],
            b: body_chunks[1],
            impulse: impulse_chunk,
            m_a: self.inv_mass_a,
            m_b: self.inv_mass_b,
            i_a: self.inv_i_a,
            i_b: self.inv_i_b,
            r_a: self.r_a,
            r_b: self.r_b,
            motor: self.enable_motor && self.limit_state != LimitState::Equal && !fixed_rotation,
            motor_mass: self.motor_mass,
            motor_speed: self.motor_speed,
            max_impulse: step.dt * self.max_motor_torque,
            limit,
            mass: self.mass,
            det22,
            ey_ez,
            det33,
        }
    }

    /// The accumulated impulses in [`VelocityRow`]'s packed order.
    pub fn impulses(&self) -> [f32; 4] {
        [
            self.impulse.x,
            self.impulse.y,
            self.impulse.z,
            self.motor_impulse,
        ]
    }

    /// Stores impulses in [`VelocityRow`]'s packed order (the result of the sweeps).
    pub fn set_impulses(&mut self, [x, y, z, motor]: [f32; 4]) {
        self.impulse = Vec3::new(x, y, z);
        self.motor_impulse = motor;
    }

    /// One non-linear position correction pass (limit, then anchor points). Returns whether the
    /// joint is within `LINEAR_SLOP` and `ANGULAR_SLOP`.
    pub fn solve_position_constraints(&mut self, positions: &mut [Position]) -> bool {
        let Position {
            c: mut c_a,
            a: mut a_a,
        } = positions[self.index_a];
        let Position {
            c: mut c_b,
            a: mut a_b,
        } = positions[self.index_b];

        let mut angular_error = 0.0f32;
        let fixed_rotation = self.inv_i_a + self.inv_i_b == 0.0;

        if self.enable_limit && self.limit_state != LimitState::Inactive && !fixed_rotation {
            let angle = a_b - a_a - self.reference_angle;
            let mut limit_impulse = 0.0f32;
            match self.limit_state {
                LimitState::Equal => {
                    let c = clamp(
                        angle - self.lower_angle,
                        -MAX_ANGULAR_CORRECTION,
                        MAX_ANGULAR_CORRECTION,
                    );
                    limit_impulse = -self.motor_mass * c;
                    angular_error = c.abs();
                }
                LimitState::AtLower => {
                    let c = angle - self.lower_angle;
                    angular_error = -c;
                    // Allow some slop and avoid large corrections.
                    let c = clamp(c + ANGULAR_SLOP, -MAX_ANGULAR_CORRECTION, 0.0);
                    limit_impulse = -self.motor_mass * c;
                }
                LimitState::AtUpper => {
                    let c = angle - self.upper_angle;
                    angular_error = c;
                    let c = clamp(c - ANGULAR_SLOP, 0.0, MAX_ANGULAR_CORRECTION);
                    limit_impulse = -self.motor_mass * c;
                }
                LimitState::Inactive => {}
            }
            a_a -= self.inv_i_a * limit_impulse;
            a_b += self.inv_i_b * limit_impulse;
        }

        let q_a = Rot::new(a_a);
        let q_b = Rot::new(a_b);
        let r_a = q_a.apply(self.local_anchor_a - self.local_center_a);
        let r_b = q_b.apply(self.local_anchor_b - self.local_center_b);

        let c = c_b + r_b - c_a - r_a;
        let position_error = c.length();

        let (m_a, m_b) = (self.inv_mass_a, self.inv_mass_b);
        let (i_a, i_b) = (self.inv_i_a, self.inv_i_b);
        let k11 = m_a + m_b + i_a * r_a.y * r_a.y + i_b * r_b.y * r_b.y;
        let k12 = -i_a * r_a.x * r_a.y - i_b * r_b.x * r_b.y;
        let k22 = m_a + m_b + i_a * r_a.x * r_a.x + i_b * r_b.x * r_b.x;
        let impulse = -solve22(k11, k12, k12, k22, c);

        c_a -= m_a * impulse;
        a_a -= i_a * cross(r_a, impulse);
        c_b += m_b * impulse;
        a_b += i_b * cross(r_b, impulse);

        positions[self.index_a] = Position { c: c_a, a: a_a };
        positions[self.index_b] = Position { c: c_b, a: a_b };

        position_error <= LINEAR_SLOP && angular_error <= ANGULAR_SLOP
    }
}

/// One joint's share of a velocity sweep with everything constant hoisted out: the sweep loop
/// of [`super::island`] runs [`VelocityRow::solve`] up to 180 times per step per joint.
///
/// It works on the island's packed [`SweepState`]: one 4-word chunk of f32 bit patterns per
/// island body (`[v.x, v.y, w, 0]`) and per island joint
/// (`[impulse.x, impulse.y, impulse.z, motor_impulse]`), indexed by `u8` so that no access
/// needs a bounds check.
#[derive(Debug, Clone, Copy)]
pub struct VelocityRow {
    /// Chunks of body A's and body B's velocity and of this joint's impulses in the state.
    a: u8,
    b: u8,
    impulse: u8,
    /// Whether the motor is solved (`enable_motor && limit_state != Equal && !fixed_rotation`).
    motor: bool,
    /// The limit state when the limit is solved, `Inactive` when it is not
    /// (`!enable_limit || fixed_rotation` included).
    limit: LimitState,
    m_a: f32,
    m_b: f32,
    i_a: f32,
    i_b: f32,
    r_a: Vec2,
    r_b: Vec2,
    motor_mass: f32,
    motor_speed: f32,
    /// `dt * max_motor_torque`.
    max_impulse: f32,
    mass: Mat33,
    /// `Mat33::solve22`'s inverse determinant (0 when singular).
    det22: f32,
    /// `cross3(mass.ey, mass.ez)` and `Mat33::solve33`'s inverse determinant.
    ey_ez: Vec3,
    det33: f32,
}

impl VelocityRow {
    /// The state chunk of body A's velocity.
    pub fn body_a_chunk(&self) -> u8 {
        self.a
    }

    /// `Mat33::solve22` with the hoisted determinant.
    #[inline(always)]
    fn solve22(&self, b: Vec2) -> Vec2 {
        let m = &self.mass;
        let (a11, a12, a21, a22) = (m.ex.x, m.ey.x, m.ex.y, m.ey.y);
        let det = self.det22;
        Vec2::new(det * (a22 * b.x - a12 * b.y), det * (a11 * b.y - a21 * b.x))
    }

    /// `Mat33::solve33` with the hoisted determinant and `ey x ez`.
    fn solve33(&self, b: Vec3) -> Vec3 {
        let m = &self.mass;
        let det = self.det33;
        Vec3::new(
            det * dot3(b, self.ey_ez),
            det * dot3(m.ex, cross3(b, m.ez)),
            det * dot3(m.ex, cross3(m.ey, b)),
        )
    }

    /// One Gauss-Seidel pass of Box2D's `b2RevoluteJoint::SolveVelocityConstraints` (motor,
    /// then limit + point, or point alone) on the packed state: the same operations in the same
    /// order, so the same bits (`rust/tests/car_vs_box2d.rs`).
    #[inline(always)]
    pub fn solve(&self, state: &mut SweepState) {
        let (a, b, j) = (
            usize::from(self.a),
            usize::from(self.b),
            usize::from(self.impulse),
        );
        let [vax, vay, mut w_a, _] = state[a].map(f32::from_bits);
        let [vbx, vby, mut w_b, _] = state[b].map(f32::from_bits);
        let [ix, iy, iz, mut motor_impulse] = state[j].map(f32::from_bits);
        let mut v_a = Vec2::new(vax, vay);
        let mut v_b = Vec2::new(vbx, vby);
        let mut acc = Vec3::new(ix, iy, iz);
        let (m_a, m_b) = (self.m_a, self.m_b);
        let (i_a, i_b) = (self.i_a, self.i_b);
        let (r_a, r_b) = (self.r_a, self.r_b);

        if self.motor {
            let cdot = w_b - w_a - self.motor_speed;
            let mut impulse = -self.motor_mass * cdot;
            let old_impulse = motor_impulse;
            let max_impulse = self.max_impulse;
            // Clamping almost never bites (the car's motors hold the wheels' steering far
            // below their torque limit): a predicted branch lets the sweep go on without
            // waiting for the comparisons, where `min`/`max` would sit on the chain of
            // dependent operations from one row to the next. Same values as `clamp`.
            let candidate = motor_impulse + impulse;
            motor_impulse = if candidate < max_impulse && candidate > -max_impulse {
                candidate
            } else {
                saturate(candidate, max_impulse)
            };
            impulse = motor_impulse - old_impulse;
            w_a -= i_a * impulse;
            w_b += i_b * impulse;
        }

        if self.limit != LimitState::Inactive {
            (v_a, w_a, v_b, w_b, acc) = self.solve_limit(v_a, w_a, v_b, w_b, acc);
        } else {
            let mut cdot = v_b + cross_sv(w_b, r_b) - v_a - cross_sv(w_a, r_a);
            cdot.y = scalar_only(cdot.y);
            let mut impulse = self.solve22(-cdot);
            impulse.y = scalar_only(impulse.y);
            acc.x += impulse.x;
            acc.y += impulse.y;
            v_a -= m_a * impulse;
            w_a -= i_a * cross(r_a, impulse);
            v_b += m_b * impulse;
            w_b += i_b * cross(r_b, impulse);
        }

        state[a] = [v_a.x.to_bits(), v_a.y.to_bits(), w_a.to_bits(), 0];
        state[b] = [v_b.x.to_bits(), v_b.y.to_bits(), w_b.to_bits(), 0];
        state[j] = [acc.x, acc.y, acc.z, motor_impulse].map(f32::to_bits);
    }

    /// The limit + point constraint (an active limit is rare: kept out of line so that the
    /// common path keeps its values in registers).
    #[cold]
    #[inline(never)]
    fn solve_limit(
        &self,
        mut v_a: Vec2,
        mut w_a: f32,
        mut v_b: Vec2,
        mut w_b: f32,
        mut acc: Vec3,
    ) -> (Vec2, f32, Vec2, f32, Vec3) {
        let (m_a, m_b) = (self.m_a, self.m_b);
        let (i_a, i_b) = (self.i_a, self.i_b);
        let (r_a, r_b) = (self.r_a, self.r_b);
        let cdot1 = v_b + cross_sv(w_b, r_b) - v_a - cross_sv(w_a, r_a);
        let cdot2 = w_b - w_a;
        let cdot = Vec3::new(cdot1.x, cdot1.y, cdot2);
        let solved = self.solve33(cdot);
        let mut impulse = Vec3::new(-solved.x, -solved.y, -solved.z);

        // At a limit, an impulse that would pull the joint back off the limit is replaced by
        // the point constraint alone, releasing the accumulated limit impulse.
        let release = match self.limit {
            LimitState::AtLower => acc.z + impulse.z < 0.0,
            LimitState::AtUpper => acc.z + impulse.z > 0.0,
            LimitState::Equal | LimitState::Inactive => false,
        };
        if release {
            let rhs = -cdot1 + acc.z * Vec2::new(self.mass.ez.x, self.mass.ez.y);
            let reduced = self.solve22(rhs);
            impulse = Vec3::new(reduced.x, reduced.y, -acc.z);
            acc.x += reduced.x;
            acc.y += reduced.y;
            acc.z = 0.0;
        } else {
            acc.x += impulse.x;
            acc.y += impulse.y;
            acc.z += impulse.z;
        }

        let p = Vec2::new(impulse.x, impulse.y);
        v_a -= m_a * p;
        w_a -= i_a * (cross(r_a, p) + impulse.z);
        v_b += m_b * p;
        w_b += i_b * (cross(r_b, p) + impulse.z);
        (v_a, w_a, v_b, w_b, acc)
    }
}

/// `clamp(candidate, -max_impulse, max_impulse)` (Box2D's `b2Clamp`, NaN included), out of
/// line: the motor's rare saturated case.
#[cold]
#[inline(never)]
fn saturate(candidate: f32, max_impulse: f32) -> f32 {
    clamp(candidate, -max_impulse, max_impulse)
}

/// `x` unchanged, through an empty `asm!` the optimizer cannot see into. It keeps LLVM from
/// packing the x and y halves of the point constraint into one vector: the shuffles that needs
/// sit on the sweep's dependency chain. No instruction is emitted.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn scalar_only(mut x: f32) -> f32 {
    // SAFETY: the assembly is empty; it only claims to read and write the register.
    unsafe {
        std::arch::asm!("/* {0} */", inout(xmm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Elsewhere `x` as is: the barrier was measured on x86-64 only, and Miri cannot run inline
/// assembly (the value is the same either way; only LLVM's vectorization may differ).
#[cfg(any(not(target_arch = "x86_64"), miri))]
#[inline(always)]
fn scalar_only(x: f32) -> f32 {
    x
}
