//! A reusable 2-D renderer with exact area-coverage anti-aliasing, drawing into caller-owned
//! RGB memory at any resolution. It knows nothing of CarRacing: the scene (`sim::scene`)
//! describes a frame and draws it with this.
//!
//! May use `support` only (the CPU checks of its AVX2 loops).
//!
//! Pipeline stages, one module each:
//! - [`transform`]: affine maps from a scene's space to canvas pixels (rotate, scale, flip).
//! - [`raster`]: signed-area accumulation of polygon layers at the output resolution.
//! - [`f32x4`]: four float lanes (one pixel or cell) per SSE operation, bit-identical to scalar.
//! - [`canvas`]: the drawing API (layers, rects, strokes, grey images), row-by-row
//!   compositing and quantization (one submodule each).
//! - [`font`] (with generated [`font_data`] and [`font_data_pygame`]): the score text of
//!   pygame's default font, as pygame-ce and pygame rasterise it.

pub mod canvas;
pub mod f32x4;
pub mod font;
pub mod font_data;
pub mod font_data_pygame;
pub mod raster;
pub mod transform;

pub use canvas::{Canvas, GrayPatch, Quantizer};
pub use raster::{Accumulator, Span};
pub use transform::Transform;
