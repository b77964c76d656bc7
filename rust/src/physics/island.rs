//! The solver for one island of bodies and joints (`b2Island::Solve`), without contacts.
//!
//! Same operations in the same order as Box2D 2.3, with one exact shortcut: the velocity sweeps
//! stop as soon as their state (velocities and accumulated impulses, bit for bit) repeats, after
//! running only the sweeps that land on the state the full count would reach. Most steps reach a
//! fixed point or a two-cycle within a few sweeps, which halves the cost of a car step.

use super::body::Body;
use super::math::{clamp, dot, min, Vec2};
use super::revolute::RevoluteJoint;
use super::settings::{
    ANGULAR_SLEEP_TOLERANCE, LINEAR_SLEEP_TOLERANCE, MAX_FLOAT, MAX_ROTATION, MAX_ROTATION_SQUARED,
    MAX_TRANSLATION, MAX_TRANSLATION_SQUARED, TIME_TO_SLEEP,
};

/// Time-step parameters shared by all constraints (`b2TimeStep`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeStep {
    /// Step length. Seconds.
    pub dt: f32,
    /// Inverse step length (0 when `dt` is 0). Per second.
    pub inv_dt: f32,
    /// `dt` times the previous step's `inv_dt`: rescales warm-start impulses. Dimensionless.
    pub dt_ratio: f32,
    /// Gauss-Seidel passes over the velocity constraints.
    pub velocity_iterations: usize,
    /// Most passes over the position constraints (stops early once within slop).
    pub position_iterations: usize,
    /// Whether last step's impulses seed this step's.
    pub warm_starting: bool,
}

/// Solver copy of a body's centre-of-mass position (`b2Position`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Position {
    /// Centre of mass, world coordinates. World units.
    pub c: Vec2,
    /// Angle. Radians.
    pub a: f32,
}

/// Solver copy of a body's velocity (`b2Velocity`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Velocity {
    /// Linear velocity of the centre of mass. World units per second.
    pub v: Vec2,
    /// Angular velocity. Radians per second.
    pub w: f32,
}

/// What the joints read and write while solving velocities (`b2SolverData`).
#[derive(Debug)]
pub struct SolverData<'a> {
    pub step: TimeStep,
    /// Island positions (read-only while velocities are solved).
    pub positions: &'a [Position],
    pub velocities: &'a mut [Velocity],
}

/// Island membership and solver buffers, allocated once and reused every step.
#[derive(Debug, Clone, Default)]
pub struct Island {
    /// World indices of the island's bodies, in the order they were reached.
    pub bodies: Vec<usize>,
    /// World indices of the island's joints, in Gauss-Seidel order.
    pub joints: Vec<usize>,
    /// Island slot of each world body (valid for bodies in the island).
    pub index_of: Vec<usize>,
    positions: Vec<Position>,
    velocities: Vec<Velocity>,
    history: SweepHistory,
}

/// Longest cycle of velocity-solver states that is detected. Sweeps reach a fixed point
/// (period 1) or a rounding two-cycle (period 2) in most steps.
const MAX_PERIOD: usize = 4;

/// Bit patterns of the velocity solver's state after the last [`MAX_PERIOD`] sweeps.
///
/// A sweep is a deterministic function of the body velocities and the joints' accumulated
/// impulses, so a repeated state proves that the remaining sweeps cycle: skipping them gives
/// bit-identical results.
#[derive(Debug, Clone, Default)]
struct SweepHistory {
    /// `MAX_PERIOD` snapshots, ring-indexed by sweep number, then one scratch snapshot.
    bits: Vec<u32>,
    /// Words per snapshot.
    len: usize,
}

impl SweepHistory {
    fn with_capacity(body_count: usize, joint_count: usize) -> Self {
        let len = 3 * body_count + 4 * joint_count;
        SweepHistory {
            bits: vec![0; len * (MAX_PERIOD + 1)],
            len,
        }
    }

    /// Stores the state after sweep `sweep` (1-based) and returns the period if it equals the
    /// state after one of the previous `MAX_PERIOD` sweeps.
    fn record(
        &mut self,
        sweep: usize,
        velocities: &[Velocity],
        joints: &[RevoluteJoint],
        island_joints: &[usize],
    ) -> Option<usize> {
        let len = 3 * velocities.len() + 4 * island_joints.len();
        let (ring, scratch) = self.bits.split_at_mut(self.len * MAX_PERIOD);
        let snap = &mut scratch[..len];
        let mut k = 0;
        for v in velocities {
            snap[k..k + 3].copy_from_slice(&[v.v.x.to_bits(), v.v.y.to_bits(), v.w.to_bits()]);
            k += 3;
        }
        for &ji in island_joints {
            let j = &joints[ji];
            snap[k..k + 4].copy_from_slice(&[
                j.impulse.x.to_bits(),
                j.impulse.y.to_bits(),
                j.impulse.z.to_bits(),
                j.motor_impulse.to_bits(),
            ]);
            k += 4;
        }
        let slot = |s: usize| (s % MAX_PERIOD) * self.len;
        let found = (1..=MAX_PERIOD.min(sweep - 1)).find(|&p| {
            let start = slot(sweep - p);
            ring[start..start + len] == *snap
        });
        let start = slot(sweep);
        ring[start..start + len].copy_from_slice(snap);
        found
    }
}

impl Island {
    /// Buffers for up to `body_count` bodies and `joint_count` joints.
    pub fn with_capacity(body_count: usize, joint_count: usize) -> Self {
        Island {
            bodies: Vec::with_capacity(body_count),
            joints: Vec::with_capacity(joint_count),
            index_of: vec![0; body_count],
            positions: vec![Position::default(); body_count],
            velocities: vec![Velocity::default(); body_count],
            history: SweepHistory::with_capacity(body_count, joint_count),
        }
    }

    /// Empties the island, keeping its buffers.
    pub fn clear(&mut self) {
        self.bodies.clear();
        self.joints.clear();
    }

    /// Appends a body and records its island slot.
    pub fn add_body(&mut self, body: usize) {
        self.index_of[body] = self.bodies.len();
        self.bodies.push(body);
    }

    /// Appends a joint.
    pub fn add_joint(&mut self, joint: usize) {
        self.joints.push(joint);
    }

    /// Advances the island by one step: integrate forces, solve joint velocities, integrate
    /// positions (with Box2D's per-step translation and rotation caps), correct joint positions,
    /// write back, then let the whole island sleep once every body has rested long enough.
    pub fn solve(
        &mut self,
        bodies: &mut [Body],
        joints: &mut [RevoluteJoint],
        step: &TimeStep,
        gravity: Vec2,
        allow_sleep: bool,
    ) {
        let h = step.dt;

        for (slot, &bi) in self.bodies.iter().enumerate() {
            let b = &mut bodies[bi];
            let c = b.sweep.c;
            let a = b.sweep.a;
            let mut v = b.linear_velocity;
            let mut w = b.angular_velocity;
            b.sweep.c0 = b.sweep.c;
            b.sweep.a0 = b.sweep.a;

            // Every body here is dynamic.
            v += h * (b.gravity_scale * gravity + b.inv_mass * b.force);
            w += h * b.inv_inertia * b.torque;
            // Taylor-expanded exponential damping.
            v = clamp(1.0 - h * b.linear_damping, 0.0, 1.0) * v;
            w *= clamp(1.0 - h * b.angular_damping, 0.0, 1.0);

            self.positions[slot] = Position { c, a };
            self.velocities[slot] = Velocity { v, w };
        }

        {
            let mut data = SolverData {
                step: *step,
                positions: &self.positions,
                velocities: &mut self.velocities,
            };
            for &ji in &self.joints {
                joints[ji].init_velocity_constraints(bodies, &self.index_of, &mut data);
            }
            let n = step.velocity_iterations;
            let mut done = 0;
            while done < n {
                for &ji in &self.joints {
                    joints[ji].solve_velocity_constraints(&mut data);
                }
                done += 1;
                // Exact shortcut: once the sweep state repeats with period p, the remaining
                // sweeps only walk the cycle, so only (remaining mod p) of them need running.
                let repeat = self
                    .history
                    .record(done, data.velocities, joints, &self.joints);
                if let Some(period) = repeat {
                    let remaining = (n - done) % period;
                    for _ in 0..remaining {
                        for &ji in &self.joints {
                            joints[ji].solve_velocity_constraints(&mut data);
                        }
                    }
                    break;
                }
            }
        }

        for slot in 0..self.bodies.len() {
            let Position { mut c, mut a } = self.positions[slot];
            let Velocity { mut v, mut w } = self.velocities[slot];

            // Cap the motion per step so that a huge velocity cannot tunnel or explode.
            let translation = h * v;
            if dot(translation, translation) > MAX_TRANSLATION_SQUARED {
                let ratio = MAX_TRANSLATION / translation.length();
                v = ratio * v;
            }
            let rotation = h * w;
            if rotation * rotation > MAX_ROTATION_SQUARED {
                let ratio = MAX_ROTATION / rotation.abs();
                w *= ratio;
            }

            c += h * v;
            a += h * w;
            self.positions[slot] = Position { c, a };
            self.velocities[slot] = Velocity { v, w };
        }

        let mut position_solved = false;
        for _ in 0..step.position_iterations {
            // No contacts: the contact solver reports success (0 >= -3 * slop).
            let mut joints_okay = true;
            for &ji in &self.joints {
                let joint_okay = joints[ji].solve_position_constraints(&mut self.positions);
                joints_okay = joints_okay && joint_okay;
            }
            if joints_okay {
                position_solved = true;
                break;
            }
        }

        for (slot, &bi) in self.bodies.iter().enumerate() {
            let b = &mut bodies[bi];
            b.sweep.c = self.positions[slot].c;
            b.sweep.a = self.positions[slot].a;
            b.linear_velocity = self.velocities[slot].v;
            b.angular_velocity = self.velocities[slot].w;
            b.synchronize_transform();
        }

        if allow_sleep {
            let mut min_sleep_time = MAX_FLOAT;
            let lin_tol_sqr = LINEAR_SLEEP_TOLERANCE * LINEAR_SLEEP_TOLERANCE;
            let ang_tol_sqr = ANGULAR_SLEEP_TOLERANCE * ANGULAR_SLEEP_TOLERANCE;
            for &bi in &self.bodies {
                let b = &mut bodies[bi];
                if !b.auto_sleep
                    || b.angular_velocity * b.angular_velocity > ang_tol_sqr
                    || dot(b.linear_velocity, b.linear_velocity) > lin_tol_sqr
                {
                    b.sleep_time = 0.0;
                    min_sleep_time = 0.0;
                } else {
                    b.sleep_time += h;
                    min_sleep_time = min(min_sleep_time, b.sleep_time);
                }
            }
            if min_sleep_time >= TIME_TO_SLEEP && position_solved {
                for &bi in &self.bodies {
                    bodies[bi].set_awake(false);
                }
            }
        }
    }
}
