//! CPU features checked once at run time, for the few hot loops compiled twice (baseline
//! x86-64 and AVX2). Both copies run the same IEEE operations in the same order (FMA is never
//! enabled), so results are bit-identical; AVX2 only makes them cheaper.

/// Set to any value to run the baseline copies even where AVX2 exists (read once): how the
/// tests check that both copies give the same bytes.
pub const DISABLE_AVX2_ENV: &str = "REINFORS_GYM_DISABLE_AVX2";

/// Whether to use the AVX2 copies: this x86-64 CPU has AVX2 and [`DISABLE_AVX2_ENV`] is not
/// set (cached after the first call).
#[cfg(target_arch = "x86_64")]
pub fn has_avx2() -> bool {
    use std::sync::OnceLock;
    static AVX2: OnceLock<bool> = OnceLock::new();
    *AVX2.get_or_init(|| {
        std::env::var_os(DISABLE_AVX2_ENV).is_none() && std::arch::is_x86_feature_detected!("avx2")
    })
}

/// Defines `fn $name(args)` running `$body` (an `#[inline(always)]` function of the same
/// arguments) from a copy compiled for AVX2 where [`has_avx2`] says so, else from the baseline
/// copy. For the free functions of hot loops; methods spell the same pattern out.
macro_rules! avx2_dispatch {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $body:ident) => {
        $(#[$meta])*
        fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if $crate::cpu::has_avx2() {
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
