//! The car and the indicator bar, drawn as Gymnasium draws them; the bar's rectangles land on
//! whole window pixels, as pygame's `draw.polygon` fills them.

use super::{
    CarDrawing, Indicators, HULL_COLOR, SIZE, WHEEL_COLOR, WHEEL_R, WHEEL_W, WHEEL_WHITE, WINDOW_H,
    WINDOW_W,
};
use crate::render::{Canvas, Transform};
use crate::sim::numpy_compat::np_sign;

/// pygame's `draw.polygon` of an axis-aligned quad with corners `(xa, ya)`, `(xb, yb)`
/// (window pixels): it truncates vertices and fills inclusively, so it covers the whole
/// pixels `[trunc(min), trunc(max) + 1)`. Returns that rectangle scaled by `(sx, sy)` to
/// output pixels, `[x0, y0, x1, y1]`.
pub(super) fn window_rect(xa: f64, ya: f64, xb: f64, yb: f64, sx: f64, sy: f64) -> [f64; 4] {
    let x0 = xa.min(xb).trunc();
    let x1 = (xa.max(xb).trunc() + 1.0).min(WINDOW_W);
    let y0 = ya.min(yb).trunc();
    let y1 = (ya.max(yb).trunc() + 1.0).min(WINDOW_H);
    [x0 * sx, y0 * sy, x1 * sx, y1 * sy]
}

/// The black background of the indicator bar across the bottom, output pixels.
pub(super) fn indicator_background(sx: f64, sy: f64) -> [f64; 4] {
    window_rect(
        0.0,
        WINDOW_H - 5.0 * WINDOW_H / 40.0,
        WINDOW_W,
        WINDOW_H,
        sx,
        sy,
    )
}

/// Wheels (black, with the grey tread stripe Gymnasium derives from the wheel phase), then
/// the red hull on top.
pub(super) fn draw_car(canvas: &mut Canvas, car: &CarDrawing, ts: &Transform) {
    let mut poly = [[0.0f64; 2]; 8];
    for wheel in &car.wheels {
        for (d, s) in poly.iter_mut().zip(wheel) {
            *d = [s[0] as f64, s[1] as f64];
        }
        canvas.push_polygon(&poly[..4], ts, WHEEL_COLOR);
    }
    canvas.composite_layer();

    for (phase, pose) in car.wheel_phase.iter().zip(&car.wheel_pose) {
        let (a1, a2) = (*phase, *phase + 1.2);
        let (s1, s2) = (a1.sin(), a2.sin());
        let (mut c1, mut c2) = (a1.cos(), a2.cos());
        if s1 > 0.0 && s2 > 0.0 {
            continue;
        }
        if s1 > 0.0 {
            c1 = np_sign(c1);
        }
        if s2 > 0.0 {
            c2 = np_sign(c2);
        }
        let (w, r) = (WHEEL_W * SIZE, WHEEL_R * SIZE);
        let local = [[-w, r * c1], [w, r * c1], [w, r * c2], [-w, r * c2]];
        let body = Transform::from_rotate(pose.1 as f64).then(&Transform::from_translate(
            pose.0[0] as f64,
            pose.0[1] as f64,
        ));
        for (d, s) in poly.iter_mut().zip(local) {
            *d = body.apply(s);
        }
        canvas.push_polygon(&poly[..4], ts, WHEEL_WHITE);
    }
    canvas.composite_layer();

    // The hull fixtures overlap each other; same colour, so the layer's union is exact inside.
    for (fix, &n) in car.hull.iter().zip(&car.hull_counts) {
        let n = n.min(8);
        for (d, s) in poly.iter_mut().zip(fix) {
            *d = [s[0] as f64, s[1] as f64];
        }
        canvas.push_polygon(&poly[..n], ts, HULL_COLOR);
    }
    canvas.composite_layer();
}

/// The bottom bar (Gymnasium's `_render_indicators`), in flipped window pixels. pygame's
/// `draw.polygon` truncates vertices and fills inclusively, so an axis-aligned quad covers the
/// whole pixels `[trunc(min), trunc(max) + 1)`; these are drawn exactly.
pub(super) fn draw_indicators(canvas: &mut Canvas, ind: &Indicators, sx: f64, sy: f64) {
    let (w, h) = (WINDOW_W, WINDOW_H);
    let s = w / 40.0;
    let hh = h / 40.0;
    let [x0, y0, x1, y1] = indicator_background(sx, sy);
    canvas.fill_rect(x0, y0, x1, y1, [0.0; 3]);
    let mut rect = |xa: f64, ya: f64, xb: f64, yb: f64, color: [f32; 3]| {
        let [x0, y0, x1, y1] = window_rect(xa, ya, xb, yb, sx, sy);
        canvas.fill_rect(x0, y0, x1, y1, color);
    };
    let mut vertical = |place: f64, val: f64, value: f64, color: [f32; 3]| {
        if value.abs() > 1e-4 {
            rect(
                place * s,
                h - (hh + hh * val),
                (place + 1.0) * s,
                h - hh,
                color,
            );
        }
    };
    vertical(
        5.0,
        0.02 * ind.true_speed,
        ind.true_speed,
        [255.0, 255.0, 255.0],
    );
    let om = ind.wheel_omega;
    vertical(7.0, 0.01 * om[0], om[0], [0.0, 0.0, 255.0]);
    vertical(8.0, 0.01 * om[1], om[1], [0.0, 0.0, 255.0]);
    vertical(9.0, 0.01 * om[2], om[2], [51.0, 0.0, 255.0]);
    vertical(10.0, 0.01 * om[3], om[3], [51.0, 0.0, 255.0]);
    let mut horizontal = |place: f64, val: f64, value: f64, color: [f32; 3]| {
        if value.abs() > 1e-4 {
            rect(
                place * s,
                h - 4.0 * hh,
                (place + val) * s,
                h - 2.0 * hh,
                color,
            );
        }
    };
    horizontal(
        20.0,
        -10.0 * ind.steer_angle,
        ind.steer_angle,
        [0.0, 255.0, 0.0],
    );
    horizontal(
        30.0,
        -0.8 * ind.hull_angular_velocity,
        ind.hull_angular_velocity,
        [255.0, 0.0, 0.0],
    );
}
