//! STUB (API contract): the car (hull + four wheels on revolute joints) and Gymnasium's tyre model.

use crate::scene::{CarDrawing, SkidMark};

/// Read-only snapshot of the car for tests and parity checks. Units: world units, radians, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CarState {
    pub hull_position: [f32; 2],
    pub hull_angle: f32,
    pub hull_linear_velocity: [f32; 2],
    pub hull_angular_velocity: f32,
    pub wheel_position: [[f32; 2]; 4],
    pub wheel_angle: [f32; 4],
    pub wheel_linear_velocity: [[f32; 2]; 4],
    pub wheel_angular_velocity: [f32; 4],
    /// Revolute joint angles (wheel angle relative to hull), as Box2D reports them.
    pub joint_angle: [f32; 4],
    /// Gymnasium's per-wheel Python floats.
    pub wheel_omega: [f64; 4],
    pub wheel_phase: [f64; 4],
    pub wheel_gas: [f64; 4],
    pub wheel_brake: [f64; 4],
    pub wheel_steer: [f64; 4],
}

/// A convex polygon in world coordinates (f32, as Box2D transforms it).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WorldPolygon {
    pub vertices: [[f32; 2]; 8],
    pub count: usize,
}

#[derive(Debug, Clone)]
pub struct Car {
    _private: (),
}

impl Car {
    /// Gymnasium's `Car(world, init_angle, init_x, init_y)`; arguments are Python floats.
    pub fn new(_init_angle: f64, _init_x: f64, _init_y: f64) -> Self {
        todo!()
    }
    /// `Car.steer(s)`: front wheels' target steering.
    pub fn steer(&mut self, _s: f64) {
        todo!()
    }
    /// `Car.gas(g)`: rear-wheel throttle (clipped to [0, 1], rising at most 0.1 per call).
    pub fn gas(&mut self, _g: f64) {
        todo!()
    }
    /// `Car.brake(b)`: all wheels.
    pub fn brake(&mut self, _b: f64) {
        todo!()
    }
    /// `Car.step(dt)`: steering motors, tyre forces and skid marks. `on_road[i]` says whether
    /// wheel i currently touches at least one road tile (full friction) or only grass (0.6).
    pub fn step(&mut self, _dt: f64, _on_road: [bool; 4]) {
        todo!()
    }
    /// The solver half of `world.Step(dt, 180, 60)`: integrate, solve joints, sleep.
    pub fn solve(&mut self, _dt: f32) {
        todo!()
    }
    /// The four hull fixtures then the four wheel fixtures, in world coordinates,
    /// as Box2D's sensor overlap test sees them.
    pub fn hull_polygons(&self) -> [WorldPolygon; 4] {
        todo!()
    }
    pub fn wheel_polygons(&self) -> [WorldPolygon; 4] {
        todo!()
    }
    pub fn state(&self) -> CarState {
        todo!()
    }
    /// The car's drawable geometry for the renderer.
    pub fn drawing(&self) -> CarDrawing {
        todo!()
    }
    /// Skid marks, oldest first (at most 30).
    pub fn skid_marks(&self) -> &[SkidMark] {
        todo!()
    }
}
