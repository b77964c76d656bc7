//! CPU features checked once at run time, for the few hot loops compiled twice (baseline
//! x86-64 and AVX2). Both copies run the same IEEE operations in the same order (FMA is never
//! enabled), so results are bit-identical; AVX2 only makes them cheaper.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set to any value to run the baseline copies even where AVX2 exists (read once): how the
/// tests check that both copies give the same bytes.
pub const DISABLE_AVX2_ENV: &str = "REINFORS_GYM_DISABLE_AVX2";

/// Set to `1` to let the tests comparing the AVX2 and baseline copies pass on an x86-64 CPU
/// without AVX2 (they compare baseline with baseline there); without it they fail.
pub const ALLOW_NO_AVX2_ENV: &str = "REINFORS_GYM_ALLOW_NO_AVX2";

/// Whether [`ALLOW_NO_AVX2_ENV`] is set to `1`.
pub fn no_avx2_allowed() -> bool {
    std::env::var_os(ALLOW_NO_AVX2_ENV).is_some_and(|v| v == "1")
}

/// Whether an AVX2 copy has been dispatched in this process: see [`avx2_used`].
static AVX2_USED: AtomicBool = AtomicBool::new(false);

/// Whether to use the AVX2 copies: this x86-64 CPU has AVX2 and [`DISABLE_AVX2_ENV`] is not
/// set (cached after the first call). Every dispatch asks this right before running an AVX2
/// copy, so a `true` answer is recorded for [`avx2_used`]; ask only to dispatch.
#[cfg(target_arch = "x86_64")]
pub fn has_avx2() -> bool {
    use std::sync::OnceLock;
    static AVX2: OnceLock<bool> = OnceLock::new();
    let yes = *AVX2.get_or_init(|| {
        std::env::var_os(DISABLE_AVX2_ENV).is_none() && std::arch::is_x86_feature_detected!("avx2")
    });
    // Stored once; after that a plain load, so the hot loops never write a shared cache line.
    if yes && !AVX2_USED.load(Ordering::Relaxed) {
        AVX2_USED.store(true, Ordering::Relaxed);
    }
    yes
}

/// Whether any hot loop has run its AVX2 copy in this process so far (always `false` off
/// x86-64): how the tests comparing the AVX2 and baseline copies check that the AVX2 side
/// really ran, rather than comparing baseline with baseline.
pub fn avx2_used() -> bool {
    AVX2_USED.load(Ordering::Relaxed)
}

/// Defines `fn $name(args)` running `$body` (an `#[inline(always)]` function of the same
/// arguments) from a copy compiled for AVX2 where [`has_avx2`] says so, else from the baseline
/// copy. For the free functions of hot loops; methods spell the same pattern out.
macro_rules! avx2_dispatch {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $body:ident) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if $crate::support::cpu::has_avx2() {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    unsafe { avx2($($arg),*) };
                    return;
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use avx2_dispatch;
