//! The road layer's shared edges: the edge two consecutive road quads share, deposited once.

use crate::render::Canvas;

/// An edge left out of a drawn quad: `(from, to, weight)`, output pixels.
type WaitingEdge = ([f32; 2], [f32; 2], [f32; 4]);

/// Deposits the edge that consecutive road quads share once instead of twice.
///
/// Tile `i` is `[l(i), r(i), r(i-1), l(i-1)]` (Gymnasium's `road1_l, road1_r, road2_r,
/// road2_l`): its edge 2 is tile `i - 1`'s edge 0 reversed, vertex for vertex (the same
/// floats, so the same pixels); kerbs chain the same way. Each quad's edge 0 waits here; when a
/// later quad's edge 2 is exactly its reverse, the pair is deposited as one edge weighted by
/// the difference of the two colours (the coverage parts cancel). Edges never matched are
/// deposited on their own. The sum per pixel is the same up to float rounding.
#[derive(Default)]
pub(super) struct SharedEdges {
    /// Waiting edges: a tile's and a kerb's can wait at the same time.
    waiting: [Option<WaitingEdge>; 2],
    /// Which slot to give up next when both are taken.
    next_out: usize,
}

impl SharedEdges {
    pub(super) fn push(&mut self, canvas: &mut Canvas, px: &[[f32; 2]; 4], color: [f32; 3]) {
        let slot = self
            .waiting
            .iter()
            .position(|w| w.is_some_and(|(from, to, _)| from == px[3] && to == px[2]));
        let skip = if slot.is_some() { 0b101 } else { 0b001 };
        let Some(wgt) = canvas.push_pixel_polygon_except(px, color, skip) else {
            return; // Nothing drawn: nothing of it may be merged either.
        };
        if let Some(k) = slot {
            if let Some((from, to, w)) = self.waiting[k].take() {
                let diff = [w[0] - wgt[0], w[1] - wgt[1], w[2] - wgt[2], w[3] - wgt[3]];
                canvas.push_pixel_edge(from, to, diff);
            }
        }
        let k = match self.waiting.iter().position(Option::is_none) {
            Some(k) => k,
            None => {
                let k = self.next_out;
                self.next_out = (k + 1) % self.waiting.len();
                if let Some((from, to, w)) = self.waiting[k].take() {
                    canvas.push_pixel_edge(from, to, w);
                }
                k
            }
        };
        self.waiting[k] = Some((px[0], px[1], wgt));
    }

    /// Deposits every edge still waiting (before the layer is composited).
    pub(super) fn flush(&mut self, canvas: &mut Canvas) {
        for (from, to, w) in self.waiting.iter_mut().filter_map(Option::take) {
            canvas.push_pixel_edge(from, to, w);
        }
    }
}
