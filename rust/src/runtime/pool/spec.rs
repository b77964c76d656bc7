//! What a pool is asked to build: its [`PoolSpec`], the autoreset mode, and the limits a spec
//! must respect (a failed allocation aborts the process, so absurd sizes are refused first).

use crate::sim::env::Config;
use crate::support::error::{Error, Result};

/// Largest pool accepted (each sub-env holds a track, a car and frame buffers).
pub const MAX_ENVS: usize = 1 << 16;
/// Largest observation of one sub-env accepted (stack x frame). Bytes.
pub const MAX_OBS_BYTES: usize = 1 << 28;
/// Most frames stacked per observation.
pub const MAX_STACK_NUM: usize = 64;
/// Longest side of a frame. Pixels.
pub const MAX_FRAME_SIDE: usize = 4096;
/// Most simulation steps per agent step.
pub const MAX_FRAME_SKIP: u32 = 1000;
/// Largest observation batch accepted (the pool and the Python side keep about four such
/// buffers alive). Bytes.
pub const MAX_BATCH_BYTES: u128 = 1 << 30;

/// Gymnasium 1.x vector autoreset modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoresetMode {
    /// A finished sub-env is reset by the following `step` call (which ignores its action).
    NextStep,
    /// A finished sub-env is reset in the same `step`; its last frame goes to `final_obs`.
    SameStep,
    /// Finished sub-envs wait for `reset` with a mask.
    Disabled,
}

/// How the pool builds each observation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolSpec {
    pub num_envs: usize,
    pub config: Config,
    /// Truncate after this many simulation steps (`None`: never).
    pub max_episode_steps: Option<u32>,
    pub autoreset: AutoresetMode,
    /// Simulation steps per agent step; rewards are summed, only the last frame is drawn.
    pub frame_skip: u32,
    /// Frames stacked per observation (1: no stacking).
    pub stack_num: usize,
    /// One luminance channel (Gymnasium's `GrayscaleObservation` weights) instead of RGB.
    pub grayscale: bool,
    /// Frame size, drawn natively at this resolution. Pixels.
    pub width: usize,
    pub height: usize,
    /// Channels first (`(3, H, W)`, PyTorch's layout) instead of Gymnasium's `(H, W, 3)`.
    /// Irrelevant for grayscale frames, which have no channel axis.
    pub channels_first: bool,
}

impl PoolSpec {
    /// Bytes of one frame (one stack entry).
    pub fn frame_bytes(&self) -> usize {
        self.width * self.height * if self.grayscale { 1 } else { 3 }
    }

    /// Bytes of one sub-env's observation.
    pub fn obs_bytes(&self) -> usize {
        self.frame_bytes() * self.stack_num
    }

    /// Shape of one sub-env's observation: the frame (`(H, W)` grayscale, `(3, H, W)` channels
    /// first, else `(H, W, 3)`), behind a leading `stack_num` axis when stacking.
    pub fn obs_shape(&self) -> Vec<usize> {
        let (h, w) = (self.height, self.width);
        let frame = if self.grayscale {
            vec![h, w]
        } else if self.channels_first {
            vec![3, h, w]
        } else {
            vec![h, w, 3]
        };
        if self.stack_num == 1 {
            frame
        } else {
            [vec![self.stack_num], frame].concat()
        }
    }

    pub(super) fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if self.num_envs == 0 {
            return bad("num_envs must be at least 1".into());
        }
        if !(1..=MAX_FRAME_SKIP).contains(&self.frame_skip) {
            return bad(format!(
                "frame_skip must be between 1 and {MAX_FRAME_SKIP}, got {}",
                self.frame_skip
            ));
        }
        if !(1..=MAX_STACK_NUM).contains(&self.stack_num) {
            return bad(format!(
                "stack_num must be between 1 and {MAX_STACK_NUM}, got {}",
                self.stack_num
            ));
        }
        let side = 1..=MAX_FRAME_SIDE;
        if !side.contains(&self.width) || !side.contains(&self.height) {
            return bad(format!(
                "each side of obs_size must be between 1 and {MAX_FRAME_SIDE} pixels, got {}x{}",
                self.height, self.width
            ));
        }
        if self.max_episode_steps == Some(0) {
            return bad("max_episode_steps must be positive (or None)".into());
        }
        // A failed allocation aborts the process instead of raising, so refuse absurd sizes.
        if self.num_envs > MAX_ENVS {
            return bad(format!(
                "num_envs must be at most {MAX_ENVS}, got {}",
                self.num_envs
            ));
        }
        if self.obs_bytes() > MAX_OBS_BYTES {
            return bad(format!(
                "one observation would need {} bytes (stack x frame), more than {MAX_OBS_BYTES}",
                self.obs_bytes()
            ));
        }
        let total = (self.obs_bytes() as u128) * (self.num_envs as u128);
        if total > MAX_BATCH_BYTES {
            return bad(format!(
                "observations would need {total} bytes (num_envs x stack x frame), more than {MAX_BATCH_BYTES}"
            ));
        }
        Ok(())
    }
}
