//! Generalized advantage estimation over a time-major rollout.

/// The chain restarts at every episode end. A terminated step bootstraps from 0, a truncated
/// one from the value of its final observation, the last step from `bootstrap_values`.
#[allow(clippy::too_many_arguments)]
pub fn gae(
    rewards: &[f32],
    values: &[f32],
    terminations: &[bool],
    truncations: &[bool],
    final_values: &[f32],
    bootstrap_values: &[f32],
    games: usize,
    gamma: f64,
    lam: f64,
) -> (Vec<f32>, Vec<f32>) {
    let steps = rewards.len() / games.max(1);
    let mut advantages = vec![0.0f32; rewards.len()];
    let mut returns = vec![0.0f32; rewards.len()];
    for (g, &bootstrap) in bootstrap_values.iter().enumerate().take(games) {
        let mut last = 0.0f64;
        for t in (0..steps).rev() {
            let i = t * games + g;
            let next_value = if terminations[i] {
                0.0
            } else if truncations[i] {
                final_values[i] as f64
            } else if t + 1 == steps {
                bootstrap as f64
            } else {
                values[i + games] as f64
            };
            let episode_goes_on = if terminations[i] || truncations[i] {
                0.0
            } else {
                1.0
            };
            let delta = rewards[i] as f64 + gamma * next_value - values[i] as f64;
            last = delta + gamma * lam * episode_goes_on * last;
            advantages[i] = last as f32;
            returns[i] = (last + values[i] as f64) as f32;
        }
    }
    (advantages, returns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gae_matches_hand_computation() {
        // One game, three steps; the episode terminates at step 1.
        let rewards = [1.0, 2.0, 3.0];
        let values = [0.5, 0.25, 1.0];
        let terms = [false, true, false];
        let truncs = [false; 3];
        let finals = [f32::NAN; 3];
        let (adv, ret) = gae(
            &rewards,
            &values,
            &terms,
            &truncs,
            &finals,
            &[2.0],
            1,
            0.9,
            0.8,
        );
        let d2 = 3.0 + 0.9 * 2.0 - 1.0;
        let d1 = 2.0 - 0.25; // terminal: no bootstrap, chain cut
        let d0 = 1.0 + 0.9 * 0.25 - 0.5;
        let expect = [d0 + 0.9 * 0.8 * d1, d1, d2];
        for i in 0..3 {
            assert!(
                (adv[i] as f64 - expect[i]).abs() < 1e-6,
                "{i}: {} vs {}",
                adv[i],
                expect[i]
            );
            assert!((ret[i] - (adv[i] + values[i])).abs() < 1e-6);
        }
    }

    #[test]
    fn truncation_bootstraps_from_the_final_value() {
        let (adv, _) = gae(
            &[1.0, 1.0],
            &[0.0, 0.0],
            &[false; 2],
            &[true, false],
            &[5.0, f32::NAN],
            &[0.0],
            1,
            0.5,
            1.0,
        );
        assert!((adv[0] - (1.0 + 0.5 * 5.0)).abs() < 1e-6);
    }
}
