//! The pixel kernels of observations: RGB frames transposed to channels first, or turned into
//! Gymnasium's grayscale. Each is compiled twice (baseline, AVX2), the same bytes either way.

use crate::support::cpu::avx2_dispatch;

avx2_dispatch! {
    /// `(H, W, 3)` to `(3, H, W)`. Compiled twice because only with AVX2 does LLVM turn the
    /// stride-3 loads into byte shuffles; the baseline moves bytes one by one.
    pub(super) fn hwc_to_chw(hwc: &[u8], chw: &mut [u8]) => hwc_to_chw_body
}

#[inline(always)]
fn hwc_to_chw_body(hwc: &[u8], chw: &mut [u8]) {
    let plane = hwc.len() / 3;
    let (r, rest) = chw.split_at_mut(plane);
    let (g, b) = rest.split_at_mut(plane);
    for (((p, r), g), b) in hwc.chunks_exact(3).zip(r).zip(g).zip(b) {
        *r = p[0];
        *g = p[1];
        *b = p[2];
    }
}

avx2_dispatch! {
    /// Gymnasium's `GrayscaleObservation`: `sum(rgb * [0.2125, 0.7154, 0.0721])` cast to
    /// uint8 (vectorized with AVX2: the same f64 operations, no FMA).
    pub(super) fn grayscale_into(rgb: &[u8], gray: &mut [u8]) => grayscale_into_body
}

#[inline(always)]
fn grayscale_into_body(rgb: &[u8], gray: &mut [u8]) {
    for (g, p) in gray.iter_mut().zip(rgb.chunks_exact(3)) {
        let v = p[0] as f64 * 0.2125 + p[1] as f64 * 0.7154 + p[2] as f64 * 0.0721;
        *g = v as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grayscale_matches_gymnasium_on_fixed_pixels() {
        // (r, g, b) -> Gymnasium's GrayscaleObservation, `np.sum(obs * [0.2125, 0.7154,
        // 0.0721], axis=-1).astype(np.uint8)`, run on these pixels (Gymnasium 1.4, NumPy 2.4)
        // and checked by hand: CarRacing's colours, pure channels (R and B weigh differently,
        // so a BGR mix-up shows) and greys whose f64 sum lands just below k (43 ->
        // 42.99999999999999), which the cast truncates.
        let cases: [([u8; 3], u8); 12] = [
            ([255, 255, 255], 255), // 255.00000000000003
            ([102, 204, 102], 174), // grass: 174.9708
            ([102, 230, 102], 193), // grass stripe: 193.5712
            ([102, 102, 102], 102), // plain road
            ([104, 104, 104], 104), // shaded road
            ([255, 0, 0], 54),      // red kerb: 54.1875
            ([0, 0, 255], 18),      // 18.3855
            ([0, 255, 0], 182),     // 182.427
            ([51, 0, 255], 29),     // 29.223
            ([43, 43, 43], 42),     // 42.99999999999999
            ([86, 86, 86], 85),     // 85.99999999999999
            ([233, 233, 233], 232), // 232.99999999999997
        ];
        let rgb: Vec<u8> = cases.iter().flat_map(|(p, _)| *p).collect();
        let expect: Vec<u8> = cases.iter().map(|&(_, g)| g).collect();
        let (mut dispatched, mut baseline) = (vec![0u8; 12], vec![0u8; 12]);
        grayscale_into(&rgb, &mut dispatched);
        grayscale_into_body(&rgb, &mut baseline);
        assert_eq!(dispatched, expect);
        assert_eq!(baseline, expect);
    }

    #[test]
    fn baseline_and_dispatched_copies_agree() {
        // Every (r, g, b) value class over a 96x96 frame and a ragged length.
        for n in [96 * 96, 1001] {
            let rgb: Vec<u8> = (0..n * 3).map(|i| (i * 97 % 256) as u8).collect();
            let (mut a, mut b) = (vec![0u8; n * 3], vec![0u8; n * 3]);
            hwc_to_chw(&rgb, &mut a);
            hwc_to_chw_body(&rgb, &mut b);
            assert_eq!(a, b);
            let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
            grayscale_into(&rgb, &mut a);
            grayscale_into_body(&rgb, &mut b);
            assert_eq!(a, b);
        }
        // Without AVX2 the dispatched copies are the baseline: fail rather than compare a
        // copy with itself. (Other CPUs have no AVX2 copies to test.)
        #[cfg(target_arch = "x86_64")]
        assert!(
            crate::support::cpu::avx2_used() || crate::support::cpu::no_avx2_allowed(),
            "the AVX2 copies never ran, so baseline was compared with baseline; set {}=1 to \
             accept that",
            crate::support::cpu::ALLOW_NO_AVX2_ENV
        );
    }

    #[test]
    fn chw_transposes_planes() {
        let hwc = [1, 2, 3, 4, 5, 6];
        let mut chw = [0u8; 6];
        hwc_to_chw(&hwc, &mut chw);
        assert_eq!(chw, [1, 4, 2, 5, 3, 6]);
    }
}
