//! Body and joint bookkeeping and the time step (`b2World::Step` / `b2World::Solve`), for
//! dynamic bodies linked only by revolute joints.
//!
//! Box2D prepends new bodies to the world's body list and new joint edges to each body's joint
//! list. Island building walks those lists depth first from the first awake body, which fixes
//! the joint order of the Gauss-Seidel sweeps; the same walk is reproduced here. For Gymnasium's
//! car (hull, then wheel i and its joint i for i = 0..3) the seed is wheel 3 and the joint order
//! is 3, 2, 1, 0.

use super::body::Body;
use super::island::{Island, TimeStep};
use super::math::Vec2;
use super::revolute::{RevoluteJoint, RevoluteJointDef};

/// A joint edge in a body's joint list (`b2JointEdge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct JointEdge {
    joint: usize,
    other: usize,
}

/// A physics world holding bodies and revolute joints (`b2World`).
#[derive(Debug, Clone)]
pub struct World {
    /// Bodies in creation order (Box2D's list order is the reverse).
    pub bodies: Vec<Body>,
    /// Joints in creation order.
    pub joints: Vec<RevoluteJoint>,
    /// Gravity. World units per second².
    pub gravity: Vec2,
    /// Whether resting islands may fall asleep.
    pub allow_sleep: bool,
    /// Whether joint impulses carry over between steps.
    pub warm_starting: bool,
    /// Inverse of the previous step's dt (0 before the first step). Per second.
    pub inv_dt0: f32,
    /// Each body's joint list, most recently created joint first.
    edges: Vec<Vec<JointEdge>>,
    island: Island,
    stack: Vec<usize>,
    body_flag: Vec<bool>,
    joint_flag: Vec<bool>,
}

impl World {
    /// An empty world with `gravity` (world units per second²), sleeping and warm starting on,
    /// as `b2World((0, 0))` creates it.
    pub fn new(gravity: Vec2) -> Self {
        World {
            bodies: Vec::new(),
            joints: Vec::new(),
            gravity,
            allow_sleep: true,
            warm_starting: true,
            inv_dt0: 0.0,
            edges: Vec::new(),
            island: Island::default(),
            stack: Vec::new(),
            body_flag: Vec::new(),
            joint_flag: Vec::new(),
        }
    }

    /// Adds a body; returns its index.
    pub fn create_body(&mut self, body: Body) -> usize {
        self.bodies.push(body);
        self.edges.push(Vec::new());
        self.resize_buffers();
        self.bodies.len() - 1
    }

    /// Adds a revolute joint (without waking its bodies, as in Box2D); returns its index.
    pub fn create_joint(&mut self, def: &RevoluteJointDef) -> usize {
        let index = self.joints.len();
        self.joints.push(RevoluteJoint::new(def));
        self.edges[def.body_a].insert(
            0,
            JointEdge {
                joint: index,
                other: def.body_b,
            },
        );
        self.edges[def.body_b].insert(
            0,
            JointEdge {
                joint: index,
                other: def.body_a,
            },
        );
        self.resize_buffers();
        index
    }

    /// Sizes the per-step buffers once, so stepping never allocates.
    fn resize_buffers(&mut self) {
        let (nb, nj) = (self.bodies.len(), self.joints.len());
        self.island = Island::with_capacity(nb, nj);
        self.stack = Vec::with_capacity(nb);
        self.body_flag = vec![false; nb];
        self.joint_flag = vec![false; nj];
    }

    /// Sets a joint's motor speed (radians per second), waking both bodies (`SetMotorSpeed`).
    pub fn set_motor_speed(&mut self, joint: usize, speed: f32) {
        let (a, b) = (self.joints[joint].body_a, self.joints[joint].body_b);
        self.bodies[a].set_awake(true);
        self.bodies[b].set_awake(true);
        self.joints[joint].motor_speed = speed;
    }

    /// The joint order of the last solved island (world joint indices), for tests.
    pub fn last_island_joints(&self) -> &[usize] {
        &self.island.joints
    }

    /// Advances the world by `dt` seconds (`b2World::Step`) and clears accumulated forces.
    pub fn step(&mut self, dt: f32, velocity_iterations: usize, position_iterations: usize) {
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { 0.0 };
        let step = TimeStep {
            dt,
            inv_dt,
            dt_ratio: self.inv_dt0 * dt,
            velocity_iterations,
            position_iterations,
            warm_starting: self.warm_starting,
        };
        if dt > 0.0 {
            self.solve(&step);
            self.inv_dt0 = inv_dt;
        }
        for b in &mut self.bodies {
            b.force = Vec2::ZERO;
            b.torque = 0.0;
        }
    }

    /// Builds each awake island by depth-first search over Box2D's list orders and solves it.
    fn solve(&mut self, step: &TimeStep) {
        self.body_flag.fill(false);
        self.joint_flag.fill(false);

        // Box2D's body list is newest first.
        for seed in (0..self.bodies.len()).rev() {
            if self.body_flag[seed] || !self.bodies[seed].awake {
                continue;
            }
            self.island.clear();
            self.stack.clear();
            self.stack.push(seed);
            self.body_flag[seed] = true;

            while let Some(b) = self.stack.pop() {
                self.island.add_body(b);
                self.bodies[b].set_awake(true);
                for edge in &self.edges[b] {
                    if self.joint_flag[edge.joint] {
                        continue;
                    }
                    self.island.add_joint(edge.joint);
                    self.joint_flag[edge.joint] = true;
                    if self.body_flag[edge.other] {
                        continue;
                    }
                    self.stack.push(edge.other);
                    self.body_flag[edge.other] = true;
                }
            }

            self.island.solve(
                &mut self.bodies,
                &mut self.joints,
                step,
                self.gravity,
                self.allow_sleep,
            );
        }
    }
}
