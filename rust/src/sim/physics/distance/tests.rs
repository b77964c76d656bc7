//! GJK distance and overlap: separations, skins, transforms.

use super::*;
use crate::sim::physics::math::Rot;

fn square(x: f32, y: f32, s: f32) -> Polygon {
    Polygon::new(&[
        Vec2::new(x, y),
        Vec2::new(x + s, y),
        Vec2::new(x + s, y + s),
        Vec2::new(x, y + s),
    ])
}

const IDENTITY: Transform = Transform {
    p: Vec2::ZERO,
    q: Rot { s: 0.0, c: 1.0 },
};

fn dist(a: &Polygon, b: &Polygon, use_radii: bool) -> DistanceOutput {
    let input = DistanceInput {
        proxy_a: DistanceProxy::polygon(a),
        proxy_b: DistanceProxy::polygon(b),
        transform_a: IDENTITY,
        transform_b: IDENTITY,
        use_radii,
    };
    distance(&mut SimplexCache::default(), &input)
}

#[test]
fn separated_squares() {
    let a = square(0.0, 0.0, 1.0);
    let b = square(3.0, 4.0, 1.0);
    let out = dist(&a, &b, false);
    assert!((out.distance - 13.0f32.sqrt()).abs() < 1e-6);
    assert_eq!(out.point_a, Vec2::new(1.0, 1.0));
    assert_eq!(out.point_b, Vec2::new(3.0, 4.0));
    let skinned = dist(&a, &b, true);
    assert!((skinned.distance - (13.0f32.sqrt() - 0.02)).abs() < 1e-6);
}

#[test]
fn overlapping_squares_are_at_zero() {
    let a = square(0.0, 0.0, 1.0);
    assert_eq!(dist(&a, &square(0.5, 0.25, 1.0), true).distance, 0.0);
    assert!(test_overlap(
        &a,
        &IDENTITY,
        &square(0.5, 0.25, 1.0),
        &IDENTITY
    ));
}

#[test]
fn skins_decide_near_contacts() {
    let a = square(0.0, 0.0, 1.0);
    assert!(test_overlap(
        &a,
        &IDENTITY,
        &square(1.015, 0.0, 1.0),
        &IDENTITY
    ));
    assert!(!test_overlap(
        &a,
        &IDENTITY,
        &square(1.025, 0.0, 1.0),
        &IDENTITY
    ));
}

#[test]
fn transforms_apply_inside_gjk() {
    let a = square(-0.5, -0.5, 1.0);
    let moved = Transform {
        p: Vec2::new(1.005, 0.0),
        q: Rot::new(0.0),
    };
    // Gap 0.005 < 0.02: touching; gap 0.1: not, until a 45° turn brings a corner in.
    assert!(test_overlap(&a, &IDENTITY, &a, &moved));
    let far = Transform {
        p: Vec2::new(1.1, 0.0),
        q: Rot::new(0.0),
    };
    assert!(!test_overlap(&a, &IDENTITY, &a, &far));
    let turned = Transform {
        p: Vec2::new(1.1, 0.0),
        q: Rot::new(std::f32::consts::FRAC_PI_4),
    };
    assert!(test_overlap(&a, &IDENTITY, &a, &turned));
}
