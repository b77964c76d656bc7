//! Exact area-coverage rasterization by signed-area accumulation (as font rasterizers do).
//!
//! Each polygon edge deposits, into the cells of the rows it crosses, the signed area it
//! sweeps; a running sum along each row then yields every pixel's exact coverage. Cells carry
//! colour-weighted coverage `[r·a, g·a, b·a, a]`, so a whole layer of abutting polygons with
//! different colours resolves in one pass without leaking what lies below at shared edges.

/// `ceil` of a non-negative value as an index, without a libm call.
#[inline]
fn ceil_usize(v: f32) -> usize {
    let i = v as usize;
    if (i as f32) < v {
        i + 1
    } else {
        i
    }
}

/// Accumulates polygons at pixel resolution. Coordinates are pixels; pixel `(x, y)` spans
/// `[x, x + 1) × [y, y + 1)`.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    width: usize,
    height: usize,
    /// Row stride `width + 2`: edges clamped to the right border deposit into two spare cells.
    cells: Vec<[f32; 4]>,
    /// Dirty bounding box (cells), so resolving touches only what was drawn.
    x_min: usize,
    x_max: usize,
    y_min: usize,
    y_max: usize,
}

impl Accumulator {
    /// An accumulator for a `width`×`height` pixel grid.
    pub fn new(width: usize, height: usize) -> Self {
        let mut a = Self::default();
        a.resize(width, height);
        a
    }

    /// Resizes (and clears) the grid; reuses the allocation when it is large enough.
    pub fn resize(&mut self, width: usize, height: usize) {
        self.width = width;
        self.height = height;
        self.cells.clear();
        self.cells.resize((width + 2) * height, [0.0; 4]);
        self.reset_bbox();
    }

    fn reset_bbox(&mut self) {
        self.x_min = usize::MAX;
        self.x_max = 0;
        self.y_min = usize::MAX;
        self.y_max = 0;
    }

    /// Grid width, pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Grid height, pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether nothing has been accumulated since the last resolve.
    pub fn is_empty(&self) -> bool {
        self.y_min > self.y_max
    }

    /// Adds a closed polygon (implicitly closed; either orientation) with colour `color`
    /// (0–255 per channel). Overlapping polygons add up; see [`Accumulator::resolve`].
    pub fn add_polygon(&mut self, pts: &[[f32; 2]], color: [f32; 3]) {
        let n = pts.len();
        if n < 3 {
            return;
        }
        // Normalise orientation so that the interior accumulates +1 coverage.
        let mut area2 = 0.0f32;
        let (mut lo_x, mut hi_x, mut lo_y, mut hi_y) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for i in 0..n {
            let p = pts[i];
            let q = pts[(i + 1) % n];
            area2 += (q[0] - p[0]) * (q[1] + p[1]);
            lo_x = lo_x.min(p[0]);
            hi_x = hi_x.max(p[0]);
            lo_y = lo_y.min(p[1]);
            hi_y = hi_y.max(p[1]);
        }
        // Cheap cull: a closed polygon entirely left of, right of, above or below the grid
        // covers no pixel (left of it, its winding cancels before column 0).
        let (w, h) = (self.width as f32, self.height as f32);
        if area2 == 0.0 || lo_x >= w || hi_x <= 0.0 || hi_y <= 0.0 || lo_y >= h || lo_y >= hi_y {
            return;
        }
        // A positive sum means left edges run downwards, which accumulates +1 inside.
        let sign = if area2 > 0.0 { 1.0 } else { -1.0 };
        let wgt = [color[0] * sign, color[1] * sign, color[2] * sign, sign];
        self.x_min = self.x_min.min(lo_x.max(0.0) as usize);
        self.x_max = self.x_max.max(ceil_usize(hi_x.max(0.0)).min(self.width));
        self.y_min = self.y_min.min(lo_y.max(0.0) as usize);
        self.y_max = self
            .y_max
            .max(ceil_usize(hi_y).min(self.height).saturating_sub(1));
        for i in 0..n {
            self.add_line(pts[i], pts[(i + 1) % n], wgt);
        }
    }

    /// Deposits the signed area swept by one edge, clamped horizontally into `[0, width]`
    /// (a clamped part becomes a vertical edge on the border, which covers the same pixels).
    fn add_line(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        let w = self.width as f32;
        if p0[1] == p1[1] {
            return;
        }
        // Split at the vertical borders so each piece lies within one clamp regime.
        let (x0, x1) = (p0[0], p1[0]);
        for border in [0.0, w] {
            if (x0 < border && x1 > border) || (x0 > border && x1 < border) {
                let t = (border - x0) / (x1 - x0);
                let m = [border, p0[1] + t * (p1[1] - p0[1])];
                self.add_line(p0, m, wgt);
                self.add_line(m, p1, wgt);
                return;
            }
        }
        let c0 = [p0[0].clamp(0.0, w), p0[1]];
        let c1 = [p1[0].clamp(0.0, w), p1[1]];
        self.add_clamped_line(c0, c1, wgt);
    }

    /// font-rs style accumulation of an edge with x already in `[0, width]`.
    fn add_clamped_line(&mut self, p0: [f32; 2], p1: [f32; 2], wgt: [f32; 4]) {
        let (dir, p0, p1) = if p0[1] < p1[1] {
            (1.0f32, p0, p1)
        } else {
            (-1.0f32, p1, p0)
        };
        let stride = self.width + 2;
        let dxdy = (p1[0] - p0[0]) / (p1[1] - p0[1]);
        let mut x = p0[0];
        if p0[1] < 0.0 {
            x -= p0[1] * dxdy;
        }
        let y_start = p0[1].max(0.0) as usize;
        let y_end = ceil_usize(p1[1].max(0.0)).min(self.height);
        let cells = &mut self.cells;
        let mut add = |i: usize, k: f32| {
            let c = &mut cells[i];
            c[0] += wgt[0] * k;
            c[1] += wgt[1] * k;
            c[2] += wgt[2] * k;
            c[3] += wgt[3] * k;
        };
        for y in y_start..y_end {
            let row = y * stride;
            let dy = ((y + 1) as f32).min(p1[1]) - (y as f32).max(p0[1]);
            let xnext = (x + dxdy * dy).clamp(0.0, self.width as f32);
            let d = dy * dir;
            let (xa, xb) = if x < xnext { (x, xnext) } else { (xnext, x) };
            // x is clamped non-negative, so truncating casts are floor/ceil (and far cheaper
            // than libm calls on baseline x86-64).
            let xai = xa as usize;
            let xa_floor = xai as f32;
            let xbi = ceil_usize(xb);
            let xb_ceil = xbi as f32;
            if xbi <= xai + 1 {
                // The edge stays within one pixel column in this row.
                let xmf = 0.5 * (x + xnext) - xa_floor;
                add(row + xai, d - d * xmf);
                add(row + xai + 1, d * xmf);
            } else {
                let s = (xb - xa).recip();
                let xaf = xa - xa_floor;
                let a0 = 0.5 * s * (1.0 - xaf) * (1.0 - xaf);
                let xbf = xb - xb_ceil + 1.0;
                let am = 0.5 * s * xbf * xbf;
                add(row + xai, d * a0);
                if xbi == xai + 2 {
                    add(row + xai + 1, d * (1.0 - a0 - am));
                } else {
                    let a1 = s * (1.5 - xaf);
                    add(row + xai + 1, d * (a1 - a0));
                    for xi in xai + 2..xbi - 1 {
                        add(row + xi, d * s);
                    }
                    let a2 = a1 + (xbi - xai - 3) as f32 * s;
                    add(row + xbi - 1, d * (1.0 - a2 - am));
                }
                add(row + xbi, d * am);
            }
            x = xnext;
        }
    }

    /// Resolves the accumulated layer: calls `f(x, y, [r, g, b, a])` for every pixel of the
    /// dirty box (uncovered ones included, with `a` ≈ 0) with its colour-weighted coverage
    /// (`a` clamped to 1, colour renormalised where overlapping polygons summed past full
    /// coverage), then clears the accumulator.
    pub fn resolve(&mut self, mut f: impl FnMut(usize, usize, [f32; 4])) {
        if self.is_empty() {
            return;
        }
        let stride = self.width + 2;
        let (x0, x1) = (self.x_min, self.x_max.min(self.width));
        for y in self.y_min..=self.y_max {
            let row = &mut self.cells[y * stride..(y + 1) * stride];
            let mut s = [0.0f32; 4];
            for (x, cell) in row.iter_mut().enumerate().take(x1 + 2).skip(x0) {
                s[0] += cell[0];
                s[1] += cell[1];
                s[2] += cell[2];
                s[3] += cell[3];
                *cell = [0.0; 4];
                if x < x1 {
                    // Branch-free renormalisation keeps this loop vectorizable.
                    let k = 1.0 / s[3].max(1.0);
                    f(x, y, [s[0] * k, s[1] * k, s[2] * k, s[3] * k]);
                }
            }
        }
        self.reset_bbox();
    }
}

#[cfg(test)]
mod tests {
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
}
