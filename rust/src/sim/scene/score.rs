//! The score's text, formatted as each Gymnasium release prints it, without allocating.

use super::ScoreFormat;

/// A fixed-capacity string buffer, so formatting the score allocates nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct ScoreText {
    buf: [u8; 32],
    len: usize,
}

impl std::fmt::Write for ScoreText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl ScoreText {
    pub(super) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    /// The score as Gymnasium's `format` prints `reward`.
    pub(super) fn format(reward: f64, format: ScoreFormat) -> Self {
        use std::fmt::Write;
        let mut out = ScoreText::default();
        match format {
            // Python's `%i` takes `int(reward)`: truncation toward zero.
            ScoreFormat::Truncate => {
                let _ = write!(out, "{:04}", reward.trunc() as i64);
            }
            // Both round half to even on the exact binary value, and both keep the sign of
            // a negative value rounded to zero (`-000`).
            ScoreFormat::Round => {
                let _ = write!(out, "{reward:04.0}");
            }
            ScoreFormat::Repr => {
                // Rust's `{:?}` is the shortest round-trip repr, as Python's, with the same
                // switch to exponent notation (|x| < 1e-4 or >= 1e16); only the exponent is
                // written differently (`1e-5` there, `1e-05` in Python; `1e16`, `1e+16`).
                let mut raw = ScoreText::default();
                let _ = write!(raw, "{reward:?}");
                let s = raw.as_str();
                let (mantissa, exponent) = match s.split_once('e') {
                    Some((m, e)) => (m, Some(e)),
                    None => (s, None),
                };
                let (sign, digits) = match mantissa.strip_prefix('-') {
                    Some(rest) => ("-", rest),
                    None => ("", mantissa),
                };
                let mut body = ScoreText::default();
                let _ = body.write_str(digits);
                if let Some(e) = exponent {
                    let (esign, edigits) = match e.strip_prefix('-') {
                        Some(rest) => ('-', rest),
                        None => ('+', e),
                    };
                    let _ = write!(body, "e{esign}{edigits:0>2}");
                }
                // `04`: zeros between the sign and the digits up to four characters.
                let _ = out.write_str(sign);
                for _ in (sign.len() + body.len)..4 {
                    let _ = out.write_char('0');
                }
                let _ = out.write_str(body.as_str());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(reward: f64, format: ScoreFormat) -> String {
        ScoreText::format(reward, format).as_str().to_owned()
    }

    #[test]
    fn truncate_is_percent_04i() {
        // Python: "%04i" % x
        let cases = [
            (0.0, "0000"),
            (-0.1, "0000"),
            (-0.9, "0000"),
            (-1.5, "-001"),
            (23.59, "0023"),
            (999.99, "0999"),
            (-100.0, "-100"),
            (-1234.5, "-1234"),
            (12345.6, "12345"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Truncate), want, "{x}");
        }
    }

    #[test]
    fn round_is_04_0f() {
        // Python: f"{x:04.0f}"
        let cases = [
            (0.0, "0000"),
            (-0.0, "-000"),
            (-0.1, "-000"),
            (0.5, "0000"),
            (1.5, "0002"),
            (2.5, "0002"),
            (23.59, "0024"),
            (-100.0, "-100"),
            (999.5, "1000"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Round), want, "{x}");
        }
    }

    #[test]
    fn repr_is_04() {
        // Python: f"{x:04}" (repr, zero-padded to four characters)
        let cases = [
            (0.0, "00.0"),
            (-0.0, "-0.0"),
            (-0.1, "-0.1"),
            (5.0, "05.0"),
            (-0.30000000000000004, "-0.30000000000000004"),
            (23.590909090909093, "23.590909090909093"),
            (1e-5, "1e-05"),
            (-1.5e-7, "-1.5e-07"),
            (5.551115123125783e-17, "5.551115123125783e-17"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x, ScoreFormat::Repr), want, "{x}");
        }
    }
}
