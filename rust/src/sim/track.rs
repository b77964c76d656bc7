//! Procedural track generation, step for step as Gymnasium's `CarRacing._create_track`.
//!
//! Everything is f64 with Python's order of operations, so that the same generator state
//! gives the same `(alpha, beta, x, y)` points as Gymnasium, retries included.

use crate::sim::numpy_compat::np_sign;
use std::f64::consts::PI;

use crate::sim::rng::NumpyGenerator;

/// Track scale: world units per Gymnasium "track unit".
pub const SCALE: f64 = 6.0;
/// Radius of the circle the track is morphed from. World units.
pub const TRACK_RAD: f64 = 900.0 / SCALE;
/// Half-size of the square playfield; leaving it ends the episode. World units.
pub const PLAYFIELD: f64 = 2000.0 / SCALE;
/// Distance between consecutive track points. World units.
pub const TRACK_DETAIL_STEP: f64 = 21.0 / SCALE;
/// Largest heading change per track point. Radians.
pub const TRACK_TURN_RATE: f64 = 0.31;
/// Half-width of the road. World units.
pub const TRACK_WIDTH: f64 = 40.0 / SCALE;
/// Width of the red/white kerbs drawn on sharp turns. World units.
pub const BORDER: f64 = 8.0 / SCALE;
/// Consecutive same-direction sharp turns needed before a kerb is drawn.
pub const BORDER_MIN_COUNT: usize = 4;
/// Number of random checkpoints the track winds through.
pub const CHECKPOINTS: usize = 12;

/// One track point, Gymnasium's `track` entry: polar angle `alpha`, heading `beta`
/// (radians), and position `x`, `y` (world units).
pub type TrackPoint = [f64; 4];

/// A generated track: its points and the quads Gymnasium builds from them.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Gymnasium's `track` list; tile `i` spans points `i-1` (cyclically) and `i`.
    pub points: Vec<TrackPoint>,
    /// Road tile quads `[road1_l, road1_r, road2_r, road2_l]`, one per point.
    pub tiles: Vec<[[f64; 2]; 4]>,
    /// Kerb quads: `(tile index, quad)`, drawn right after their tile.
    pub kerbs: Vec<(usize, [[f64; 2]; 4])>,
}

impl Track {
    /// Number of tiles (`len(env.track)`).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the track has no tiles (never true for a generated track).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// Python's `seq[i]` with negative indices counting from the end.
fn wrap(i: isize, len: usize) -> usize {
    i.rem_euclid(len as isize) as usize
}

/// One attempt of `_create_track`, as its verbose output tells it: the lap `i1..i2` it cut out
/// of the traced points (Gymnasium prints `Track generation: {i1}..{i2} -> {i2 - i1}-tiles
/// track` once it has them), `None` when no lap closed; and whether the attempt succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    pub lap: Option<(usize, usize)>,
    pub succeeded: bool,
}

/// Gymnasium's reset loop: attempts until one succeeds (`while True: if _create_track(): break`).
/// Returns the track and every attempt made, the successful last one included.
pub fn generate(rng: &mut NumpyGenerator) -> (Track, Vec<Attempt>) {
    let mut attempts = Vec::with_capacity(1);
    loop {
        let (track, lap) = attempt(rng);
        attempts.push(Attempt {
            lap,
            succeeded: track.is_some(),
        });
        if let Some(track) = track {
            return (track, attempts);
        }
    }
}

/// One attempt of `_create_track`; `None` where Gymnasium returns `False`.
pub fn try_generate(rng: &mut NumpyGenerator) -> Option<Track> {
    attempt(rng).0
}

/// One attempt, with the lap `(i1, i2)` it found (see [`Attempt`]).
fn attempt(rng: &mut NumpyGenerator) -> (Option<Track>, Option<(usize, usize)>) {
    let checkpoints = checkpoints(rng);
    let start_alpha = 2.0 * PI * (-0.5) / CHECKPOINTS as f64;
    let raw = trace(&checkpoints);
    let Some((i1, i2)) = find_lap(&raw, start_alpha) else {
        return (None, None);
    };
    let Some(points) = close_lap(&raw, i1, i2) else {
        return (None, Some((i1, i2)));
    };
    let (tiles, kerbs) = build_quads(&points);
    let track = Track {
        points,
        tiles,
        kerbs,
    };
    (Some(track), Some((i1, i2)))
}

/// The 12 checkpoints `(alpha, x, y)`: two draws each, the first and last then pinned.
fn checkpoints(rng: &mut NumpyGenerator) -> [[f64; 3]; CHECKPOINTS] {
    let mut out = [[0.0; 3]; CHECKPOINTS];
    for (c, cp) in out.iter_mut().enumerate() {
        let noise = rng.uniform(0.0, 2.0 * PI * 1.0 / CHECKPOINTS as f64);
        let mut alpha = 2.0 * PI * c as f64 / CHECKPOINTS as f64 + noise;
        let mut rad = rng.uniform(TRACK_RAD / 3.0, TRACK_RAD);
        if c == 0 {
            alpha = 0.0;
            rad = 1.5 * TRACK_RAD;
        }
        if c == CHECKPOINTS - 1 {
            alpha = 2.0 * PI * c as f64 / CHECKPOINTS as f64;
            rad = 1.5 * TRACK_RAD;
        }
        *cp = [alpha, rad * alpha.cos(), rad * alpha.sin()];
    }
    out
}

/// Steers a point around the checkpoints for up to five laps (or 2500 points).
fn trace(checkpoints: &[[f64; 3]; CHECKPOINTS]) -> Vec<TrackPoint> {
    let (mut x, mut y, mut beta) = (1.5 * TRACK_RAD, 0.0f64, 0.0f64);
    let mut dest_i = 0usize;
    let mut laps = 0;
    let mut track = Vec::with_capacity(2500);
    let mut no_freeze = 2500;
    let mut visited_other_side = false;
    loop {
        let mut alpha = y.atan2(x);
        if visited_other_side && alpha > 0.0 {
            laps += 1;
            visited_other_side = false;
        }
        if alpha < 0.0 {
            visited_other_side = true;
            alpha += 2.0 * PI;
        }
        // Find the destination checkpoint; wrap alpha by a full turn when none is ahead.
        let (dest_x, dest_y) = loop {
            let mut found = None;
            loop {
                let [dest_alpha, dx, dy] = checkpoints[dest_i % CHECKPOINTS];
                if alpha <= dest_alpha {
                    found = Some((dx, dy));
                    break;
                }
                dest_i += 1;
                if dest_i % CHECKPOINTS == 0 {
                    break;
                }
            }
            if let Some(dest) = found {
                break dest;
            }
            alpha -= 2.0 * PI;
        };
        let r1x = beta.cos();
        let r1y = beta.sin();
        let p1x = -r1y;
        let p1y = r1x;
        let dest_dx = dest_x - x;
        let dest_dy = dest_y - y;
        let mut proj = r1x * dest_dx + r1y * dest_dy;
        while beta - alpha > 1.5 * PI {
            beta -= 2.0 * PI;
        }
        while beta - alpha < -1.5 * PI {
            beta += 2.0 * PI;
        }
        let prev_beta = beta;
        proj *= SCALE;
        if proj > 0.3 {
            beta -= TRACK_TURN_RATE.min((0.001 * proj).abs());
        }
        if proj < -0.3 {
            beta += TRACK_TURN_RATE.min((0.001 * proj).abs());
        }
        x += p1x * TRACK_DETAIL_STEP;
        y += p1y * TRACK_DETAIL_STEP;
        track.push([alpha, prev_beta * 0.5 + beta * 0.5, x, y]);
        if laps > 4 {
            break;
        }
        no_freeze -= 1;
        if no_freeze == 0 {
            break;
        }
    }
    track
}

/// The last two passes `(i1, i2)` of the traced points through the start angle; `None` when
/// there are not two (Gymnasium's attempt fails before printing anything).
fn find_lap(track: &[TrackPoint], start_alpha: f64) -> Option<(usize, usize)> {
    let (mut i1, mut i2) = (None, None);
    let mut i = track.len();
    loop {
        i -= 1;
        if i == 0 {
            return None;
        }
        let pass_through_start = track[i][0] > start_alpha && track[i - 1][0] <= start_alpha;
        if pass_through_start && i2.is_none() {
            i2 = Some(i);
        } else if pass_through_start && i1.is_none() {
            i1 = Some(i);
            break;
        }
    }
    Some((i1?, i2?))
}

/// Cuts the lap `i1..i2` out of the traced points and checks that its ends meet; `None` when
/// Gymnasium's attempt fails.
fn close_lap(track: &[TrackPoint], i1: usize, i2: usize) -> Option<Vec<TrackPoint>> {
    // Python's `track[i1 : i2 - 1]`; i2 > i1 here, so the slice may only be empty.
    let lap: Vec<TrackPoint> = track[i1..(i2 - 1).max(i1)].to_vec();
    if lap.is_empty() {
        return None;
    }
    let first_beta = lap[0][1];
    let first_perp_x = first_beta.cos();
    let first_perp_y = first_beta.sin();
    let last = lap[lap.len() - 1];
    let gx = first_perp_x * (lap[0][2] - last[2]);
    let gy = first_perp_y * (lap[0][3] - last[3]);
    let well_glued_together = (gx * gx + gy * gy).sqrt();
    if well_glued_together > TRACK_DETAIL_STEP {
        return None;
    }
    Some(lap)
}

/// Which tiles get kerbs: sharp, same-direction turns sustained over `BORDER_MIN_COUNT` points,
/// then spread backwards over the preceding points.
fn kerb_flags(points: &[TrackPoint]) -> Vec<bool> {
    let n = points.len();
    let mut border = vec![false; n];
    for (i, flag) in border.iter_mut().enumerate() {
        let mut good = true;
        let mut oneside = 0.0;
        for neg in 0..BORDER_MIN_COUNT {
            let beta1 = points[wrap(i as isize - neg as isize, n)][1];
            let beta2 = points[wrap(i as isize - neg as isize - 1, n)][1];
            good &= (beta1 - beta2).abs() > TRACK_TURN_RATE * 0.2;
            oneside += np_sign(beta1 - beta2);
        }
        good &= oneside.abs() == BORDER_MIN_COUNT as f64;
        *flag = good;
    }
    for i in 0..n {
        for neg in 0..BORDER_MIN_COUNT {
            let j = wrap(i as isize - neg as isize, n);
            border[j] |= border[i];
        }
    }
    border
}

/// Road tile and kerb quads, in Gymnasium's vertex order.
#[allow(clippy::type_complexity)]
fn build_quads(points: &[TrackPoint]) -> (Vec<[[f64; 2]; 4]>, Vec<(usize, [[f64; 2]; 4])>) {
    let n = points.len();
    let border = kerb_flags(points);
    let mut tiles = Vec::with_capacity(n);
    let mut kerbs = Vec::new();
    for i in 0..n {
        let [_, beta1, x1, y1] = points[i];
        let [_, beta2, x2, y2] = points[wrap(i as isize - 1, n)];
        let (c1, s1, c2, s2) = (beta1.cos(), beta1.sin(), beta2.cos(), beta2.sin());
        let road1_l = [x1 - TRACK_WIDTH * c1, y1 - TRACK_WIDTH * s1];
        let road1_r = [x1 + TRACK_WIDTH * c1, y1 + TRACK_WIDTH * s1];
        let road2_l = [x2 - TRACK_WIDTH * c2, y2 - TRACK_WIDTH * s2];
        let road2_r = [x2 + TRACK_WIDTH * c2, y2 + TRACK_WIDTH * s2];
        tiles.push([road1_l, road1_r, road2_r, road2_l]);
        if border[i] {
            let side = np_sign(beta2 - beta1);
            let b1_l = [x1 + side * TRACK_WIDTH * c1, y1 + side * TRACK_WIDTH * s1];
            let b1_r = [
                x1 + side * (TRACK_WIDTH + BORDER) * c1,
                y1 + side * (TRACK_WIDTH + BORDER) * s1,
            ];
            let b2_l = [x2 + side * TRACK_WIDTH * c2, y2 + side * TRACK_WIDTH * s2];
            let b2_r = [
                x2 + side * (TRACK_WIDTH + BORDER) * c2,
                y2 + side * (TRACK_WIDTH + BORDER) * s2,
            ];
            kerbs.push((i, [b1_l, b1_r, b2_r, b2_l]));
        }
    }
    (tiles, kerbs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_matches_python_negative_indexing() {
        assert_eq!(wrap(-1, 5), 4);
        assert_eq!(wrap(-5, 5), 0);
        assert_eq!(wrap(3, 5), 3);
    }

    #[test]
    fn kerbs_follow_sustained_turns() {
        // A circle turning steadily left by more than 0.2 * TRACK_TURN_RATE per point has kerbs
        // everywhere; a straight line has none.
        let n = 40;
        let circle: Vec<TrackPoint> = (0..n).map(|i| [0.0, i as f64 * 0.1, 0.0, 0.0]).collect();
        let flags = kerb_flags(&circle);
        // Point 0 compares against the wrapped last point (a huge jump), which breaks "one side"
        // for the first BORDER_MIN_COUNT points only through the backwards spread.
        assert!(flags[10..].iter().all(|&f| f));
        let straight: Vec<TrackPoint> = (0..n).map(|_| [0.0, 0.5, 0.0, 0.0]).collect();
        assert!(kerb_flags(&straight).iter().all(|&f| !f));
    }

    #[test]
    fn tiles_share_edges_with_their_neighbours() {
        let pts: Vec<TrackPoint> = (0..10)
            .map(|i| [0.0, 0.3, i as f64, 2.0 * i as f64])
            .collect();
        let (tiles, _) = build_quads(&pts);
        for i in 1..tiles.len() {
            // Tile i's far edge (road2) is tile i-1's near edge (road1).
            assert_eq!(tiles[i][3], tiles[i - 1][0]);
            assert_eq!(tiles[i][2], tiles[i - 1][1]);
        }
    }
}
