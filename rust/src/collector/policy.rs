//! The policy's distributions: how one game's policy outputs become an action and its
//! log-probability (categorical, diagonal Gaussian, Beta on the action box), and the bounds
//! within which those outputs are accepted.

use rand::RngExt;
use rand_distr::{Beta, Distribution, StandardNormal};
use rand_pcg::Pcg64Mcg;

use crate::sim::env::Action;
use crate::support::error::{Error, Result};

/// Discrete CarRacing actions.
pub const DISCRETE_ACTIONS: usize = 5;
/// Continuous CarRacing action dimension (steer, gas, brake).
pub const ACTION_DIM: usize = 3;
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_7;
/// The Gaussian's `log_std` must lie within `[-LOG_STD_BOUND, LOG_STD_BOUND]`: beyond it the
/// sampled action or its log-density leaves f32's range (e^88 overflows), and no sane policy
/// gets near it (SB3 and CleanRL-style policies keep log_std around [-20, 2]).
pub const LOG_STD_BOUND: f32 = 20.0;
/// A Beta policy's concentrations (alpha, beta) must lie within
/// `[BETA_CONCENTRATION_MIN, BETA_CONCENTRATION_MAX]`: below it nearly every sample sits at an
/// end of the box, above it the distribution is narrower than float32 can store an action.
pub const BETA_CONCENTRATION_MIN: f32 = 1e-3;
pub const BETA_CONCENTRATION_MAX: f32 = 1e6;
/// A Beta sample `x` in (0, 1) is kept within `[BETA_EDGE, 1 - BETA_EDGE]`, so the stored action
/// lies strictly inside the box and its log-density is finite whatever the concentrations.
/// Fraction of the box width; for `alpha >= 1` the mass moved at the lower end is at most about
/// `beta * 1e-6` (symmetrically at the upper end), so the behaviour density is the Beta's.
pub const BETA_EDGE: f64 = 1e-6;
/// The continuous action box, per dimension (steer, gas, brake): lower bound and width.
pub const ACTION_LOW: [f64; ACTION_DIM] = [-1.0, 0.0, 0.0];
pub const ACTION_WIDTH: [f64; ACTION_DIM] = [2.0, 1.0, 1.0];

/// How policy outputs turn into actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    /// Logits over `Discrete(5)`; a categorical sample.
    Categorical,
    /// `[mean; 3]` then `[log_std; 3]`; a diagonal Gaussian sample, clipped only for the env.
    Gaussian,
    /// `[alpha; 3]` then `[beta; 3]`; per dimension a `Beta(alpha, beta)` sample on (0, 1),
    /// mapped affinely onto the action's box (steer [-1, 1], gas and brake [0, 1]).
    Beta,
}

impl PolicyKind {
    /// Numbers the policy outputs per game.
    pub fn outputs(self) -> usize {
        match self {
            PolicyKind::Categorical => DISCRETE_ACTIONS,
            PolicyKind::Gaussian | PolicyKind::Beta => 2 * ACTION_DIM,
        }
    }

    /// Numbers stored per game for its action.
    pub fn action_len(self) -> usize {
        match self {
            PolicyKind::Categorical => 1,
            PolicyKind::Gaussian | PolicyKind::Beta => ACTION_DIM,
        }
    }

    /// Whether the kind draws continuous actions (a continuous game needs one).
    pub fn continuous(self) -> bool {
        self != PolicyKind::Categorical
    }

    /// What the policy outputs per game, for error messages.
    pub(super) fn describe(self) -> &'static str {
        match self {
            PolicyKind::Categorical => "logits over the 5 discrete actions",
            PolicyKind::Gaussian => "mean[3] then log_std[3] per game",
            PolicyKind::Beta => "alpha[3] then beta[3] per game",
        }
    }
}

/// `ln Γ(x)` for `x > 0`, f64 (libm's `lgamma`: within a few ulp).
fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Log-density of `Beta(alpha, beta)` at `x` in (0, 1):
/// `(α-1) ln x + (β-1) ln(1-x) - ln B(α, β)`, with `ln B(α, β) = lnΓ(α) + lnΓ(β) - lnΓ(α+β)`.
pub fn beta_log_density(x: f64, alpha: f64, beta: f64) -> f64 {
    let ln_b = ln_gamma(alpha) + ln_gamma(beta) - ln_gamma(alpha + beta);
    (alpha - 1.0) * x.ln() + (beta - 1.0) * (1.0 - x).ln() - ln_b
}

/// Log-density of a Beta policy's stored action `a` (box coordinates) for dimension `d`: the
/// Beta density of `x = (a - low) / width`, less `ln(width)` (the affine map's Jacobian).
pub fn beta_action_log_density(a: f32, d: usize, alpha: f64, beta: f64) -> f64 {
    let x = (a as f64 - ACTION_LOW[d]) / ACTION_WIDTH[d];
    beta_log_density(x, alpha, beta) - ACTION_WIDTH[d].ln()
}

/// Checks one game's policy outputs beyond finiteness: a Gaussian's `log_std` within
/// [`LOG_STD_BOUND`], a Beta's concentrations within [`BETA_CONCENTRATION_MIN`],
/// [`BETA_CONCENTRATION_MAX`].
pub(super) fn check_policy_row(kind: PolicyKind, out: &[f32], game: usize) -> Result<()> {
    if kind == PolicyKind::Beta {
        let range = BETA_CONCENTRATION_MIN..=BETA_CONCENTRATION_MAX;
        if let Some(i) = out.iter().position(|v| !range.contains(v)) {
            let name = if i < ACTION_DIM { "alpha" } else { "beta" };
            return Err(Error::InvalidArgument(format!(
                "infer returned {name} {} for game {game}, outside the supported \
                 [{BETA_CONCENTRATION_MIN}, {BETA_CONCENTRATION_MAX}]; a Beta policy's \
                 concentrations must be positive (e.g. 1 + softplus(x))",
                out[i]
            )));
        }
    }
    if kind == PolicyKind::Gaussian {
        if let Some(&log_std) = out[ACTION_DIM..]
            .iter()
            .find(|v| !(-LOG_STD_BOUND..=LOG_STD_BOUND).contains(*v))
        {
            return Err(Error::InvalidArgument(format!(
                "infer returned log_std {log_std} for game {game}, outside the supported \
                 [-{LOG_STD_BOUND}, {LOG_STD_BOUND}]; clamp log_std in the policy"
            )));
        }
    }
    Ok(())
}

/// Samples one action from policy outputs; returns (action for the env, stored action
/// values, log-probability).
pub(super) fn sample(
    kind: PolicyKind,
    out: &[f32],
    rng: &mut Pcg64Mcg,
) -> (Action, [f32; ACTION_DIM], f32) {
    match kind {
        PolicyKind::Categorical => {
            let max = out.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
            let sum: f64 = out.iter().map(|&v| (v as f64 - max).exp()).sum();
            let log_z = max + sum.ln();
            let u: f64 = rng.random::<f64>() * sum;
            let mut acc = 0.0;
            let mut choice = out.len() - 1;
            for (k, &v) in out.iter().enumerate() {
                acc += (v as f64 - max).exp();
                if u < acc {
                    choice = k;
                    break;
                }
            }
            let logp = out[choice] as f64 - log_z;
            (
                Action::Discrete(choice as i64),
                [choice as f32, 0.0, 0.0],
                logp as f32,
            )
        }
        PolicyKind::Gaussian => {
            let mut sampled = [0.0f32; ACTION_DIM];
            let mut logp = 0.0f64;
            for d in 0..ACTION_DIM {
                let (mean, log_std) = (out[d] as f64, out[ACTION_DIM + d] as f64);
                let z: f64 = rng.sample(StandardNormal);
                let a = (mean + log_std.exp() * z) as f32;
                sampled[d] = a;
                // Log-density of the stored (f32) action, so a learner recomputes it exactly.
                let zz = (a as f64 - mean) / log_std.exp();
                logp += -0.5 * zz * zz - log_std - LN_SQRT_2PI;
            }
            let env_action = [
                (sampled[0] as f64).clamp(-1.0, 1.0),
                (sampled[1] as f64).clamp(0.0, 1.0),
                (sampled[2] as f64).clamp(0.0, 1.0),
            ];
            (Action::Continuous(env_action), sampled, logp as f32)
        }
        PolicyKind::Beta => {
            let mut sampled = [0.0f32; ACTION_DIM];
            let mut env_action = [0.0f64; ACTION_DIM];
            let mut logp = 0.0f64;
            for d in 0..ACTION_DIM {
                let (alpha, beta) = (out[d] as f64, out[ACTION_DIM + d] as f64);
                // Cheng's exact algorithms (BB, BC); the parameters were checked, so `new`
                // cannot fail: a NaN then fails the finiteness check of the caller instead.
                let x = Beta::new(alpha, beta).map_or(f64::NAN, |b| b.sample(rng));
                let x = x.clamp(BETA_EDGE, 1.0 - BETA_EDGE);
                let a = (ACTION_LOW[d] + ACTION_WIDTH[d] * x) as f32;
                sampled[d] = a;
                env_action[d] = a as f64;
                // Log-density of the stored (f32) action, so a learner recomputes it exactly.
                logp += beta_action_log_density(a, d, alpha, beta);
            }
            (Action::Continuous(env_action), sampled, logp as f32)
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn gaussian_log_prob_is_the_density_of_the_stored_action() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let out = [0.1f32, 0.5, 0.2, -1.0, -0.5, 0.0];
        let (action, stored, logp) = sample(PolicyKind::Gaussian, &out, &mut rng);
        let mut expect = 0.0f64;
        for d in 0..3 {
            let std = (out[3 + d] as f64).exp();
            let z = (stored[d] as f64 - out[d] as f64) / std;
            expect += -0.5 * z * z - std.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln();
        }
        assert!((logp as f64 - expect).abs() < 1e-5);
        let Action::Continuous(a) = action else {
            panic!()
        };
        assert!(
            (-1.0..=1.0).contains(&a[0])
                && (0.0..=1.0).contains(&a[1])
                && (0.0..=1.0).contains(&a[2])
        );
    }

    /// Closed-form Beta densities at fixed points (no lgamma involved).
    #[test]
    fn beta_log_density_matches_closed_forms() {
        let pi = std::f64::consts::PI;
        let cases: [(f64, f64, f64, f64); 6] = [
            (1.0, 1.0, 0.3, 1.0),                                // uniform
            (2.0, 2.0, 0.25, 6.0 * 0.25 * 0.75),                 // 6 x (1 - x)
            (2.0, 5.0, 0.1, 30.0 * 0.1 * 0.9f64.powi(4)),        // 30 x (1 - x)^4
            (0.5, 0.5, 0.2, 1.0 / (pi * (0.2f64 * 0.8).sqrt())), // arcsine
            (3.0, 1.0, 0.7, 3.0 * 0.49),                         // 3 x^2
            (1.0, 30.0, 0.01, 30.0 * 0.99f64.powi(29)),          // beta (1 - x)^(beta - 1)
        ];
        for (alpha, beta, x, pdf) in cases {
            let got = beta_log_density(x, alpha, beta);
            assert!(
                (got - pdf.ln()).abs() < 1e-12,
                "Beta({alpha}, {beta}) at {x}: {got} vs {}",
                pdf.ln()
            );
        }
        // Steer's box is [-1, 1]: the density of a = 2x - 1 is half that of x.
        let got = beta_action_log_density(-0.5, 0, 2.0, 2.0);
        assert!(
            (got - (6.0f64 * 0.25 * 0.75 / 2.0).ln()).abs() < 1e-12,
            "{got}"
        );
        let got = beta_action_log_density(0.25, 2, 2.0, 2.0);
        assert!((got - (6.0f64 * 0.25 * 0.75).ln()).abs() < 1e-12, "{got}");
    }

    #[test]
    fn beta_samples_lie_in_the_box_and_carry_their_log_density() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        // Steer Beta(2, 2), gas Beta(5, 1.5), brake Beta(1.05, 30); then extreme ones.
        for out in [
            [2.0f32, 5.0, 1.05, 2.0, 1.5, 30.0],
            [1e-3, 1e6, 0.5, 1e-3, 1e-3, 0.5],
        ] {
            let mut sums = [0.0f64; ACTION_DIM];
            let n = 20_000;
            for _ in 0..n {
                let (action, stored, logp) = sample(PolicyKind::Beta, &out, &mut rng);
                let Action::Continuous(a) = action else {
                    panic!()
                };
                let mut expect = 0.0f64;
                for d in 0..ACTION_DIM {
                    let (low, high) = (ACTION_LOW[d], ACTION_LOW[d] + ACTION_WIDTH[d]);
                    let v = stored[d] as f64;
                    assert!(
                        low < v && v < high,
                        "dim {d}: {v} not inside ({low}, {high})"
                    );
                    assert_eq!(a[d], v, "the env gets the stored action");
                    let x = (v - low) / ACTION_WIDTH[d];
                    let (alpha, beta) = (out[d] as f64, out[3 + d] as f64);
                    expect += beta_log_density(x, alpha, beta) - ACTION_WIDTH[d].ln();
                    sums[d] += x;
                }
                assert!(logp.is_finite());
                assert!((logp as f64 - expect).abs() <= 1e-5 * expect.abs().max(1.0));
            }
            if out[0] == 2.0 {
                // Sample means against alpha / (alpha + beta) (std of the mean < 0.0025).
                for d in 0..ACTION_DIM {
                    let (alpha, beta) = (out[d] as f64, out[3 + d] as f64);
                    let mean = sums[d] / n as f64;
                    assert!(
                        (mean - alpha / (alpha + beta)).abs() < 0.01,
                        "dim {d}: {mean}"
                    );
                }
            }
        }
    }

    #[test]
    fn categorical_samples_follow_the_softmax() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let logits = [0.0f32, 1.0, 2.0, -1.0, 0.5];
        let mut counts = [0usize; 5];
        for _ in 0..20000 {
            let (a, _, logp) = sample(PolicyKind::Categorical, &logits, &mut rng);
            let Action::Discrete(k) = a else { panic!() };
            counts[k as usize] += 1;
            let z: f64 = logits.iter().map(|&v| (v as f64).exp()).sum();
            assert!((logp as f64 - (logits[k as usize] as f64 - z.ln())).abs() < 1e-5);
        }
        let z: f64 = logits.iter().map(|&v| (v as f64).exp()).sum();
        for k in 0..5 {
            let p = (logits[k] as f64).exp() / z;
            assert!((counts[k] as f64 / 20000.0 - p).abs() < 0.015, "action {k}");
        }
    }
}
