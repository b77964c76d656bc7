//! The subset of Box2D 2.3 the car needs, in f32, with Box2D's order of floating-point operations
//! so that trajectories match pybox2d bit for bit.
//!
//! The car is a single island of dynamic bodies linked by revolute joints. There are no solid
//! contacts (wheel–hull pairs are filtered by their joints, wheel–wheel pairs by filter bits, and
//! road tiles are sensors handled by [`crate::sim::contact`]), so there is no contact solver, broad
//! phase or time of impact here: only bodies, polygons (for mass), revolute joints, the island
//! solver of `b2World::Step`, and the GJK overlap test Box2D runs on sensor contacts.
//!
//! The lowest part of `sim`: uses only `support` (the CPU check of the island solver's AVX2
//! copy), and nothing else of `sim`.
//!
//! - [`settings`]: Box2D's tuning constants (`b2Settings.h`).
//! - [`math`]: vectors, rotations, transforms and small matrix solves (`b2Math.h`).
//! - [`polygon`]: convex polygons and their mass (`b2PolygonShape`).
//! - [`body`]: rigid body state (`b2Body`).
//! - [`distance`]: GJK closest points and the sensor overlap test (`b2Distance`, `b2TestOverlap`).
//! - [`revolute`]: the revolute joint with motor and limit (`b2RevoluteJoint`).
//! - [`island`]: velocity/position solver for one island (`b2Island::Solve`).
//! - [`world`]: body and joint lists, island building, stepping and sleep (`b2World`).

pub mod body;
pub mod distance;
pub mod island;
pub mod math;
pub mod polygon;
pub mod revolute;
pub mod settings;
pub mod world;

pub use body::Body;
pub use math::{Rot, Transform, Vec2};
pub use polygon::{MassData, Polygon};
pub use revolute::{RevoluteJoint, RevoluteJointDef};
pub use world::World;
