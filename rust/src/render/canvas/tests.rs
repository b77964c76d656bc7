//! The canvas's drawing API, compositing and quantization.

use super::*;

const ID: Transform = Transform::identity();

#[test]
fn half_covered_pixel_blends_half() {
    let mut c = Canvas::new(2, 1);
    c.clear([0.0, 0.0, 200.0]);
    c.fill_polygon(
        &[[0.0, 0.0], [1.5, 0.0], [1.5, 1.0], [0.0, 1.0]],
        &ID,
        [100.0, 0.0, 0.0],
    );
    assert_eq!(c.pixels()[0], [100.0, 0.0, 0.0]);
    let p = c.pixels()[1];
    assert!((p[0] - 50.0).abs() < 1e-4 && (p[2] - 100.0).abs() < 1e-4);
}

#[test]
fn abutting_polygons_fill_seamlessly() {
    let mut c = Canvas::new(8, 8);
    c.clear([0.0, 255.0, 0.0]);
    // Two triangles sharing a diagonal, one layer: no green may leak along the seam.
    let (a, b, d, e) = ([0.3, 0.2], [7.7, 0.2], [7.7, 7.9], [0.3, 7.9]);
    c.push_polygon(&[a, b, d], &ID, [90.0, 90.0, 90.0]);
    c.push_polygon(&[a, d, e], &ID, [90.0, 90.0, 90.0]);
    c.composite_layer();
    for y in 1..7 {
        for x in 1..7 {
            let p = c.pixels()[y * 8 + x];
            assert!((p[1] - 90.0).abs() < 1e-3, "seam leak at ({x},{y}): {p:?}");
        }
    }
}

#[test]
fn rect_coverage_is_exact() {
    let mut c = Canvas::new(4, 4);
    c.fill_rect(0.5, 1.0, 3.0, 2.25, [255.0; 3]);
    let px = c.pixels().to_vec();
    let g = |x: usize, y: usize| px[y * 4 + x][0];
    assert_eq!(g(0, 1), 127.5);
    assert_eq!(g(1, 1), 255.0);
    assert_eq!(g(1, 2), 63.75);
    assert_eq!(g(3, 1), 0.0);
    assert_eq!(g(1, 0), 0.0);
}

#[test]
fn gray_image_area_averages() {
    // A 4x4 white block scaled by 1/2 fills 2x2 canvas pixels fully.
    let mut c = Canvas::new(3, 3);
    c.clear([10.0; 3]);
    c.draw_gray_image(&[255; 16], 4, 4, 0.5, 0.0, 0.5, 0.5);
    assert!((c.pixels()[0][0] - (0.5 * 255.0 + 5.0)).abs() < 1e-3);
    assert!((c.pixels()[1][0] - 255.0).abs() < 1e-3);
    assert!((c.pixels()[2][0] - (0.5 * 255.0 + 5.0)).abs() < 1e-3);
    assert!((c.pixels()[7][0] - 10.0).abs() < 1e-3);
}

#[test]
fn a_frame_beyond_the_layer_budget_bakes_and_gives_the_same_bytes() {
    // 60 overlapping anti-aliased layers (a video frame with skid marks has ~40), with
    // rects and a clip between them: bounded to MIN_LAYERS accumulators, the same bytes.
    let draw = |c: &mut Canvas| {
        c.clear([40.0, 50.0, 60.0]);
        for k in 0..60 {
            let (x, y) = (7.3 * k as f64 % 560.0, 5.1 * k as f64 % 360.0);
            let color = [(k * 37 % 256) as f32, (k * 91 % 256) as f32, 128.0];
            let pts = [[x, y], [x + 40.5, y + 3.25], [x + 31.0, y + 38.75]];
            c.fill_polygon(&pts, &ID, color);
            if k % 13 == 0 {
                c.fill_rect(x, y, x + 20.0, y + 9.5, [9.0, 200.0, 30.0]);
                c.set_clip_rows(300 + k);
            }
        }
        c.set_clip_rows(400);
    };
    let frame = |budget: usize| {
        let mut c = Canvas::new(600, 400);
        c.layer_budget = budget;
        draw(&mut c);
        let mut out = vec![0u8; 600 * 400 * 3];
        c.write_rgb8(&mut out, Quantizer::round());
        // A second frame on the same canvas reuses the same accumulators.
        draw(&mut c);
        let mut again = vec![0u8; 600 * 400 * 3];
        c.write_rgb8(&mut again, Quantizer::round());
        assert_eq!(out, again);
        (out, c.layers.len())
    };
    let (unbounded, many) = frame(usize::MAX);
    let (bounded, few) = frame(1);
    assert_eq!(many, 60);
    assert_eq!(few, MIN_LAYERS);
    assert!(unbounded == bounded, "baking changed the frame");
}

#[test]
fn pixels_read_and_quantize_as_drawn() {
    let mut c = Canvas::new(5, 3);
    c.clear([40.0, 50.0, 60.0]);
    c.fill_polygon(
        &[[1.5, 1.0], [3.0, 1.0], [3.0, 2.0], [1.5, 2.0]],
        &ID,
        [200.0, 0.0, 0.0],
    );
    c.fill_rect(0.0, 2.0, 5.0, 3.0, [9.0; 3]);
    let q = Quantizer::round();
    let mut out = vec![0u8; 5 * 3 * 3];
    let px = c.pixels().to_vec();
    c.write_rgb8(&mut out, q);
    let expect: Vec<u8> = px.as_flattened().iter().map(|&v| q.apply(v)).collect();
    assert_eq!(out, expect);
    assert_eq!(px[0], [40.0, 50.0, 60.0]);
    assert_eq!(px[5 + 1], [120.0, 25.0, 30.0]);
    assert_eq!(px[5 + 2], [200.0, 0.0, 0.0]);
    assert_eq!(px[5 + 4], [40.0, 50.0, 60.0]);
    assert_eq!(px[10], [9.0; 3]);
}

#[test]
fn opaque_rect_hides_rows_below_its_top() {
    let c = Canvas::new(4, 10);
    assert_eq!(c.opaque_rows_from(0.0, 7.5, 4.0, 10.0), 8);
    assert_eq!(c.opaque_rows_from(0.5, 7.5, 4.0, 10.0), 10);
    assert_eq!(c.opaque_rows_from(0.0, 7.0, 4.0, 9.0), 10);
}
