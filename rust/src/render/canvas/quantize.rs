//! From composited rows (0–255 floats) to RGB bytes: the [`Quantizer`] rule and the row loops
//! that apply it (`simd.rs` has their x86-64 forms).

use super::simd::apply16;
#[cfg(target_arch = "x86_64")]
use super::simd::quantize_row_avx2;
use super::Canvas;

/// How the working image (0–255 floats) becomes bytes.
///
/// `out = clamp(floor(v + add) - sub, 0, 255)`. [`Quantizer::round`] is plain rounding;
/// [`Quantizer::pygame_smoothscale`] reproduces the truncation bias of
/// `pygame.transform.smoothscale` when shrinking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantizer {
    /// Added before flooring (0.5 rounds to nearest).
    pub add: f32,
    /// Levels subtracted after flooring.
    pub sub: f32,
}

impl Quantizer {
    /// Round to nearest.
    pub const fn round() -> Self {
        Self { add: 0.5, sub: 0.0 }
    }

    /// Emulates pygame's `smoothscale` from `src_w`×`src_h` down to `dst_w`×`dst_h`.
    ///
    /// Its shrink filter runs one fixed-point box-filter pass per axis and truncates; with a
    /// non-integer ratio the reciprocal is rounded down too, so a flat area of level `v` comes
    /// out `v - 1` per such pass (measured: 102 → 100 at 1000×800 → 96×96, 102 → 101 at
    /// 1000×800 → 600×400, whose 800 → 400 pass is exact). Both lossy: `ceil(v) - 2`; one
    /// lossy: `round(v) - 1` (the mean over edge directions); none: plain rounding.
    pub fn pygame_smoothscale(src_w: usize, src_h: usize, dst_w: usize, dst_h: usize) -> Self {
        let lossy = |s: usize, d: usize| d < s && s % d != 0;
        match (lossy(src_w, dst_w) as u8) + (lossy(src_h, dst_h) as u8) {
            2 => Self {
                add: 1.0 - 1e-3,
                sub: 2.0,
            },
            1 => Self { add: 0.5, sub: 1.0 },
            _ => Self::round(),
        }
    }

    /// Quantizes one 0–255 value.
    #[inline]
    pub fn apply(&self, v: f32) -> u8 {
        // floor(v + add) - sub, clamped, as round-to-nearest of (v + add - 0.5 - sub): adding
        // 2^23 leaves the rounded integer in the low mantissa bits. Branch-free and without a
        // saturating cast, so whole rows vectorize (ties at exact .5 may round to even).
        let x = (v + (self.add - 0.5 - self.sub)).clamp(0.0, 255.0);
        ((x + 8_388_608.0).to_bits() & 0xff) as u8
    }

    /// [`Quantizer::apply`] of sixteen values, written as plain array passes so they
    /// vectorize.
    #[inline]
    // `max`/`min` rather than `clamp` (the same for every non-NaN input): `clamp`'s NaN
    // semantics keep this from vectorizing.
    #[allow(clippy::manual_clamp)]
    pub fn apply16(&self, v: &[f32; 16]) -> [u8; 16] {
        let off = self.add - 0.5 - self.sub;
        let bits: [u32; 16] =
            std::array::from_fn(|i| ((v[i] + off).max(0.0).min(255.0) + 8_388_608.0).to_bits());
        std::array::from_fn(|i| (bits[i] & 0xff) as u8)
    }
}

impl Canvas {
    /// Renders the frame as RGB bytes (`height` rows of `width` pixels) into `out`, and
    /// starts a new (black) frame.
    pub fn write_rgb8(&mut self, out: &mut [u8], q: Quantizer) {
        #[cfg(target_arch = "x86_64")]
        if crate::support::cpu::has_avx2() {
            // SAFETY: the CPU supports AVX2 (checked above).
            unsafe { self.write_rgb8_avx2(out, q) };
            self.end_frame();
            return;
        }
        self.write_rgb8_rows(out, q, quantize_row_baseline);
        self.end_frame();
    }

    /// [`Canvas::write_rgb8`]'s compositing compiled for AVX2: the row loops (fills, blends,
    /// layer resolves, quantizing) are inlined here, so they use 256-bit vectors. The same
    /// IEEE operations in the same order (no FMA), so the same bytes.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn write_rgb8_avx2(&mut self, out: &mut [u8], q: Quantizer) {
        // The closure inherits this function's target features, so the call is safe.
        self.write_rgb8_rows(out, q, |src, dst, q| quantize_row_avx2(src, dst, q));
    }

    #[inline(always)]
    fn write_rgb8_rows(
        &mut self,
        out: &mut [u8],
        q: Quantizer,
        quantize: impl Fn(&[[f32; 4]], &mut [u8], Quantizer),
    ) {
        let w3 = 3 * self.width.max(1);
        let mut rows = out.chunks_exact_mut(w3);
        self.render_rows(|_, row| {
            if let Some(dst) = rows.next() {
                quantize(row, dst, q);
            }
        });
    }
}

/// Quantizes one row of pixels (0–255 floats, lane 3 ignored) into RGB bytes, four pixels at
/// a time (SSE2, the x86-64 baseline, or portable code). [`quantize_row_avx2`] gives the same
/// bytes.
pub(super) fn quantize_row_baseline(src: &[[f32; 4]], dst: &mut [u8], q: Quantizer) {
    let mut s = src.chunks_exact(4);
    let mut d = dst.chunks_exact_mut(12);
    for (a, b) in (&mut s).zip(&mut d) {
        let a: &[f32; 16] = a.as_flattened().try_into().expect("four pixels");
        let rgbx = apply16(q, a);
        for (o, p) in b.chunks_exact_mut(3).zip(rgbx.chunks_exact(4)) {
            o.copy_from_slice(&p[..3]);
        }
    }
    for (o, p) in d.into_remainder().chunks_exact_mut(3).zip(s.remainder()) {
        for (o, &v) in o.iter_mut().zip(p) {
            *o = q.apply(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_quantizer_matches_the_portable_one() {
        let mut vals: Vec<f32> = (-40..=2200).map(|i| i as f32 * 0.125).collect();
        // Ties, near-ties and non-finite values.
        for k in 0..300 {
            let v = k as f32 + 0.5;
            vals.extend([v, v.next_up(), v.next_down(), v - 1.501, v + 0.499]);
        }
        vals.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e9, -1e9, -0.0]);
        while vals.len() % 16 != 0 {
            vals.push(0.0);
        }
        for q in [
            Quantizer::round(),
            Quantizer::pygame_smoothscale(1000, 800, 96, 96),
            Quantizer::pygame_smoothscale(1000, 800, 600, 400),
        ] {
            for chunk in vals.chunks_exact(16) {
                let c: &[f32; 16] = chunk.try_into().unwrap();
                let expect: Vec<u8> = c.iter().map(|&v| q.apply(v)).collect();
                assert_eq!(apply16(q, c).to_vec(), expect, "{c:?}");
                assert_eq!(q.apply16(c).to_vec(), expect, "{c:?}");
            }
        }
    }

    #[test]
    fn row_quantizers_agree() {
        let src: Vec<[f32; 4]> = (0..1000)
            .map(|i| {
                std::array::from_fn(|ch| match (i + ch) % 7 {
                    0 => i as f32 * 0.37 - 20.0,
                    1 => (i % 256) as f32 + 0.5,
                    2 => f32::NAN,
                    3 => 1e9,
                    _ => ((i + ch) * 31 % 2600) as f32 * 0.1,
                })
            })
            .collect();
        // Any value a row can hold: finite (below 2^31; see `quantize_row_avx2`), or NaN.
        let q = Quantizer::pygame_smoothscale(1000, 800, 96, 96);
        // Without AVX2 only the baseline half below runs: fail rather than pass on half a test.
        #[cfg(target_arch = "x86_64")]
        assert!(
            std::arch::is_x86_feature_detected!("avx2") || crate::support::cpu::no_avx2_allowed(),
            "no AVX2 on this CPU, so quantize_row_avx2 is untested; set {}=1 to accept that",
            crate::support::cpu::ALLOW_NO_AVX2_ENV
        );
        for len in [0, 1, 3, 5, 8, 9, 15, 16, 17, 31, 32, 33, 96, 1000] {
            // Lane 3 is not a channel: it never reaches the bytes.
            let expect: Vec<u8> = src[..len]
                .iter()
                .flat_map(|p| p[..3].iter().map(|&v| q.apply(v)))
                .collect();
            let mut out = vec![0u8; 3 * len];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked above).
                unsafe { quantize_row_avx2(&src[..len], &mut out, q) };
                assert_eq!(out, expect, "len {len}");
            }
            out.fill(0);
            quantize_row_baseline(&src[..len], &mut out, q);
            assert_eq!(out, expect, "len {len}");
        }
    }

    #[test]
    fn quantizer_matches_measured_smoothscale() {
        let q = Quantizer::pygame_smoothscale(1000, 800, 96, 96);
        assert_eq!(q.apply(102.0), 100);
        assert_eq!(q.apply(1.0), 0);
        assert_eq!(q.apply(255.0), 253);
        let v = Quantizer::pygame_smoothscale(1000, 800, 600, 400);
        assert_eq!(v.apply(102.0), 101);
        assert_eq!(
            Quantizer::pygame_smoothscale(1000, 800, 1000, 800).apply(101.6),
            102
        );
    }
}
