//! Scalar semantics of NumPy functions that Gymnasium's CarRacing code relies on.

/// `np.sign` of a float: -1, 0 or 1 (0 for ±0; NaN is never passed here).
pub fn np_sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_of_zero_is_zero() {
        assert_eq!(np_sign(0.0), 0.0);
        assert_eq!(np_sign(-0.0), 0.0);
        assert_eq!(np_sign(-3.5), -1.0);
        assert_eq!(np_sign(1e-300), 1.0);
    }
}
