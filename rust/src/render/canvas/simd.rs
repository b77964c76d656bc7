//! The x86-64 intrinsics of quantizing. Each function gives the same bytes as the portable
//! rule ([`Quantizer::apply`]) for every input it is documented to take; the tests in
//! `quantize.rs` compare them value for value.

#[cfg(target_arch = "x86_64")]
use super::quantize::quantize_row_baseline;
use super::Quantizer;

/// [`quantize_row_baseline`] eight pixels at a time: quantizing is a large part of what a
/// frame costs after the rasterizer, and AVX2 halves its instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn quantize_row_avx2(src: &[[f32; 4]], dst: &mut [u8], q: Quantizer) {
    use std::arch::x86_64::*;
    let off = _mm256_set1_ps(q.add - 0.5 - q.sub);
    // The conversion rounds to nearest-even like the 2^23 trick, and the packs saturate to
    // 0-255. Unlike `apply16` there is no `min(255, x)` first (a tenth of the loop): rows hold
    // compositing results of finite colours, within 0-255 up to rounding, and only values of
    // 2^31 and above (+inf included) would come out differently (0 instead of 255). NaN
    // gives 0 either way.
    let conv = |x: __m256| _mm256_cvtps_epi32(_mm256_add_ps(x, off));
    // After the packs each 32-bit group is one pixel's RGBx, groups in the order 0 2 4 6 |
    // 1 3 5 7; the permute puts them in order, the byte shuffle drops each x (per 128-bit
    // half: 12 bytes of RGB, then 4 spare bytes).
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let rgb = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13,
        14, -1, -1, -1, -1,
    );
    // Eight pixels as 24 RGB bytes, in the low 12 bytes of each 128-bit half.
    let group = |p: *const f32| {
        // SAFETY: callers pass a pointer to eight pixels (32 floats); loads are unaligned.
        unsafe {
            let i0 = conv(_mm256_loadu_ps(p));
            let i1 = conv(_mm256_loadu_ps(p.add(8)));
            let i2 = conv(_mm256_loadu_ps(p.add(16)));
            let i3 = conv(_mm256_loadu_ps(p.add(24)));
            let bytes = _mm256_packus_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
            let bytes = _mm256_permutevar8x32_epi32(bytes, order);
            _mm256_shuffle_epi8(bytes, rgb)
        }
    };
    let mut i = 0;
    // Each group stores 28 bytes: its 24 and 4 spare ones that the next group overwrites.
    while i + 8 <= src.len() && 3 * i + 28 <= dst.len() {
        let bytes = group(src[i..].as_ptr().cast());
        // SAFETY: bytes 3i..3i+28 of `dst` exist (checked above); stores are unaligned.
        unsafe {
            let d = dst.as_mut_ptr().add(3 * i);
            _mm_storeu_si128(d.cast(), _mm256_castsi256_si128(bytes));
            _mm_storeu_si128(d.add(12).cast(), _mm256_extracti128_si256::<1>(bytes));
        }
        i += 8;
    }
    // The last whole group of a row has no spare bytes after it: go through a buffer.
    if i + 8 <= src.len() {
        let bytes = group(src[i..].as_ptr().cast());
        let mut buf = [0u8; 32];
        // SAFETY: `buf` holds 32 bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(buf.as_mut_ptr().cast(), bytes) };
        dst[3 * i..3 * i + 12].copy_from_slice(&buf[..12]);
        dst[3 * i + 12..3 * i + 24].copy_from_slice(&buf[16..28]);
        i += 8;
    }
    quantize_row_baseline(&src[i..], &mut dst[3 * i..], q);
}

/// [`Quantizer::apply16`] with SSE2's convert-and-saturate instructions, which do in four
/// steps what the portable form needs seven for: `cvtps2dq` rounds to nearest-even (the
/// default MXCSR mode, which the `2^23` trick of [`Quantizer::apply`] also relies on) and the
/// saturating packs clamp to 0–255. The `min` first sends +inf to 255 (the conversion would
/// make it 0) and keeps NaN, which converts to 0 as before: same bytes for every input.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn apply16(q: Quantizer, v: &[f32; 16]) -> [u8; 16] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; loads and stores are unaligned and stay
    // within the two arrays.
    unsafe {
        let off = _mm_set1_ps(q.add - 0.5 - q.sub);
        let top = _mm_set1_ps(255.0);
        let p = v.as_ptr();
        // `minps` returns its second operand when either is NaN: NaN stays NaN.
        let conv = |x: __m128| _mm_cvtps_epi32(_mm_min_ps(top, _mm_add_ps(x, off)));
        let i0 = conv(_mm_loadu_ps(p));
        let i1 = conv(_mm_loadu_ps(p.add(4)));
        let i2 = conv(_mm_loadu_ps(p.add(8)));
        let i3 = conv(_mm_loadu_ps(p.add(12)));
        let bytes = _mm_packus_epi16(_mm_packs_epi32(i0, i1), _mm_packs_epi32(i2, i3));
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), bytes);
        out
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(super) fn apply16(q: Quantizer, v: &[f32; 16]) -> [u8; 16] {
    q.apply16(v)
}
