//! The solver for one island of bodies and joints (`b2Island::Solve`), without contacts.
//!
//! Same operations in the same order as Box2D 2.3, with one exact shortcut: the velocity sweeps
//! stop as soon as their state (velocities and accumulated impulses, bit for bit) repeats, after
//! running only the sweeps that land on the state the full count would reach. Most steps reach a
//! fixed point or a two-cycle within a few sweeps, which halves the cost of a car step.

use super::body::Body;
use super::math::{clamp, dot, min, Vec2};
use super::revolute::{RevoluteJoint, VelocityRow};
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
    /// Each island joint's sweep constants, in Gauss-Seidel order (rebuilt every step).
    rows: Vec<VelocityRow>,
    sweep: SweepBuffers,
}

/// Longest cycle of velocity-solver states that is detected. Sweeps reach a fixed point
/// (period 1) or a rounding two-cycle (period 2) in most steps.
const MAX_PERIOD: usize = 4;

/// Most bodies plus joints in one island: [`VelocityRow`] indexes the packed state by `u8`.
pub const MAX_ISLAND_ITEMS: usize = 256;

/// The velocity solver's packed state (see [`VelocityRow`]): one chunk of f32 bit patterns per
/// island body (`[v.x, v.y, w, 0]`), then one per island joint
/// (`[impulse.x, impulse.y, impulse.z, motor_impulse]`). Bit patterns, so that states compare
/// bit for bit as plain integers.
pub type SweepState = [[u32; 4]; MAX_ISLAND_ITEMS];

/// The velocity solver's working state and one saved earlier state to compare it with.
#[derive(Debug, Clone, Default)]
struct SweepBuffers {
    /// `[live, saved]`.
    states: Vec<SweepState>,
}

impl SweepBuffers {
    fn new() -> Self {
        SweepBuffers {
            states: vec![[[0; 4]; MAX_ISLAND_ITEMS]; 2],
        }
    }
}

impl Island {
    /// Buffers for up to `body_count` bodies and `joint_count` joints.
    ///
    /// Panics if they number more than [`MAX_ISLAND_ITEMS`] together.
    pub fn with_capacity(body_count: usize, joint_count: usize) -> Self {
        assert!(
            body_count + joint_count <= MAX_ISLAND_ITEMS,
            "an island holds at most {MAX_ISLAND_ITEMS} bodies and joints together"
        );
        Island {
            bodies: Vec::with_capacity(body_count),
            joints: Vec::with_capacity(joint_count),
            index_of: vec![0; body_count],
            positions: vec![Position::default(); body_count],
            velocities: vec![Velocity::default(); body_count],
            rows: Vec::with_capacity(joint_count),
            sweep: SweepBuffers::new(),
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

    /// Runs `step.velocity_iterations` Gauss-Seidel sweeps over the island's joints, as
    /// repeated calls of Box2D's `SolveVelocityConstraints` would, on the packed [`SweepState`].
    ///
    /// Exact shortcut: once the state after a sweep repeats the state `p` sweeps earlier, the
    /// remaining sweeps only walk that cycle, so only `(remaining mod p)` of them are run.
    fn solve_velocities(&mut self, joints: &mut [RevoluteJoint], step: &TimeStep) {
        #[cfg(target_arch = "x86_64")]
        if crate::support::cpu::has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked above).
            unsafe { self.solve_velocities_avx2(joints, step) };
            return;
        }
        self.solve_velocities_body(joints, step);
    }

    /// [`Island::solve_velocities`] compiled for AVX2. The sweeps are scalar f32 arithmetic;
    /// AVX2's three-operand (VEX) encoding drops many register copies (measured: the
    /// simulation -9% in instructions). No FMA: the same IEEE operations in the same order, so
    /// the same bits as the baseline build (and as Box2D).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn solve_velocities_avx2(&mut self, joints: &mut [RevoluteJoint], step: &TimeStep) {
        self.solve_velocities_body(joints, step);
    }

    #[inline(always)]
    fn solve_velocities_body(&mut self, joints: &mut [RevoluteJoint], step: &TimeStep) {
        let nb = self.bodies.len();
        let len = nb + self.joints.len();
        // `with_capacity` bounds bodies + joints by MAX_ISLAND_ITEMS, so chunk indices fit u8.
        let chunk = |i: usize| u8::try_from(i).expect("island chunk index fits u8");
        self.rows.clear();
        for (k, &ji) in self.joints.iter().enumerate() {
            let j = &joints[ji];
            let bodies = [
                chunk(self.index_of[j.body_a]),
                chunk(self.index_of[j.body_b]),
            ];
            self.rows.push(j.velocity_row(step, bodies, chunk(nb + k)));
        }

        let [live, saved] = &mut self.sweep.states[..] else {
            unreachable!("two sweep states")
        };
        for (dst, v) in live.iter_mut().zip(&self.velocities[..nb]) {
            *dst = [v.v.x.to_bits(), v.v.y.to_bits(), v.w.to_bits(), 0];
        }
        for (dst, &ji) in live[nb..].iter_mut().zip(&self.joints) {
            *dst = joints[ji].impulses().map(f32::to_bits);
        }

        // Exact shortcut: a sweep is a deterministic function of the state (body velocities and
        // accumulated impulses), so once the state after sweep `s + p` equals the state after
        // sweep `s`, the remaining sweeps only walk that cycle and only (remaining mod p) of
        // them need running.
        //
        // Candidates are found cheaply with one chunk per sweep, the probe: body A of the first
        // joint. The car's hull is body A of every joint, so its velocity is the last to settle
        // and almost never repeats before the whole state does. When the probe after sweep `s`
        // equals the probe `p` sweeps earlier, the state is saved and compared in full after
        // sweep `s + p`; only a full match cuts the sweeps short.
        let probe = usize::from(self.rows.first().map_or(0, VelocityRow::body_a_chunk));
        // The probe after sweep `k`, for the last MAX_PERIOD sweeps, at `k % MAX_PERIOD`.
        let mut probes = [[0u32; 4]; MAX_PERIOD];
        // (sweep whose state is compared with `saved`, period it would prove).
        let mut pending: Option<(usize, usize)> = None;
        let n = step.velocity_iterations;
        let mut done = 0;
        while done < n {
            for row in &self.rows {
                row.solve(live);
            }
            done += 1;

            if let Some((at, period)) = pending {
                if done == at {
                    pending = None;
                    if live[..len] == saved[..len] {
                        for _ in 0..(n - done) % period {
                            for row in &self.rows {
                                row.solve(live);
                            }
                        }
                        break;
                    }
                }
            }
            let now = live[probe];
            if pending.is_none() {
                // Probes of sweeps `done - p` for p = 1 ..= min(MAX_PERIOD, done - 1).
                for p in 1..MAX_PERIOD.min(done - 1) + 1 {
                    if probes[(done - p) % MAX_PERIOD] == now {
                        saved[..len].copy_from_slice(&live[..len]);
                        pending = Some((done + p, p));
                        break;
                    }
                }
            }
            probes[done % MAX_PERIOD] = now;
        }

        for (v, src) in self.velocities[..nb].iter_mut().zip(live.iter()) {
            let [x, y, w, _] = src.map(f32::from_bits);
            *v = Velocity {
                v: Vec2::new(x, y),
                w,
            };
        }
        for (src, &ji) in live[nb..].iter().zip(&self.joints) {
            joints[ji].set_impulses(src.map(f32::from_bits));
        }
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
        }
        self.solve_velocities(joints, step);

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
