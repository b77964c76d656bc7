//! The accumulator's coverage and its two compositing paths.

use super::*;

fn coverage(acc: &mut Accumulator) -> Vec<f32> {
    let mut out = vec![0.0; acc.width() * acc.height()];
    let w = acc.width();
    acc.resolve(|x, y, c| out[y * w + x] = c[3]);
    out
}

#[test]
fn axis_aligned_rect_is_exact() {
    let mut acc = Accumulator::new(6, 5);
    acc.add_polygon(
        &[[1.25, 0.5], [4.5, 0.5], [4.5, 3.0], [1.25, 3.0]],
        [1.0; 3],
    );
    let cov = coverage(&mut acc);
    let expect_x = [0.0, 0.75, 1.0, 1.0, 0.5, 0.0];
    let expect_y = [0.5, 1.0, 1.0, 0.0, 0.0];
    for y in 0..5 {
        for x in 0..6 {
            let e = expect_x[x] * expect_y[y];
            assert!((cov[y * 6 + x] - e).abs() < 1e-5, "({x},{y})");
        }
    }
}

#[test]
fn orientation_does_not_matter() {
    let tri = [[0.2, 0.3], [3.7, 1.1], [1.4, 3.9]];
    let rev = [tri[2], tri[1], tri[0]];
    let mut a = Accumulator::new(4, 4);
    a.add_polygon(&tri, [1.0; 3]);
    let ca = coverage(&mut a);
    a.add_polygon(&rev, [1.0; 3]);
    let cb = coverage(&mut a);
    assert_eq!(ca, cb);
    let total: f32 = ca.iter().sum();
    let area = 0.5 * ((3.7 - 0.2) * (3.9 - 0.3) - (1.4 - 0.2) * (1.1 - 0.3)) as f32;
    assert!((total - area).abs() < 1e-4);
}

#[test]
fn clipped_polygon_keeps_inside_coverage() {
    let mut acc = Accumulator::new(4, 4);
    acc.add_polygon(
        &[[-3.0, -2.0], [2.5, -2.0], [2.5, 9.0], [-3.0, 9.0]],
        [1.0; 3],
    );
    let cov = coverage(&mut acc);
    for y in 0..4 {
        assert_eq!(&cov[y * 4..y * 4 + 4], &[1.0, 1.0, 0.5, 0.0]);
    }
}

#[test]
fn interior_resolves_as_one_uniform_span() {
    let mut acc = Accumulator::new(24, 4);
    acc.add_polygon(
        &[[1.5, 0.5], [20.5, 0.5], [20.5, 3.0], [1.5, 3.0]],
        [10.0, 20.0, 30.0],
    );
    let mut spans = Vec::new();
    acc.resolve_spans(|x, y, span| {
        if let Span::Uniform(n, v) = span {
            spans.push((x, y, n, v));
        }
    });
    // Rows 1 and 2: columns 3..20 (between the cells the side edges touch) are one fully
    // covered span each.
    for y in 1..3 {
        assert!(
            spans.contains(&(3, y, 17, [10.0, 20.0, 30.0, 1.0])),
            "{spans:?}"
        );
    }
    assert!(acc.is_empty() && coverage(&mut acc).iter().all(|&c| c == 0.0));
}

#[test]
fn compositing_onto_a_colour_equals_filling_then_compositing_over() {
    // Overlapping, partly clipped polygons of several colours (sums past full coverage too).
    let polys: [(&[[f32; 2]], [f32; 3]); 3] = [
        (&[[-2.0, 0.3], [7.3, 1.1], [5.5, 6.8]], [200.0, 10.0, 30.0]),
        (
            &[[3.2, -1.0], [11.0, 2.0], [9.5, 5.5], [2.5, 4.0]],
            [5.0, 250.0, 99.0],
        ),
        (
            &[[1.0, 2.0], [4.0, 2.0], [4.0, 9.0], [1.0, 9.0]],
            [200.0, 10.0, 30.0],
        ),
    ];
    let base = [102.0, 204.0, 102.0, 0.0];
    let (mut over, mut onto) = (Accumulator::new(10, 7), Accumulator::new(10, 7));
    for (pts, c) in polys {
        over.add_polygon(pts, c);
        onto.add_polygon(pts, c);
    }
    for y in 0..7 {
        let mut expect = vec![base; 10];
        over.composite_row_over(y, &mut expect);
        let mut got = vec![[f32::NAN; 4]; 10];
        onto.composite_row_onto(y, &mut got, base);
        let bits = |r: &[[f32; 4]]| -> Vec<u32> {
            r.iter()
                .flat_map(|p| p[..3].iter().map(|v| v.to_bits()))
                .collect()
        };
        assert_eq!(bits(&got), bits(&expect), "row {y}");
    }
    assert!(over.is_empty() && onto.is_empty());
}

proptest::proptest! {
    /// Random overlapping polygons (partly off the grid, several colours) composite to the
    /// same bits through the narrow-row path as through the general one.
    #[test]
    fn narrow_and_wide_rows_composite_alike(
        polys in proptest::collection::vec(
            (proptest::collection::vec((-8.0f32..40.0, -4.0f32..14.0), 3..7), 0usize..3),
            1..6,
        ),
        base in proptest::array::uniform3(0.0f32..255.0),
    ) {
        let colours = [[200.0, 10.0, 30.0], [5.0, 250.0, 99.0], [102.0, 102.0, 102.0]];
        let (mut narrow, mut wide) = (Accumulator::new(33, 10), Accumulator::new(33, 10));
        wide.wide_rows_only = true;
        for (pts, c) in &polys {
            let pts: Vec<[f32; 2]> = pts.iter().map(|&(x, y)| [x, y]).collect();
            narrow.add_polygon(&pts, colours[*c]);
            wide.add_polygon(&pts, colours[*c]);
        }
        let base = [base[0], base[1], base[2], 0.0];
        for y in 0..10 {
            let (mut a, mut b) = (vec![base; 33], vec![base; 33]);
            if y % 2 == 0 {
                narrow.composite_row_over(y, &mut a);
                wide.composite_row_over(y, &mut b);
            } else {
                narrow.composite_row_onto(y, &mut a, base);
                wide.composite_row_onto(y, &mut b, base);
            }
            let bits = |r: &[[f32; 4]]| -> Vec<u32> {
                r.iter().flat_map(|p| p[..3].iter().map(|v| v.to_bits())).collect()
            };
            proptest::prop_assert_eq!(bits(&a), bits(&b), "row {}", y);
        }
        proptest::prop_assert!(narrow.is_empty() && wide.is_empty());
        proptest::prop_assert!(narrow.cells.iter().all(|c| *c == [0.0; 4]));
        proptest::prop_assert!(narrow.touched.iter().all(|&w| w == 0));
    }
}

#[test]
fn clipped_rows_receive_nothing() {
    let mut acc = Accumulator::new(4, 4);
    acc.clip_rows(2);
    acc.add_polygon(&[[0.5, 0.0], [3.5, 0.0], [3.5, 4.0], [0.5, 4.0]], [1.0; 3]);
    let cov = coverage(&mut acc);
    assert_eq!(&cov[..8], &[0.5, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5]);
    assert!(cov[8..].iter().all(|&c| c == 0.0));
}
