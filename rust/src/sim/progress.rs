//! Progress along the lap: which tiles a car passed without touching.
//!
//! Gymnasium pays a tile when a wheel first touches it. A car that cuts a corner or slides wide
//! at speed passes tiles without touching them; it learns that only when the lap fails to end,
//! hundreds of steps later. Counting the skipped tiles at the moment the car lands on a tile
//! further on gives a training reward that prices the mistake when it happens.

/// How far behind a newly visited tile the count looks. A run of untouched tiles is a skip only
/// when a visited tile bounds it within this window; otherwise the car is starting the lap
/// (touching the last tile first, behind the start) or driving the wrong way.
pub const SKIP_WINDOW: usize = 32;

/// The unvisited tiles just behind `tile` (in lap order, not wrapping past tile 0), counted
/// when `tile` is being visited for the first time: the length of the untouched run between
/// it and the nearest visited tile behind it, or 0 when no visited tile lies within
/// [`SKIP_WINDOW`] tiles behind.
pub fn tiles_skipped_before(visited: &[bool], tile: usize) -> u32 {
    let lowest = tile.saturating_sub(SKIP_WINDOW);
    (lowest..tile)
        .rev()
        .position(|behind| visited[behind])
        .map_or(0, |run| run as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visited(n: usize, tiles: &[usize]) -> Vec<bool> {
        let mut v = vec![false; n];
        for &t in tiles {
            v[t] = true;
        }
        v
    }

    #[test]
    fn consecutive_tiles_skip_nothing() {
        let v = visited(100, &[0, 1, 2, 3]);
        assert_eq!(tiles_skipped_before(&v, 4), 0);
    }

    #[test]
    fn a_cut_counts_the_tiles_passed() {
        let v = visited(100, &[0, 1, 2, 3]);
        assert_eq!(tiles_skipped_before(&v, 9), 5);
        let v = visited(100, &[0, 1, 2, 3, 5]);
        assert_eq!(tiles_skipped_before(&v, 9), 3);
    }

    #[test]
    fn the_window_bounds_the_count() {
        let v = visited(200, &[0]);
        assert_eq!(
            tiles_skipped_before(&v, SKIP_WINDOW),
            SKIP_WINDOW as u32 - 1
        );
        assert_eq!(tiles_skipped_before(&v, SKIP_WINDOW + 1), 0);
    }

    #[test]
    fn starting_behind_the_start_tile_is_not_a_skip() {
        // The rear wheels touch the last tile first; nothing behind it is visited.
        let v = visited(100, &[]);
        assert_eq!(tiles_skipped_before(&v, 99), 0);
        assert_eq!(tiles_skipped_before(&v, 0), 0);
        let v = visited(100, &[99]);
        assert_eq!(tiles_skipped_before(&v, 0), 0);
        assert_eq!(tiles_skipped_before(&v, 1), 0);
    }

    #[test]
    fn driving_the_wrong_way_is_not_a_skip() {
        let v = visited(100, &[0, 99, 98]);
        assert_eq!(tiles_skipped_before(&v, 97), 0);
    }

    #[test]
    fn closing_the_lap_skips_nothing() {
        let all_but_last: Vec<usize> = (0..99).collect();
        let v = visited(100, &all_but_last);
        assert_eq!(tiles_skipped_before(&v, 99), 0);
    }
}
