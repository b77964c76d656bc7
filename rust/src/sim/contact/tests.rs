//! Sensor contacts: Box2D's skins, the tile grid against brute force and Box2D's oracle, events.

use super::*;
use crate::sim::physics::distance::test_overlap;

/// An axis-aligned square fixture with its corner at (x, y), unrotated body at the origin.
fn square(x: f32, y: f32, s: f32) -> Fixture {
    let polygon = Polygon::new(&[
        Vec2::new(x, y),
        Vec2::new(x + s, y),
        Vec2::new(x + s, y + s),
        Vec2::new(x, y + s),
    ]);
    Fixture::new(polygon, TILE_TRANSFORM)
}

fn quad(x: f64, y: f64, w: f64, h: f64) -> [[f64; 2]; 4] {
    [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
}

#[test]
fn tiles_are_stored_as_box2d_hulls() {
    // Gymnasium's order road1_l, road1_r, road2_r, road2_l; Set starts at the right-most.
    let t = Tile::new(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    assert_eq!(t.polygon.count, 4);
    assert_eq!(t.polygon.vertices[0], Vec2::new(1.0, 0.0));
    assert_eq!(t.aabb, [0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn skins_make_near_polygons_touch() {
    let tile = Tile::new(&quad(0.0, 0.0, 1.0, 1.0));
    assert!(touching(&tile, &square(0.5, 0.5, 1.0)), "overlapping");
    assert!(
        touching(&tile, &square(1.015, 0.0, 1.0)),
        "gap smaller than both skins"
    );
    assert!(
        !touching(&tile, &square(1.025, 0.0, 1.0)),
        "gap larger than both skins"
    );
    assert!(!touching(&tile, &square(3.0, 4.0, 1.0)));
}

#[test]
fn grid_finds_exactly_the_touching_tiles() {
    let quads: Vec<[[f64; 2]; 4]> = (0..50)
        .map(|i| quad(i as f64 * 3.0, 0.0, 3.0, 5.0))
        .collect();
    let grid = TileGrid::new(&quads);
    let mut out = Vec::new();
    grid.touching_tiles(&square(10.0, 1.0, 0.5), &mut out);
    assert_eq!(out, vec![3]);
    grid.touching_tiles(&square(8.8, 1.0, 0.5), &mut out);
    assert_eq!(out, vec![2, 3], "straddles the shared edge");
    grid.touching_tiles(&square(500.0, 1.0, 0.5), &mut out);
    assert!(out.is_empty());
}

/// The grid and the bounding-box prefilter never drop a pair that GJK alone calls
/// touching: compare with a brute-force scan on fixtures placed around tile boundaries,
/// far from the origin where f32 rounding is coarse.
#[test]
fn grid_matches_brute_force_near_boundaries() {
    // A fan of skewed quads around a circle of radius ~300, like a track's tiles.
    let quads: Vec<[[f64; 2]; 4]> = (0..64)
        .map(|i| {
            let a0 = i as f64 * 0.05;
            let a1 = a0 + 0.05;
            let p = |a: f64, r: f64| [r * a.cos() + 40.0, r * a.sin() - 20.0];
            [p(a0, 293.3), p(a0, 306.6), p(a1, 306.7), p(a1, 293.4)]
        })
        .collect();
    let grid = TileGrid::new(&quads);
    let wheel = Polygon::new(&[
        Vec2::new(-0.28, 0.54),
        Vec2::new(0.28, 0.54),
        Vec2::new(0.28, -0.54),
        Vec2::new(-0.28, -0.54),
    ]);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut uniform = move || {
        // SplitMix64, enough for test coverage.
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut out, mut touches) = (Vec::new(), 0);
    for _ in 0..20_000 {
        // Around an outer or inner edge or a seam between tiles, within ~0.6 + 0.04.
        let t = &quads[(uniform() * 64.0) as usize];
        let (e0, e1) = match (uniform() * 3.0) as usize {
            0 => (t[0], t[3]),
            1 => (t[1], t[2]),
            _ => (t[0], t[1]),
        };
        let s = uniform();
        let base = [e0[0] + s * (e1[0] - e0[0]), e0[1] + s * (e1[1] - e0[1])];
        let r = 0.58 + 0.08 * uniform();
        let phi = uniform() * std::f64::consts::TAU;
        let transform = Transform {
            p: Vec2::new(
                (base[0] + r * phi.cos()) as f32,
                (base[1] + r * phi.sin()) as f32,
            ),
            q: Rot::new((uniform() * 7.0) as f32),
        };
        let fixture = Fixture::new(wheel, transform);
        grid.touching_tiles(&fixture, &mut out);
        let brute: Vec<u32> = (0..grid.len() as u32)
            .filter(|&i| {
                test_overlap(
                    &grid.tiles()[i as usize].polygon,
                    &TILE_TRANSFORM,
                    &wheel,
                    &transform,
                )
            })
            .collect();
        assert_eq!(out, brute, "{transform:?}");
        touches += usize::from(!brute.is_empty());
    }
    assert!(touches > 1000, "too few touching samples: {touches}");
}

/// Replays pybox2d's `b2TestOverlap` and `b2Distance` on near-boundary fixture/tile pairs
/// recorded by `tools/overlap_oracle.py`: every answer, distance and witness point must be
/// identical, with the tile as shape A and (answer only) swapped.
#[test]
fn overlap_matches_box2d_oracle() {
    use crate::sim::car::Car;
    use crate::sim::physics::distance::{distance, DistanceInput, DistanceProxy, SimplexCache};

    const ORACLE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rust/tests/data/overlap_box2d.txt"
    ));
    let car_fixtures = Car::new(0.3, 10.0, -20.0).fixtures();
    let (mut tiles, mut cases, mut touching_cases) = (Vec::new(), 0, 0);
    for line in ORACLE.lines().filter(|l| !l.starts_with('#')) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let f = |i: usize| t[i].parse::<f32>().expect("f32");
        let vertices = |start: usize| -> Vec<Vec2> {
            let n: usize = t[start].parse().expect("count");
            (0..n)
                .map(|k| Vec2::new(f(start + 1 + 2 * k), f(start + 2 + 2 * k)))
                .collect()
        };
        match t[0] {
            "shape" => {
                let fixture: usize = t[1].parse().expect("fixture");
                assert_eq!(
                    car_fixtures[fixture].0.points(),
                    vertices(2),
                    "shape {fixture}"
                );
            }
            "tile" => {
                let d = |i: usize| t[i].parse::<f64>().expect("f64");
                let quad = std::array::from_fn(|k| [d(2 + 2 * k), d(3 + 2 * k)]);
                let tile = Tile::new(&quad);
                assert_eq!(tile.polygon.points(), vertices(10), "tile {}", t[1]);
                tiles.push(tile);
            }
            "case" => {
                let tile = &tiles[t[2].parse::<usize>().expect("tile")];
                let polygon = car_fixtures[t[3].parse::<usize>().expect("fixture")].0;
                let transform = Transform {
                    p: Vec2::new(f(4), f(5)),
                    q: Rot { s: f(6), c: f(7) },
                };
                let (ab, ba) = (t[8] == "1", t[9] == "1");
                let fixture = Fixture::new(polygon, transform);
                assert_eq!(touching(tile, &fixture), ab, "{line}");
                let swapped = test_overlap(&polygon, &transform, &tile.polygon, &TILE_TRANSFORM);
                assert_eq!(swapped, ba, "{line}");
                let input = DistanceInput {
                    proxy_a: DistanceProxy::polygon(&tile.polygon),
                    proxy_b: DistanceProxy::polygon(&polygon),
                    transform_a: TILE_TRANSFORM,
                    transform_b: transform,
                    use_radii: true,
                };
                let out = distance(&mut SimplexCache::default(), &input);
                let got = [
                    out.distance,
                    out.point_a.x,
                    out.point_a.y,
                    out.point_b.x,
                    out.point_b.y,
                ];
                let want = [f(10), f(12), f(13), f(14), f(15)];
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{line}");
                assert_eq!(out.iterations.to_string(), t[11], "{line}");
                cases += 1;
                touching_cases += usize::from(ab);
            }
            other => panic!("unknown record {other:?}"),
        }
    }
    assert!(
        cases >= 900 && touching_cases >= 300,
        "{cases} cases, {touching_cases} touching"
    );
}

#[test]
fn untracked_pairs_are_not_reported_and_leaving_tracking_ends_a_contact() {
    let grid = TileGrid::new(&[quad(0.0, 0.0, 3.0, 3.0)]);
    let mut set = ContactSet::default();
    let mut fixtures = [square(100.0, 100.0, 1.0); FIXTURES];
    fixtures[0] = square(1.0, 1.0, 0.5);
    fixtures[5] = square(1.5, 1.0, 0.5);
    // `state` says whether fixture 5's pairs are tracked.
    let mut step = |tracked_5: bool| {
        let mut events = Vec::new();
        let mut state = tracked_5;
        set.update_tracking(
            &grid,
            &fixtures,
            &mut state,
            |&t5, f, _| f != 5 || t5,
            |_, e| events.push(e),
        );
        events
    };
    let begin = |fixture| ContactEvent::Begin { fixture, tile: 0 };
    assert_eq!(step(false), vec![begin(0)]);
    assert_eq!(step(true), vec![begin(5)]);
    assert_eq!(
        step(false),
        vec![ContactEvent::End {
            fixture: 5,
            tile: 0
        }]
    );
    assert_eq!(step(false), vec![]);
}

#[test]
fn contact_set_reports_begin_and_end() {
    let grid = TileGrid::new(&[quad(0.0, 0.0, 3.0, 3.0)]);
    let mut set = ContactSet::default();
    let far = square(100.0, 100.0, 1.0);
    let mut fixtures = [far; FIXTURES];
    fixtures[0] = square(1.0, 1.0, 0.5);
    let mut events = Vec::new();
    set.update(&grid, &fixtures, |e| events.push(e));
    assert_eq!(
        events,
        vec![ContactEvent::Begin {
            fixture: 0,
            tile: 0
        }]
    );
    events.clear();
    fixtures[0] = far;
    set.update(&grid, &fixtures, |e| events.push(e));
    assert_eq!(
        events,
        vec![ContactEvent::End {
            fixture: 0,
            tile: 0
        }]
    );
}
