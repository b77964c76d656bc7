//! STUB: replaced by the rasterizer.
