//! The car (hull + four wheels on revolute joints) and Gymnasium's tyre model
//! (`gymnasium/envs/box2d/car_dynamics.py`).
//!
//! Box2D state is f32 ([`crate::sim::physics`]); the tyre model runs in f64 exactly as the Python
//! does (NumPy scalars and Python floats), reading f32 values widened to f64 and handing forces
//! and motor speeds back rounded to f32, as pybox2d's bindings do.

use crate::sim::numpy_compat::np_sign;
use crate::sim::physics::{Body, Polygon, RevoluteJointDef, Transform, Vec2, World};
use crate::sim::scene::{CarDrawing, SkidMark};

/// Gymnasium's scale from its design units to world units.
const SIZE: f64 = 0.02;
/// Engine power. Watts in Gymnasium's units (`100000000 * SIZE * SIZE`).
const ENGINE_POWER: f64 = 100000000.0 * SIZE * SIZE;
/// Wheel moment of inertia used by the tyre model (`4000 * SIZE * SIZE`).
const WHEEL_MOMENT_OF_INERTIA: f64 = 4000.0 * SIZE * SIZE;
/// Tyre force limit on road (`1000000 * SIZE * SIZE`); 0.6 of it on grass. Newtons.
const FRICTION_LIMIT: f64 = 1000000.0 * SIZE * SIZE;
/// Gain from slip speed to tyre force (`205000 * SIZE * SIZE`). Newton seconds per world unit.
const SLIP_GAIN: f64 = 205000.0 * SIZE * SIZE;
/// Brake angular deceleration per step at full brake. Radians per second.
const BRAKE_FORCE: f64 = 15.0;
/// Wheel radius and half width, design units.
const WHEEL_R: f64 = 27.0;
const WHEEL_W: f64 = 14.0;
/// Wheel anchors on the hull, design units: front-left, front-right, rear-left, rear-right.
const WHEELPOS: [(f64, f64); 4] = [(-55.0, 80.0), (55.0, 80.0), (-55.0, -82.0), (55.0, -82.0)];
const HULL_POLY1: [(f64, f64); 4] = [(-60.0, 130.0), (60.0, 130.0), (60.0, 110.0), (-60.0, 110.0)];
const HULL_POLY2: [(f64, f64); 4] = [(-15.0, 120.0), (15.0, 120.0), (20.0, 20.0), (-20.0, 20.0)];
const HULL_POLY3: [(f64, f64); 8] = [
    (25.0, 20.0),
    (50.0, -10.0),
    (50.0, -40.0),
    (20.0, -90.0),
    (-20.0, -90.0),
    (-50.0, -40.0),
    (-50.0, -10.0),
    (-25.0, 20.0),
];
const HULL_POLY4: [(f64, f64); 4] = [
    (-50.0, -120.0),
    (50.0, -120.0),
    (50.0, -90.0),
    (-50.0, -90.0),
];
/// Skid mark colour on road.
const WHEEL_COLOR: [u8; 3] = [0, 0, 0];
/// Skid mark colour on grass.
const MUD_COLOR: [u8; 3] = [102, 102, 0];
/// Gymnasium keeps at most this many skid marks (`deque(maxlen=30)`), each at most this long.
const MAX_SKID_MARKS: usize = 30;
const MAX_SKID_POINTS: usize = 30;
/// `world.Step(1/FPS, 6 * 30, 2 * 30)`.
const VELOCITY_ITERATIONS: usize = 6 * 30;
const POSITION_ITERATIONS: usize = 2 * 30;

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

/// The skid mark a wheel is currently extending (Gymnasium's `w.skid_particle`). It may already
/// have left the 30-mark history; it is then still extended, invisibly, as in Python.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SkidTrace {
    /// Serial number of the mark (the n-th mark ever created by this car).
    id: u64,
    /// Whether the mark was started on grass.
    grass: bool,
    /// Points in the mark's polyline.
    len: usize,
}

/// Gymnasium's per-wheel Python attributes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct WheelControl {
    /// Throttle, 0..1 (rear wheels only).
    gas: f64,
    /// Brake, as given (>= 0.9 locks the wheel).
    brake: f64,
    /// Target steering joint angle (front wheels only). Radians.
    steer: f64,
    /// Rotation angle of the wheel about its axle. Radians.
    phase: f64,
    /// Spin rate about the axle. Radians per second.
    omega: f64,
    /// Whether a skid started last step (`w.skid_start is not None`). Gymnasium stores a live
    /// reference to the wheel's position, so only the flag matters.
    skid_start: bool,
    skid: Option<SkidTrace>,
}

/// Gymnasium's car: a hull and four wheels in their own Box2D world, plus the tyre model.
#[derive(Debug, Clone)]
pub struct Car {
    world: World,
    /// Hull fixtures, local coordinates, in creation order (`HULL_POLY1..4`).
    hull_shapes: [Polygon; 4],
    /// Wheel box, local coordinates.
    wheel_shape: Polygon,
    /// Wheel radius. World units.
    wheel_rad: f64,
    wheels: [WheelControl; 4],
    /// Visible skid marks, oldest first.
    marks: Vec<SkidMark>,
    /// Serial number of `marks[0]`.
    first_mark_id: u64,
}

/// World index of the hull body.
const HULL: usize = 0;
/// World index of wheel `i`'s body; wheel i's joint has world index i.
const fn wheel_body(i: usize) -> usize {
    1 + i
}

/// Design-unit points scaled by `SIZE` and rounded to f32, as pybox2d receives them.
fn scaled(points: &[(f64, f64)]) -> [Vec2; 8] {
    let mut out = [Vec2::ZERO; 8];
    for (dst, &(x, y)) in out.iter_mut().zip(points) {
        *dst = Vec2::new((x * SIZE) as f32, (y * SIZE) as f32);
    }
    out
}

fn world_polygon(body: &Body, shape: &Polygon) -> WorldPolygon {
    let mut out = WorldPolygon {
        vertices: [[0.0; 2]; 8],
        count: shape.count,
    };
    for (dst, &v) in out.vertices.iter_mut().zip(shape.points()) {
        *dst = body.world_point(v).to_array();
    }
    out
}

impl Car {
    /// Gymnasium's `Car(world, init_angle, init_x, init_y)`; arguments are Python floats.
    pub fn new(init_angle: f64, init_x: f64, init_y: f64) -> Self {
        let hull_shapes = [
            Polygon::new(&scaled(&HULL_POLY1)[..4]),
            Polygon::new(&scaled(&HULL_POLY2)[..4]),
            Polygon::new(&scaled(&HULL_POLY3)[..8]),
            Polygon::new(&scaled(&HULL_POLY4)[..4]),
        ];
        let front_k = 1.0f64;
        let wheel_poly = [
            (-WHEEL_W * front_k, WHEEL_R * front_k),
            (WHEEL_W * front_k, WHEEL_R * front_k),
            (WHEEL_W * front_k, -WHEEL_R * front_k),
            (-WHEEL_W * front_k, -WHEEL_R * front_k),
        ];
        let wheel_shape = Polygon::new(&scaled(&wheel_poly)[..4]);

        let mut world = World::new(Vec2::ZERO);
        let angle = init_angle as f32;

        let mut hull = Body::new(Vec2::new(init_x as f32, init_y as f32), angle);
        // Box2D sums mass over its fixture list, newest fixture first.
        hull.reset_mass_data(hull_shapes.iter().rev().map(|s| (s, 1.0f32)));
        let hull_index = world.create_body(hull);
        debug_assert_eq!(hull_index, HULL);

        for (i, &(wx, wy)) in WHEELPOS.iter().enumerate() {
            let position = Vec2::new((init_x + wx * SIZE) as f32, (init_y + wy * SIZE) as f32);
            let mut wheel = Body::new(position, angle);
            wheel.reset_mass_data([(&wheel_shape, 0.1f32)]);
            let body = world.create_body(wheel);
            debug_assert_eq!(body, wheel_body(i));
            world.create_joint(&RevoluteJointDef {
                body_a: HULL,
                body_b: body,
                local_anchor_a: Vec2::new((wx * SIZE) as f32, (wy * SIZE) as f32),
                local_anchor_b: Vec2::ZERO,
                reference_angle: 0.0,
                enable_limit: true,
                lower_angle: -0.4f64 as f32,
                upper_angle: 0.4f64 as f32,
                enable_motor: true,
                motor_speed: 0.0,
                max_motor_torque: (180.0 * 900.0 * SIZE * SIZE) as f32,
            });
        }

        Car {
            world,
            hull_shapes,
            wheel_shape,
            wheel_rad: front_k * WHEEL_R * SIZE,
            wheels: [WheelControl::default(); 4],
            marks: Vec::with_capacity(MAX_SKID_MARKS),
            first_mark_id: 0,
        }
    }

    /// `Car.steer(s)`: front wheels' target steering.
    pub fn steer(&mut self, s: f64) {
        self.wheels[0].steer = s;
        self.wheels[1].steer = s;
    }

    /// `Car.gas(g)`: rear-wheel throttle (clipped to [0, 1], rising at most 0.1 per call).
    pub fn gas(&mut self, g: f64) {
        // np.clip(g, 0, 1); NaN passes through as in NumPy.
        let g = g.clamp(0.0, 1.0);
        for w in &mut self.wheels[2..4] {
            let mut diff = g - w.gas;
            if diff > 0.1 {
                diff = 0.1; // gradually increase, but stop immediately
            }
            w.gas += diff;
        }
    }

    /// `Car.brake(b)`: all wheels.
    pub fn brake(&mut self, b: f64) {
        for w in &mut self.wheels {
            w.brake = b;
        }
    }

    /// `Car.step(dt)`: steering motors, tyre forces and skid marks. `on_road[i]` says whether
    /// wheel i currently touches at least one road tile (full friction) or only grass (0.6).
    pub fn step(&mut self, dt: f64, on_road: [bool; 4]) {
        for (i, &road) in on_road.iter().enumerate() {
            let body = wheel_body(i);

            // Steer towards the target joint angle.
            let joint_angle = f64::from(self.world.joints[i].joint_angle(&self.world.bodies));
            let steer = self.wheels[i].steer;
            let dir = np_sign(steer - joint_angle);
            let val = (steer - joint_angle).abs();
            let speed = 50.0 * val;
            let speed = if 3.0 < speed { 3.0 } else { speed };
            self.world.set_motor_speed(i, (dir * speed) as f32);

            let grass = !road;
            let mut friction_limit = FRICTION_LIMIT * 0.6;
            if road {
                // max(friction_limit, FRICTION_LIMIT * tile.road_friction), road_friction = 1.0.
                let road = FRICTION_LIMIT * 1.0;
                if road > friction_limit {
                    friction_limit = road;
                }
            }

            let wheel = &self.world.bodies[body];
            let forw = wheel.world_vector(Vec2::new(0.0, 1.0));
            let side = wheel.world_vector(Vec2::new(1.0, 0.0));
            let (forw, side) = (
                [f64::from(forw.x), f64::from(forw.y)],
                [f64::from(side.x), f64::from(side.y)],
            );
            let v = [
                f64::from(wheel.linear_velocity.x),
                f64::from(wheel.linear_velocity.y),
            ];
            let position = [
                f64::from(wheel.transform.p.x),
                f64::from(wheel.transform.p.y),
            ];
            let vf = forw[0] * v[0] + forw[1] * v[1]; // forward speed
            let vs = side[0] * v[0] + side[1] * v[1]; // side speed

            let w = &mut self.wheels[i];
            // Engine power into wheel spin (+5 avoids dividing by zero).
            w.omega += dt * ENGINE_POWER * w.gas / WHEEL_MOMENT_OF_INERTIA / (w.omega.abs() + 5.0);

            if w.brake >= 0.9 {
                w.omega = 0.0;
            } else if w.brake > 0.0 {
                let dir = -np_sign(w.omega);
                let mut val = BRAKE_FORCE * w.brake;
                if val.abs() > w.omega.abs() {
                    val = w.omega.abs(); // low speed => same as = 0
                }
                w.omega += dir * val;
            }
            w.phase += w.omega * dt;

            let vr = w.omega * self.wheel_rad; // rotating wheel speed
            let mut f_force = -vf + vr;
            let mut p_force = -vs;
            f_force *= SLIP_GAIN;
            p_force *= SLIP_GAIN;
            let mut force = (f_force * f_force + p_force * p_force).sqrt();

            // Skid trace.
            if force.abs() > 2.0 * friction_limit {
                match w.skid {
                    Some(ref mut trace) if trace.grass == grass && trace.len < MAX_SKID_POINTS => {
                        trace.len += 1;
                        let id = trace.id;
                        Self::extend_mark(&mut self.marks, self.first_mark_id, id, position);
                    }
                    _ if !w.skid_start => w.skid_start = true,
                    _ => {
                        let id = Self::create_mark(
                            &mut self.marks,
                            &mut self.first_mark_id,
                            position,
                            grass,
                        );
                        w.skid = Some(SkidTrace { id, grass, len: 2 });
                        w.skid_start = false;
                    }
                }
            } else {
                w.skid_start = false;
                w.skid = None;
            }

            if force.abs() > friction_limit {
                f_force /= force;
                p_force /= force;
                force = friction_limit;
                f_force *= force;
                p_force *= force;
            }

            w.omega -= dt * f_force * self.wheel_rad / WHEEL_MOMENT_OF_INERTIA;

            let applied = Vec2::new(
                (p_force * side[0] + f_force * forw[0]) as f32,
                (p_force * side[1] + f_force * forw[1]) as f32,
            );
            self.world.bodies[body].apply_force_to_center(applied, true);
        }
    }

    /// Appends `position` to mark `id` if it is still among the visible marks.
    fn extend_mark(marks: &mut [SkidMark], first_id: u64, id: u64, position: [f64; 2]) {
        if id >= first_id {
            if let Some(mark) = marks.get_mut((id - first_id) as usize) {
                mark.points.push(position);
            }
        }
    }

    /// Gymnasium's `_create_particle(w.skid_start, w.position, grass)`: both points are the
    /// wheel's current position (pybox2d's `position` is a live reference). Evicts the oldest
    /// mark beyond 30, reusing its buffer so that steady-state stepping never allocates.
    fn create_mark(
        marks: &mut Vec<SkidMark>,
        first_id: &mut u64,
        position: [f64; 2],
        grass: bool,
    ) -> u64 {
        let color = if grass { MUD_COLOR } else { WHEEL_COLOR };
        let mut points = if marks.len() == MAX_SKID_MARKS {
            *first_id += 1;
            let mut old = marks.remove(0).points;
            old.clear();
            old
        } else {
            Vec::with_capacity(MAX_SKID_POINTS)
        };
        points.push(position);
        points.push(position);
        marks.push(SkidMark { color, points });
        *first_id + marks.len() as u64 - 1
    }

    /// The solver half of `world.Step(dt, 180, 60)`: integrate, solve joints, sleep.
    pub fn solve(&mut self, dt: f32) {
        self.world
            .step(dt, VELOCITY_ITERATIONS, POSITION_ITERATIONS);
    }

    /// The four hull fixtures then the four wheel fixtures, in world coordinates,
    /// as Box2D's sensor overlap test sees them.
    ///
    /// Hull fixtures come in creation order (`HULL_POLY1..4`), which is also pybox2d's
    /// `hull.fixtures` order and Gymnasium's draw order.
    pub fn hull_polygons(&self) -> [WorldPolygon; 4] {
        let hull = &self.world.bodies[HULL];
        self.hull_shapes.map(|s| world_polygon(hull, &s))
    }

    /// Wheel boxes in world coordinates: front-left, front-right, rear-left, rear-right.
    pub fn wheel_polygons(&self) -> [WorldPolygon; 4] {
        std::array::from_fn(|i| world_polygon(&self.world.bodies[wheel_body(i)], &self.wheel_shape))
    }

    /// Every fixture as Box2D's sensor test sees it: the local polygon (as
    /// `b2PolygonShape::Set` stored it) and its body's current transform (`m_xf`; world units).
    /// Wheels 0–3 first, then the hull fixtures in creation order (`HULL_POLY1..4`), the order
    /// [`crate::sim::contact`] numbers fixtures in.
    pub fn fixtures(&self) -> [(Polygon, Transform); 8] {
        let bodies = &self.world.bodies;
        std::array::from_fn(|f| {
            if f < 4 {
                (self.wheel_shape, bodies[wheel_body(f)].transform)
            } else {
                (self.hull_shapes[f - 4], bodies[HULL].transform)
            }
        })
    }

    pub fn state(&self) -> CarState {
        let bodies = &self.world.bodies;
        let hull = &bodies[HULL];
        let wheel = |i: usize| &bodies[wheel_body(i)];
        CarState {
            hull_position: hull.position().to_array(),
            hull_angle: hull.angle(),
            hull_linear_velocity: hull.linear_velocity.to_array(),
            hull_angular_velocity: hull.angular_velocity,
            wheel_position: std::array::from_fn(|i| wheel(i).position().to_array()),
            wheel_angle: std::array::from_fn(|i| wheel(i).angle()),
            wheel_linear_velocity: std::array::from_fn(|i| wheel(i).linear_velocity.to_array()),
            wheel_angular_velocity: std::array::from_fn(|i| wheel(i).angular_velocity),
            joint_angle: std::array::from_fn(|i| self.world.joints[i].joint_angle(bodies)),
            wheel_omega: self.wheels.map(|w| w.omega),
            wheel_phase: self.wheels.map(|w| w.phase),
            wheel_gas: self.wheels.map(|w| w.gas),
            wheel_brake: self.wheels.map(|w| w.brake),
            wheel_steer: self.wheels.map(|w| w.steer),
        }
    }

    /// The car's drawable geometry for the renderer.
    pub fn drawing(&self) -> CarDrawing {
        let hull = self.hull_polygons();
        let wheels = self.wheel_polygons();
        CarDrawing {
            hull: hull.map(|p| p.vertices),
            hull_counts: hull.map(|p| p.count),
            wheels: wheels.map(|p| [p.vertices[0], p.vertices[1], p.vertices[2], p.vertices[3]]),
            wheel_phase: self.wheels.map(|w| w.phase),
            wheel_pose: std::array::from_fn(|i| {
                let b = &self.world.bodies[wheel_body(i)];
                (b.position().to_array(), b.angle())
            }),
        }
    }

    /// Skid marks, oldest first (at most 30).
    pub fn skid_marks(&self) -> &[SkidMark] {
        &self.marks
    }

    /// Whether the hull is awake (an island that rested 0.5 s falls asleep after a step).
    pub fn is_awake(&self) -> bool {
        self.world.bodies[HULL].awake
    }

    /// The car's physics world (bodies: hull, then wheels 0..3; joints: wheel 0..3), for tests.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Carries Box2D's `m_inv_dt0` (per second) over from a previous car's world, as
    /// Gymnasium's world outlives its cars. New joints start with zero impulses, so this only
    /// rescales zeros; it exists for completeness.
    pub fn set_previous_inv_dt(&mut self, inv_dt0: f32) {
        self.world.inv_dt0 = inv_dt0;
    }
}
