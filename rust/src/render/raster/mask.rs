//! The touched-cell mask: a bit per cell where an edge deposited, and the runs of touched
//! cells it yields (between them a row's running sum cannot change).

/// Sets bits `lo..=hi` of a row's touched-cell mask.
#[inline]
pub(super) fn mark(words: &mut [u64], lo: usize, hi: usize) {
    let (wl, wh) = (lo / 64, hi / 64);
    let lo_mask = !0u64 << (lo % 64);
    let hi_mask = !0u64 >> (63 - hi % 64);
    if wl == wh {
        words[wl] |= lo_mask & hi_mask;
    } else {
        words[wl] |= lo_mask;
        words[wl + 1..wh].fill(!0);
        words[wh] |= hi_mask;
    }
}

/// Sets bits `i` and `i + 1` of a row's touched-cell mask ([`mark`] for the commonest case:
/// an edge crossing a row within one pixel column).
#[inline]
pub(super) fn mark_pair(words: &mut [u64], i: usize) {
    let (w, b) = (i / 64, i % 64);
    words[w] |= 3 << b;
    if b == 63 {
        words[w + 1] |= 1;
    }
}

/// Index of the first bit at or after `from` that is set (`want == true`) or clear, if any.
#[inline]
pub(super) fn next_bit(words: &[u64], from: usize, want: bool) -> Option<usize> {
    let flip = if want { 0 } else { !0u64 };
    let mut i = from / 64;
    let mut w = (*words.get(i)? ^ flip) & (!0u64 << (from % 64));
    loop {
        if w != 0 {
            return Some(i * 64 + w.trailing_zeros() as usize);
        }
        i += 1;
        w = *words.get(i)? ^ flip;
    }
}

/// The runs `a..b` of touched cells in a row's mask (`stride` cells), left to right, with gaps
/// shorter than [`MIN_UNIFORM_SPAN`] joined into the runs around them (the running sum is
/// constant across a gap, so a gap is reported as a uniform span only where that is cheaper
/// than summing through it).
pub(super) struct TouchedRuns<'a> {
    words: &'a [u64],
    stride: usize,
    x: usize,
}

impl Iterator for TouchedRuns<'_> {
    type Item = (usize, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<(usize, usize)> {
        let a = next_bit(self.words, self.x, true)?;
        let mut b = next_bit(self.words, a, false).unwrap_or(self.stride);
        while let Some(next) = next_bit(self.words, b, true) {
            if next >= b + MIN_UNIFORM_SPAN {
                break;
            }
            b = next_bit(self.words, next, false).unwrap_or(self.stride);
        }
        self.x = b;
        Some((a, b))
    }
}

#[inline(always)]
pub(super) fn touched_runs(words: &[u64], stride: usize) -> TouchedRuns<'_> {
    TouchedRuns {
        words,
        stride,
        x: 0,
    }
}

/// Gaps between touched cells shorter than this (pixels) are summed through rather than
/// reported as their own span: a span costs more than a few cells.
pub(super) const MIN_UNIFORM_SPAN: usize = 6;

/// Clears a row's touched mask: for the usual one or two words, plain stores rather than a
/// `memset` call.
#[inline(always)]
pub(super) fn clear_words(words: &mut [u64]) {
    match words {
        [a] => *a = 0,
        [a, b] => (*a, *b) = (0, 0),
        _ => words.fill(0),
    }
}
