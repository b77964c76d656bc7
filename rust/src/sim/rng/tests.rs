//! NumPy's generator: bit for bit against streams NumPy recorded, and the ranges it draws.

use super::*;
use proptest::prelude::*;

/// One draw of a mixed sequence and NumPy's result for it (short names keep the
/// generated table compact).
enum Op {
    /// `uniform(low, high)` and the result's bits.
    U(f64, f64, u64),
    /// `integers(low, high)` and the result.
    I(i64, i64, i64),
    /// `random()` and the result's bits.
    R(u64),
}
use Op::{I, R, U};

/// NumPy's outputs for one seed (see `tools/gen_rng_reference.py`).
struct Case {
    seed: u128,
    words: &'static [u32],
    pool: [u32; 4],
    state: u128,
    inc: u128,
    random20: [u64; 20],
    ints_3: [i64; 10],
    ints_5: [i64; 10],
    ints_1000: [i64; 10],
    ints_2p40: [i64; 10],
    mixed: &'static [Op],
    /// `(state, inc, has_uint32, uinteger)` after `mixed`.
    mixed_end: (u128, u128, bool, u32),
    gym_colors: [u64; 6],
    gym_idx: i64,
    gym_track: [u64; 48],
}

fn generator(case: &Case) -> NumpyGenerator {
    NumpyGenerator::from_entropy_words(&coerce_seed_words(case.seed))
}

#[test]
fn seed_words_match_numpy() {
    for case in CASES {
        assert_eq!(
            coerce_seed_words(case.seed),
            case.words,
            "seed {:#x}",
            case.seed
        );
    }
    assert_eq!(coerce_seed_words(0), vec![0]);
}

#[test]
fn seed_sequence_pool_matches_numpy() {
    for case in CASES {
        assert_eq!(
            seed_sequence_pool(case.words),
            case.pool,
            "seed {:#x}",
            case.seed
        );
    }
}

#[test]
fn pcg64_state_after_seeding_matches_numpy() {
    for case in CASES {
        let rng = generator(case);
        assert_eq!(
            rng.pcg64_state(),
            (case.state, case.inc),
            "seed {:#x}",
            case.seed
        );
        assert_eq!(rng.buffered_uint32(), None);
    }
}

#[test]
fn from_seed_agrees_with_entropy_words() {
    for case in CASES {
        if let Ok(seed) = u64::try_from(case.seed) {
            assert_eq!(NumpyGenerator::from_seed(seed), generator(case));
        }
    }
}

#[test]
fn random_matches_numpy_bits() {
    for case in CASES {
        let mut rng = generator(case);
        for (i, &bits) in case.random20.iter().enumerate() {
            let got = rng.random();
            assert_eq!(got.to_bits(), bits, "seed {:#x} draw {i}", case.seed);
            assert!((0.0..1.0).contains(&got));
        }
    }
}

#[test]
fn integers_match_numpy() {
    for case in CASES {
        for (high, expected) in [
            (3, &case.ints_3),
            (5, &case.ints_5),
            (1000, &case.ints_1000),
            (1 << 40, &case.ints_2p40),
        ] {
            let mut rng = generator(case);
            let got: Vec<i64> = (0..10).map(|_| rng.integers(0, high)).collect();
            assert_eq!(got, expected, "seed {:#x} high {high}", case.seed);
        }
    }
}

#[test]
fn mixed_sequence_matches_numpy_including_uint32_buffer() {
    for case in CASES {
        let mut rng = generator(case);
        for (i, op) in case.mixed.iter().enumerate() {
            match *op {
                U(low, high, bits) => {
                    let got = rng.uniform(low, high);
                    assert_eq!(got.to_bits(), bits, "seed {:#x} op {i}", case.seed);
                }
                I(low, high, value) => {
                    assert_eq!(
                        rng.integers(low, high),
                        value,
                        "seed {:#x} op {i}",
                        case.seed
                    );
                }
                R(bits) => {
                    assert_eq!(rng.random().to_bits(), bits, "seed {:#x} op {i}", case.seed);
                }
            }
        }
        let (state, inc, has_uint32, uinteger) = case.mixed_end;
        assert_eq!(rng.pcg64_state(), (state, inc), "seed {:#x}", case.seed);
        assert_eq!(rng.buffered_uint32(), has_uint32.then_some(uinteger));
    }
}

/// CarRacing's draw order: colours (`uniform(0, 210, size=3)` twice), `integers(3)`, then
/// alternating angle-noise and radius uniforms, 12 checkpoints per track attempt.
#[test]
fn car_racing_draw_sequence_matches_numpy() {
    let noise_high = 2.0 * std::f64::consts::PI / 12.0;
    let track_rad = 900.0 / 6.0;
    for case in CASES {
        let mut rng = generator(case);
        for (i, &bits) in case.gym_colors.iter().enumerate() {
            assert_eq!(
                rng.uniform(0.0, 210.0).to_bits(),
                bits,
                "seed {:#x} colour {i}",
                case.seed
            );
        }
        assert_eq!(rng.integers(0, 3), case.gym_idx, "seed {:#x}", case.seed);
        for (i, pair) in case.gym_track.chunks_exact(2).enumerate() {
            let noise = rng.uniform(0.0, noise_high);
            let rad = rng.uniform(track_rad / 3.0, track_rad);
            assert_eq!(
                noise.to_bits(),
                pair[0],
                "seed {:#x} checkpoint {i}",
                case.seed
            );
            assert_eq!(
                rad.to_bits(),
                pair[1],
                "seed {:#x} checkpoint {i}",
                case.seed
            );
        }
    }
}

#[test]
fn integers_with_single_value_range_draws_nothing() {
    let mut a = NumpyGenerator::from_seed(7);
    let b = a.clone();
    assert_eq!(a.integers(-4, -3), -4);
    assert_eq!(a, b);
}

#[test]
#[should_panic(expected = "low >= high")]
fn integers_rejects_empty_range() {
    NumpyGenerator::from_seed(0).integers(3, 3);
}

proptest! {
    /// With `low == 0` (as for CarRacing's colours and angle noise), `span * d` with
    /// `d <= 1 - 2^-53` always rounds below `span`, so the range is strictly half-open.
    #[test]
    fn uniform_from_zero_stays_in_half_open_range(seed in any::<u64>(), span in 1.0e-300f64..1.0e300) {
        let mut rng = NumpyGenerator::from_seed(seed);
        for _ in 0..64 {
            let x = rng.uniform(0.0, span);
            prop_assert!((0.0..span).contains(&x), "{x} not in [0, {span})");
        }
    }

    /// General ranges: `[low, high)` up to rounding. Like NumPy, `low + span * d` may round
    /// up to `high` when `span` is tiny next to `|low|`, so only `x <= high` is guaranteed.
    #[test]
    fn uniform_stays_in_range(
        seed in any::<u64>(),
        low in -1.0e6f64..1.0e6,
        span in 1.0e-3f64..1.0e6,
    ) {
        let high = low + span;
        let mut rng = NumpyGenerator::from_seed(seed);
        for _ in 0..64 {
            let x = rng.uniform(low, high);
            prop_assert!(low <= x && x <= high, "{x} not in [{low}, {high}]");
        }
    }

    /// CarRacing's radius range, `[TRACK_RAD / 3, TRACK_RAD)`.
    #[test]
    fn uniform_track_radius_in_range(seed in any::<u64>()) {
        let mut rng = NumpyGenerator::from_seed(seed);
        for _ in 0..64 {
            let x = rng.uniform(50.0, 150.0);
            prop_assert!((50.0..150.0).contains(&x), "{x}");
        }
    }

    #[test]
    fn integers_stay_in_range(
        seed in any::<u64>(),
        low in any::<i64>(),
        high in any::<i64>(),
    ) {
        prop_assume!(low < high);
        let mut rng = NumpyGenerator::from_seed(seed);
        for _ in 0..64 {
            let x = rng.integers(low, high);
            prop_assert!(low <= x && x < high, "{x} not in [{low}, {high})");
        }
    }

    #[test]
    fn small_integers_stay_in_range(seed in any::<u64>(), low in -1000i64..1000, n in 1i64..50) {
        let mut rng = NumpyGenerator::from_seed(seed);
        for _ in 0..64 {
            let x = rng.integers(low, low + n);
            prop_assert!(low <= x && x < low + n);
        }
    }
}

// Generated by tools/gen_rng_reference.py with numpy 2.4.6
// Do not edit by hand.
#[rustfmt::skip]
const CASES: &[Case] = &[
    Case {
        seed: 0x0,
        words: &[0x00000000],
        pool: [0xfe40eb07, 0x4f363a36, 0x4eb2009d, 0xc89a7aa7],
        state: 0x1aa1b5345996452d09585eb7a69561e3,
        inc: 0x418ddadb3af71a82588133bc447873a9,
        random20: [0x3fe461fd79fb3850, 0x3fd1442f7e20b674, 0x3fa4fa7b529d9bd0, 0x3f90ec9ed84d0bc0, 0x3fea064f4f059bca, 0x3fed354b2f34c803, 0x3fe3698f6e301db6, 0x3fe758092bff1053, 0x3fe165603cf43b8f, 0x3fedec1d00f1ead7, 0x3fea1b78e9a8e006, 0x3f666f0d1577d200, 0x3feb6fdb17ec9cde, 0x3fa13220e71bcf20, 0x3fe7595660f879fa, 0x3fc67be224ec5c90, 0x3feb9f296742db6f, 0x3fe153a67b20b50f, 0x3fd32e7ac8052544, 0x3fdb0d4eb3dec9b4],
        ints_3: [2, 1, 1, 0, 0, 0, 0, 0, 0, 2],
        ints_5: [4, 3, 2, 1, 1, 0, 0, 0, 0, 4],
        ints_1000: [850, 636, 511, 269, 307, 40, 75, 16, 175, 813],
        ints_2p40: [700346781657, 296633628802, 45050865998, 18172327443, 894200084524, 1003585370534, 667003089280, 802089951224, 597721999265, 1028123002767],
        mixed: &[
            U(0.0, 1.0, 0x3fe461fd79fb3850), I(0, 3, 1), U(0.0, 1.0, 0x3fa4fa7b529d9bd0),
            I(0, 3, 0), I(0, 3, 0), U(0.0, 1.0, 0x3fea064f4f059bca),
            I(0, 3, 0), I(0, 3, 1), I(0, 3, 2),
            R(0x3fe3698f6e301db6), I(-5, 5, 4), I(0, 1099511627776, 597721999265),
            I(10, 1000, 732), U(0.0, 1.0, 0x3fedec1d00f1ead7), I(0, 3, 0),
            I(0, 4294967296, 3504064333), I(0, 4294967297, 11761768), U(-3.5, 7.25, 0x4016de4e6825f2ca),
            I(-9223372036854775808, 9223372036854775807, -8603827524626574050), I(7, 8, 7), I(0, 5, 3),
            I(0, 2147483648, 1566923139), R(0x3fc67be224ec5c90), I(0, 1000, 89),
            I(0, 2147483649, 1853662621), I(0, 3221225472, 71195362), I(-4611686018427387904, 6917529027641081856, 261565851985528406),
            U(0.0, 1.0, 0x3f9cffd4f59cea80), I(0, 2147483649, 1389828893), I(0, 3221225472, 828820644),
            I(-4611686018427387904, 6917529027641081856, 6696575527107189575), U(0.0, 1.0, 0x3fe5eff5be6c250e), I(0, 2147483649, 1321529464),
            I(0, 3221225472, 3060487342), I(-4611686018427387904, 6917529027641081856, 3325564386087741333), U(0.0, 1.0, 0x3fd8e416af2d0e5a),
            I(0, 2147483649, 1396850659), I(0, 3221225472, 2819075275), I(-4611686018427387904, 6917529027641081856, 1445236940776858212),
            U(0.0, 1.0, 0x3fd3db00bd5806d2),
        ],
        mixed_end: (0xaa64e62cfad60b8fc75c87114addde0f, 0x418ddadb3af71a82588133bc447873a9, true, 0x2295af3e),
        gym_colors: [0x4060b861ee101432, 0x404c53ddeaedab56, 0x4021357929c549d1, 0x400bc4349ade6747, 0x4065592d0ed299cc, 0x4067f5b7acb94c12],
        gym_idx: 1,
        gym_track: [0x3fd872170fc73693, 0x405a17332f9ece88, 0x3fdf55a6e1f15b32, 0x406072bb3b45f782, 0x3f577e1beb323d47, 0x4060f7b195586d46, 0x3f9201e5f1487b2b, 0x405ebdcb7bc21f4b, 0x3fb78b8c06a232fd, 0x40610a2c2c561db8, 0x3fd225008cd92588, 0x4053fe27f622028e, 0x3fcc542a3c673ee8, 0x404a6a7de5fe2973, 0x3fb0a8ba23f99b41, 0x405d43ff0a813505, 0x3fd5b001e166da94, 0x405be276f7766eb8, 0x3fc9b6dd722b6675, 0x4062b712612042f2, 0x3fe06f1e27003032, 0x405da377fcc47cf3, 0x3fd5cc0eb77f5603, 0x405db60f1f9501fe, 0x3fca10d5e9276407, 0x404fc13c3a47c1ff, 0x3fd82d63f2bbdbd3, 0x4059a244859e2313, 0x3fc4cae87e5eb0c4, 0x4058a558a6e392f0, 0x3fddce9916463c9b, 0x4061ecf072c1e96e, 0x3fc7facb46a41a86, 0x405ac9ca7983d188, 0x3fc592679f24ad4a, 0x405b5b852b62fcde, 0x3fc6a5a39b8bb639, 0x40564a5c920a0438, 0x3fddd558624a5792, 0x40522dcf00519922, 0x3fd4e21981025eb9, 0x404d33657a546d64, 0x3fdbe6f4d29d318c, 0x406016b6eef982b6, 0x3fc00aedff4d1b19, 0x406134bfe1c2e567, 0x3f9f66f293efffca, 0x4054e7263126c816],
    },
    Case {
        seed: 0x1,
        words: &[0x00000001],
        pool: [0xa137e185, 0x0de2fab1, 0x950eae78, 0x54dd0a81],
        state: 0x9c5b484bfedb756c2a6e7d6f320fbc7e,
        inc: 0x922af2da2645f895a19857b95740937b,
        random20: [0x3fe060d7be6f245c, 0x3fee6a32d7782a55, 0x3fc273d27b04760c, 0x3fee5b5615da558d, 0x3fd3f50be80ff35c, 0x3fdb17c7d1779e1c, 0x3fea7c8a2668bdcd, 0x3fda30519310728e, 0x3fe1964580549a3f, 0x3f9c3874c857cc00, 0x3fe81cc785dbb2e6, 0x3fe13878535acff3, 0x3fd51a530eb452a6, 0x3fe93aced50e7c5a, 0x3fd3678b4907ee46, 0x3fdd061c0307f682, 0x3fc1284740fd0b40, 0x3fd9cc9a6958882c, 0x3fca0ad24273b210, 0x3fd0c9bde4a024fe],
        ints_3: [1, 1, 2, 2, 0, 0, 2, 2, 0, 0],
        ints_5: [2, 2, 3, 4, 0, 0, 4, 4, 1, 1],
        ints_1000: [473, 511, 755, 950, 34, 144, 822, 948, 249, 311],
        ints_2p40: [562753827705, 1045045885889, 158505170440, 1043051097810, 342862307391, 465452352990, 910068626245, 449919208513, 604284650148, 30301565461],
        mixed: &[
            U(0.0, 1.0, 0x3fe060d7be6f245c), I(0, 3, 2), U(0.0, 1.0, 0x3fc273d27b04760c),
            I(0, 3, 2), I(0, 3, 2), U(0.0, 1.0, 0x3fd3f50be80ff35c),
            I(0, 3, 2), I(0, 3, 2), I(0, 3, 1),
            R(0x3fea7c8a2668bdcd), I(-5, 5, -3), I(0, 1099511627776, 604284650148),
            I(10, 1000, 415), U(0.0, 1.0, 0x3f9c3874c857cc00), I(0, 3, 2),
            I(0, 4294967296, 3236314158), I(0, 4294967297, 2311307931), U(-3.5, 7.25, 0x3fa6d7e6f093c3c0),
            I(-9223372036854775808, 9223372036854775807, 5320570475655648521), I(7, 8, 7), I(0, 5, 0),
            I(0, 2147483648, 651105938), R(0x3fdd061c0307f682), I(0, 1000, 976),
            I(0, 2147483649, 287852352), I(0, 3221225472, 1234733061), I(-4611686018427387904, 6917529027641081856, -1587419107020734797),
            U(0.0, 1.0, 0x3fe802fcc620a262), I(0, 2147483649, 865678546), I(0, 3221225472, 199782771),
            I(-4611686018427387904, 6917529027641081856, 982185064206441929), U(0.0, 1.0, 0x3fef6232fae3bdf4), I(0, 2147483649, 602173222),
            I(0, 3221225472, 296688358), I(-4611686018427387904, 6917529027641081856, -1419347782623482669), U(0.0, 1.0, 0x3fc4903eb9dce978),
            I(0, 2147483649, 1556474546), I(0, 3221225472, 1039088641), I(-4611686018427387904, 6917529027641081856, 1338179682874488764),
            U(0.0, 1.0, 0x3fbda95e684afff8),
        ],
        mixed_end: (0x4112aa393bc25bb71f7ae0c6c71a461e, 0x922af2da2645f895a19857b95740937b, true, 0xf84d0829),
        gym_colors: [0x405adee1f46e57a7, 0x4068f31db4c092ba, 0x403e460551d351ac, 0x4068e6ec9ded1a2e, 0x40505f03c45d15a1, 0x40563981e9d41fb3],
        gym_idx: 0,
        gym_track: [0x3fcb6cbefea3fcf1, 0x405a3d664c421881, 0x3f8d8d6ecd74b4dc, 0x405f567be093a3c4, 0x3fd20889fca782ba, 0x4054be4871be7049, 0x3fda6ba5d9f1fe46, 0x4054147268871913, 0x3fce64cada23eaa5, 0x404fb3bbd562d865, 0x3fcb0453031c05f1, 0x4051961d10fa98c7, 0x3fc19495ac14ed8b, 0x405f42557ac97edd, 0x3fc2cb0d8a03ebef, 0x4058a138e47b74c4, 0x3fe06eb263a61bee, 0x4062454d92b35d21, 0x3fd849b6b347a1fb, 0x405a07da14835422, 0x3fc28eb382afac60, 0x4050842c404d259a, 0x3fe0405254e5dd03, 0x405966d6c5438726, 0x3faf0fc1d73debdb, 0x405c16559d8f9d70, 0x3fda06e2fb6db837, 0x405bd3389bc31240, 0x3fdebd2b3ee02963, 0x404afac9f0315d9b, 0x3fd1b6940723fa81, 0x4057fbbfe917cd68, 0x3fa0b6ff777185f8, 0x405c888012836de6, 0x3fdc926ea2927c9c, 0x405b52d290665f00, 0x3fc16e90e26e41cc, 0x4060bf9ef128ced6, 0x3fd112c86ed1cbde, 0x405945b0592ad790, 0x3fd93bfa110c799a, 0x405032b376a35a6f, 0x3fdb7748d35ce854, 0x405d9509444cb9b3, 0x3fda6039203acde0, 0x40514a58142ad56a, 0x3fdae331f64a158e, 0x405148791ed5f32f],
    },
    Case {
        seed: 0x2a,
        words: &[0x0000002a],
        pool: [0x631d3606, 0x07ae90ae, 0x6fc4be28, 0x2ced5c75],
        state: 0xcea44f6798798f2aacbc7c9d68860ac8,
        inc: 0xfa505436c9a8416e66caf2e28d25abff,
        random20: [0x3fe8c43f79a2db24, 0x3fdc16959869e47e, 0x3feb79a2584ddb42, 0x3fe650d6c1c2c011, 0x3fb81c01b5339380, 0x3fef384c5db0d8ea, 0x3fe85b41a5f78b48, 0x3fe927705476f592, 0x3fc066070b41b168, 0x3fdcd31f8a75be6e, 0x3fd7bb27a2e005c4, 0x3feda80f0cc5d772, 0x3fe49a8b06390299, 0x3fea541029ace094, 0x3fdc60e5f2a2e84e, 0x3fcd16288f39a8a8, 0x3fe1bf289862f2c7, 0x3fb05653e3e34cb8, 0x3fea7bf45e1b771f, 0x3fe436984208db37],
        ints_3: [0, 2, 1, 1, 1, 2, 0, 2, 0, 0],
        ints_5: [0, 3, 3, 2, 2, 4, 0, 3, 1, 0],
        ints_1000: [89, 773, 654, 438, 433, 858, 85, 697, 201, 94],
        ints_2p40: [850973674774, 482551947687, 944038396526, 766764256790, 103549089075, 1072708119942, 836881952700, 864286843831, 140862428803, 495204575702],
        mixed: &[
            U(0.0, 1.0, 0x3fe8c43f79a2db24), I(0, 3, 1), U(0.0, 1.0, 0x3feb79a2584ddb42),
            I(0, 3, 1), I(0, 3, 0), U(0.0, 1.0, 0x3fb81c01b5339380),
            I(0, 3, 2), I(0, 3, 1), I(0, 3, 2),
            R(0x3fe85b41a5f78b48), I(-5, 5, 2), I(0, 1099511627776, 140862428803),
            I(10, 1000, 788), U(0.0, 1.0, 0x3fdcd31f8a75be6e), I(0, 3, 1),
            I(0, 4294967296, 1592565387), I(0, 4294967297, 3980425319), U(-3.5, 7.25, 0x400b5f55a0b936fc),
            I(-9223372036854775808, 9223372036854775807, 5953900876824617141), I(7, 8, 7), I(0, 5, 2),
            I(0, 2147483648, 952224741), R(0x3fcd16288f39a8a8), I(0, 1000, 92),
            I(0, 2147483649, 137046513), I(0, 3221225472, 2764749778), I(-4611686018427387904, 6917529027641081856, 2670908675996521403),
            U(0.0, 1.0, 0x3fe842413865498e), I(0, 2147483649, 1777324408), I(0, 3221225472, 2256542423),
            I(-4611686018427387904, 6917529027641081856, 6579700249615270101), U(0.0, 1.0, 0x3fec9472beee4312), I(0, 2147483649, 1455819992),
            I(0, 3221225472, 2507348747), I(-4611686018427387904, 6917529027641081856, 769240800058513230), U(0.0, 1.0, 0x3fa66d727afede80),
            I(0, 2147483649, 1173749072), I(0, 3221225472, 497001241), I(-4611686018427387904, 6917529027641081856, 3263332250496839002),
            U(0.0, 1.0, 0x3fe7d51771dd8559),
        ],
        mixed_end: (0xff72a607f9edc23fa026fbc08ff8a655, 0xfa505436c9a8416e66caf2e28d25abff, false, 0x277f8422),
        gym_colors: [0x406450fc11c797c4, 0x40570a86b706dd6f, 0x406689c72c6fdddc, 0x40624e502af1c18e, 0x4033c6f966a44eff, 0x40699c2ea4db11f0],
        gym_idx: 2,
        gym_track: [0x3fda575d51e2fee4, 0x404f67dac065a94c, 0x3fce2f6656226063, 0x4055c51b7b9f8240, 0x3fdf0e62a7bd7e99, 0x405c98bc9cdc8a08, 0x3fdb922d77e76e61, 0x405795d9d2c7a2be, 0x3fbe759950295c40, 0x405a5d57b70d4dac, 0x3fa11bb92b9ab0af, 0x4060986b74c2ba88, 0x3fd52ad2ad6a38b4, 0x405f73c2f40f2177, 0x3fc7c2b3f544729b, 0x4062623bd2535958, 0x3fddedc4443230de, 0x405ff5a78587f2ae, 0x3fba16f1854d0ed1, 0x40582b03b1481900, 0x3f977c6def93fd77, 0x40505b73e75faa0b, 0x3fd6e3a1f6ac1a97, 0x405f1e7a50f5102e, 0x3fe035f5c11135aa, 0x4054a548444b4570, 0x3fc8d41527cb67c9, 0x40583d283dbee898, 0x3fb965a0caacdaf8, 0x404f7efec9e725a2, 0x3fcfe1ce0a26424b, 0x40522c3847094141, 0x3fd672183de2daca, 0x40576dc5b43181f5, 0x3fdbe73f98f6d87b, 0x405e01b257d6be7d, 0x3fc4ef5d072675a0, 0x4060a73b3ab3991a, 0x3fdaf7c91c74e784, 0x40562fdc93820ad4, 0x3fc352ed67778e01, 0x405d8ff8a23afd2b, 0x3fb2bb8bd9c6043b, 0x40517f699953d184, 0x3f6f94427c7c7d7a, 0x40601628733675e6, 0x3fd64784887eb875, 0x405e210ef4d2ca07],
    },
    Case {
        seed: 0xffffffff,
        words: &[0xffffffff],
        pool: [0x9c7e046c, 0xdecfba02, 0x6b54a1b3, 0xc4c4a610],
        state: 0x4c233832246aa48cc57a3ce19c86ba9a,
        inc: 0xda9580daf0fe872cad12d969e7b701fb,
        random20: [0x3fd01fd7ea4c363e, 0x3fcc0a59175cb424, 0x3fd262df73ba3636, 0x3fe3ceb1e066d3d0, 0x3fedeb9ee576a18d, 0x3fd2f11e3a886ec8, 0x3fe0a7a79dfb08c7, 0x3fd19f7554a42d78, 0x3fe8460ed10e0d49, 0x3fe8dccd1c98b1ff, 0x3fe7076f9c10ce17, 0x3febd5d0d8b7309d, 0x3fa79e1caa934d00, 0x3fb8a43043a19e00, 0x3fee8c3e0b87f8a8, 0x3fdf1f3c34b711a4, 0x3fe53e3f4403bca7, 0x3fc267c0939e8090, 0x3fd2d75411962e46, 0x3fdc5d09b7661c6a],
        ints_3: [0, 0, 2, 0, 2, 0, 0, 1, 2, 2],
        ints_5: [0, 1, 3, 1, 4, 1, 1, 3, 3, 4],
        ints_1000: [190, 251, 724, 219, 909, 287, 213, 618, 707, 935],
        ints_2p40: [277014882608, 240865390265, 315872890600, 680577139510, 1028056886197, 325418805793, 572258054104, 302758843024, 834036729968, 854269158597],
        mixed: &[
            U(0.0, 1.0, 0x3fd01fd7ea4c363e), I(0, 3, 2), U(0.0, 1.0, 0x3fd262df73ba3636),
            I(0, 3, 0), I(0, 3, 0), U(0.0, 1.0, 0x3fedeb9ee576a18d),
            I(0, 3, 1), I(0, 3, 0), I(0, 3, 0),
            R(0x3fe0a7a79dfb08c7), I(-5, 5, 0), I(0, 1099511627776, 834036729968),
            I(10, 1000, 282), U(0.0, 1.0, 0x3fe8dccd1c98b1ff), I(0, 3, 1),
            I(0, 4294967296, 3090906336), I(0, 4294967297, 3735979718), U(-3.5, 7.25, 0xc00808712f594211),
            I(-9223372036854775808, 9223372036854775807, -7447774816731527701), I(7, 8, 7), I(0, 5, 1),
            I(0, 2147483648, 2050029614), R(0x3fdf1f3c34b711a4), I(0, 1000, 116),
            I(0, 2147483649, 1425603856), I(0, 3221225472, 767613225), I(-4611686018427387904, 6917529027641081856, -3620577096854056541),
            U(0.0, 1.0, 0x3fa780d598812360), I(0, 2147483649, 308789395), I(0, 3221225472, 382162524),
            I(-4611686018427387904, 6917529027641081856, 6401954366126249713), U(0.0, 1.0, 0x3fcd900f681416b4), I(0, 2147483649, 1267976618),
            I(0, 3221225472, 2118013268), I(-4611686018427387904, 6917529027641081856, 5248092880074448217), U(0.0, 1.0, 0x3fbab799927c3498),
            I(0, 2147483649, 1492630970), I(0, 3221225472, 1958531384), I(-4611686018427387904, 6917529027641081856, -942416967909271306),
            U(0.0, 1.0, 0x3fbf95b194514450),
        ],
        mixed_end: (0x70ca0d23857a308435de487e64836b9d, 0xda9580daf0fe872cad12d969e7b701fb, true, 0x3e0c0f2a),
        gym_colors: [0x404a743e3c6508fe, 0x4047007d152a0bc6, 0x404e2a3699dd80f1, 0x40603f8dea1459c1, 0x40688b48583b5086, 0x404f13959807d5c0],
        gym_idx: 2,
        gym_track: [0x3fc274635b0aa5e1, 0x405f76bb9352fa61, 0x3fda093449a844a6, 0x405e7dcf31ed2102, 0x3fdd262309771615, 0x404b4e70cca86285, 0x3fa9cdeb69cd6e8a, 0x40622ec83c811d22, 0x3fd04ba274269d8d, 0x405d18a16d22eb62, 0x3fb34622aaed879b, 0x4053dc1cd6deaa13, 0x3fcdb3bdbd025c49, 0x404d4c5a190b47e9, 0x3f989cd06fcd1621, 0x405f2631cc69f749, 0x3fd2f54486e7e45d, 0x406230e6378a2852, 0x3fbef5410c06aeba, 0x405cf01d41b1c2dd, 0x3fdca8735af0994d, 0x404e37dbfe9c4246, 0x3fd14b05701556fe, 0x40528f2d7b293340, 0x3fc55473021cfc68, 0x404f2b3caef7df58, 0x3fde690f1ed63aea, 0x40530d31ce12f6fa, 0x3fda39a50cae53d3, 0x405be66b71cd58c4, 0x3fd40c991c8d7478, 0x4049463a15bbba3b, 0x3fdeb26688489f25, 0x406154c19ff000ea, 0x3fd17ae932802ad6, 0x4060310df06864fa, 0x3fb6a538377303c8, 0x4054c3ec3e10b9a0, 0x3fb111e074b7dd7c, 0x404f568a14816e01, 0x3fb26c7e9366bd85, 0x405ff69b08f2fe8a, 0x3fbd6c57bf418fee, 0x405f748ca072a2c4, 0x3fe00fb068e564e2, 0x4062055e440c5194, 0x3fc17721ece0f455, 0x40550aafb1b4ac54],
    },
    Case {
        seed: 0x100000005,
        words: &[0x00000005, 0x00000001],
        pool: [0x73d34ef0, 0xda919992, 0x5c469880, 0x2789f14b],
        state: 0x2931d0c6dbee79bfece8058fe085a345,
        inc: 0x271168ffcdb9ee72bdd751b35ac873c3,
        random20: [0x3fe8c647d8643bd7, 0x3fde20520871ce80, 0x3fe644a6db1c1d82, 0x3fea21138e9b260b, 0x3fe136c781ba1813, 0x3fe08db0cef23f52, 0x3fcae886c7cbae94, 0x3fb21fcf3de49ae8, 0x3fdeb8916611a1d8, 0x3fefc349a7212b74, 0x3fec0383475361a5, 0x3fef18408350a340, 0x3fdba00491c16ac8, 0x3fae43430efc1310, 0x3fdb5919f20a1fd6, 0x3fdf5652ccc3cca2, 0x3fca4c8a6b764da0, 0x3fd4a4e3157d8c62, 0x3fd4e213e8718aea, 0x3fe678e215412d7f],
        ints_3: [0, 2, 2, 1, 2, 2, 2, 2, 2, 1],
        ints_5: [0, 3, 3, 2, 4, 3, 4, 4, 4, 2],
        ints_1000: [132, 774, 778, 470, 878, 695, 848, 816, 815, 537],
        ints_2p40: [851246498593, 517565063623, 765128530144, 897792636121, 591467908560, 568773212049, 231140593559, 77843086820, 527782221894, 1091362961673],
        mixed: &[
            U(0.0, 1.0, 0x3fe8c647d8643bd7), I(0, 3, 2), U(0.0, 1.0, 0x3fe644a6db1c1d82),
            I(0, 3, 1), I(0, 3, 2), U(0.0, 1.0, 0x3fe136c781ba1813),
            I(0, 3, 2), I(0, 3, 1), I(0, 3, 1),
            R(0x3fcae886c7cbae94), I(-5, 5, 3), I(0, 1099511627776, 527782221894),
            I(10, 1000, 80), U(0.0, 1.0, 0x3fefc349a7212b74), I(0, 3, 1),
            I(0, 4294967296, 3759938106), I(0, 4294967297, 4173464603), U(-3.5, 7.25, 0x3ff23e0c47b7cef8),
            I(-9223372036854775808, 9223372036854775807, -8133041848747192472), I(7, 8, 7), I(0, 5, 0),
            I(0, 2147483648, 917648356), R(0x3fdf5652ccc3cca2), I(0, 1000, 924),
            I(0, 2147483649, 2065220973), I(0, 3221225472, 1039051071), I(-4611686018427387904, 6917529027641081856, -849718232043796220),
            U(0.0, 1.0, 0x3fe678e215412d7f), I(0, 2147483649, 1560777777), I(0, 3221225472, 111772326),
            I(-4611686018427387904, 6917529027641081856, 3519933778696147476), U(0.0, 1.0, 0x3fe3f52c6bb4dafe), I(0, 2147483649, 2011472092),
            I(0, 3221225472, 400858793), I(-4611686018427387904, 6917529027641081856, -1972030639159732055), U(0.0, 1.0, 0x3fe6c00449733bdd),
            I(0, 2147483649, 1073580554), I(0, 3221225472, 139195845), I(-4611686018427387904, 6917529027641081856, 6795671641116915162),
            U(0.0, 1.0, 0x3fefc43c6c7bbf74),
        ],
        mixed_end: (0xf50192e749f65c988ac5ae8b32492865, 0x271168ffcdb9ee72bdd751b35ac873c3, true, 0xaeaae90a),
        gym_colors: [0x406452a6ef823916, 0x4058b6834aed5b65, 0x40624450dfbd1035, 0x40656f220afb4535, 0x405c3ddf50d54f7f, 0x405b287613856fe3],
        gym_idx: 1,
        gym_track: [0x3fa2facc14681f2f, 0x40588018cbdee338, 0x3fe0a18843f8301b, 0x4061315f47dc9224, 0x3fe047fa6b7c3b99, 0x40574a81c8ef8db6, 0x3f9fb0e9ead9e2a5, 0x40572ece228bf470, 0x3fd0687a8dfca33d, 0x4051a2f308fd1b29, 0x3fc59e521e385460, 0x4054a84fc6cc5a44, 0x3fd78867b6cf29fb, 0x4058879626e22b7b, 0x3f929aaef289b6c0, 0x405e21f4ace4834b, 0x3fd4e650621e8585, 0x405db10c86ab6aa7, 0x3fd0c0ad4beffd6f, 0x4052394d97472be8, 0x3fd7d2e5651fe16f, 0x405d8eb0c1fb148e, 0x3fda1be5a362f7c3, 0x40629e2d830d3b64, 0x3fe0a207614b8852, 0x404d610abd82083a, 0x3fd134c6b5b380f9, 0x405bbf5661d680ce, 0x3fccdf4e274fb372, 0x405f2bcedcd55daf, 0x3fc6392df881cace, 0x405c91f067f8886d, 0x3fcf60e3234d474e, 0x40500d9db5366515, 0x3fda52e7ce269301, 0x404b57d4d64acc28, 0x3fcca8cbc9c57b9d, 0x4059632ec9b3b223, 0x3fe0129e48b6947d, 0x4056ef32d633216a, 0x3fd46366cf50878d, 0x405f9c5200dddff7, 0x3fd634ca8cd567d1, 0x40536bfbed757726, 0x3fdfb32e25ab4381, 0x404f4935c5bd4f8c, 0x3fbd351522424d50, 0x405ac1c4b47d2a66],
    },
    Case {
        seed: 0x8000000000000000,
        words: &[0x00000000, 0x80000000],
        pool: [0xd60f1f66, 0x80ce6f34, 0xcffba37f, 0x668c137e],
        state: 0x19f38fac928ef115ada495ade18f7415,
        inc: 0x71efe86c260ef309545d80ba006e813b,
        random20: [0x3fe9f6887c7122cf, 0x3fe31623d6ec8fee, 0x3febc8c74286c425, 0x3fdb3542d925f380, 0x3fcfef8bf80e3d50, 0x3fcd37fa5d445bcc, 0x3fdd541ac7237dae, 0x3fec078c3f6844cd, 0x3fdd946b2d3460ee, 0x3fcb2c296a483f44, 0x3febc29df89e8ca6, 0x3fd6e2c856f59c92, 0x3fe3b147efcf19cc, 0x3fef2f05d7b49818, 0x3fdb9732baf4cb76, 0x3fddf1e8aad890d4, 0x3fc8f3850ece9464, 0x3fec493b6c03941a, 0x3fd4ac0a3251b8ce, 0x3fe7b1dc23f7daaf],
        ints_3: [1, 2, 1, 1, 0, 2, 1, 1, 0, 0],
        ints_5: [2, 4, 1, 2, 1, 4, 2, 2, 0, 1],
        ints_1000: [535, 811, 392, 596, 211, 868, 592, 425, 111, 249],
        ints_2p40: [892082578313, 655806609252, 954660951094, 467430761623, 274325827612, 250986412680, 503860370573, 963085728578, 508176413905, 233410057360],
        mixed: &[
            U(0.0, 1.0, 0x3fe9f6887c7122cf), I(0, 3, 1), U(0.0, 1.0, 0x3febc8c74286c425),
            I(0, 3, 1), I(0, 3, 1), U(0.0, 1.0, 0x3fcfef8bf80e3d50),
            I(0, 3, 1), I(0, 3, 1), I(0, 3, 0),
            R(0x3fdd541ac7237dae), I(-5, 5, -3), I(0, 1099511627776, 508176413905),
            I(10, 1000, 877), U(0.0, 1.0, 0x3fcb2c296a483f44), I(0, 3, 2),
            I(0, 4294967296, 3725914052), I(0, 4294967297, 1535844700), U(-3.5, 7.25, 0x4008ec71547c9554),
            I(-9223372036854775808, 9223372036854775807, 8752797267842351755), I(7, 8, 7), I(0, 5, 4),
            I(0, 2147483648, 925787509), R(0x3fddf1e8aad890d4), I(0, 1000, 613),
            I(0, 2147483649, 418612494), I(0, 3221225472, 360225977), I(-4611686018427387904, 6917529027641081856, 3925252885524605964),
            U(0.0, 1.0, 0x3fe59c624636130d), I(0, 2147483649, 1898245552), I(0, 3221225472, 2316170596),
            I(-4611686018427387904, 6917529027641081856, 6220363033116109344), U(0.0, 1.0, 0x3fcebb9c00e96450), I(0, 2147483649, 450443951),
            I(0, 3221225472, 1280711906), I(-4611686018427387904, 6917529027641081856, -304772047105605799), U(0.0, 1.0, 0x3fecb5586119ac1f),
            I(0, 2147483649, 891788943), I(0, 3221225472, 516437172), I(-4611686018427387904, 6917529027641081856, -3322662668471575404),
            U(0.0, 1.0, 0x3fd8f0b5f8dbb16e),
        ],
        mixed_end: (0xf9799c3b68db4f98618929c3b36a21b2, 0x71efe86c260ef309545d80ba006e813b, false, 0x290af0f1),
        gym_colors: [0x40654c3bf614ce8e, 0x405f5052cc9c1c22, 0x4066cab374928ce6, 0x405651b0d62121bf, 0x404a3280d17bae4c, 0x4047f7eb6082134d],
        gym_idx: 1,
        gym_track: [0x3fdd5a37543dedc1, 0x40580df9dda875dd, 0x3fbc7479bf964893, 0x40611805b51deef1, 0x3fc7f74d822c0d00, 0x405be2803359cc28, 0x3fe053e6a654d2cd, 0x4057470fd1079f7a, 0x3fcf5bb892518f69, 0x40515f8ffce458fc, 0x3fdd9f00236bb2c9, 0x40549333fba7ec30, 0x3fd8d0275623c260, 0x405d622cc6da3ee2, 0x3fbc1da0fb56aec3, 0x4061fe7f606f3924, 0x3fc017787c0debcb, 0x404c0112d90fe116, 0x3fc9095d7a4cb6c2, 0x406176d685ee073c, 0x3fd84c6b264e3b2f, 0x40508211879fc574, 0x3fadf913e0ddb8bf, 0x40563e071535d14f, 0x3fd4f10c55b9c21a, 0x406086151d0948b4, 0x3fd57e5bec08668d, 0x4058af903f949cc4, 0x3faeee707e526606, 0x4061ff234d548e92, 0x3fc95a90b19077cd, 0x40625ac7489b984e, 0x3fd8e2af639a79b4, 0x4057ba12227e6e9d, 0x3fb48ca95a8d7aee, 0x40609744083e28d8, 0x3fb3fb8f26b4ceb4, 0x406065ed365ef7c6, 0x3fc68553b9bc5df1, 0x40598552efea057a, 0x3fd1f434d891f1f9, 0x405beb741e2ac363, 0x3fdee73c5ef828ce, 0x4051b06e3282feb3, 0x3fcffa847a36f99f, 0x405189ea10a84696, 0x3f8896159686ec6c, 0x4051b4cc516730e2],
    },
    Case {
        seed: 0xffffffffffffffff,
        words: &[0xffffffff, 0xffffffff],
        pool: [0xfaf3ecf4, 0xfa0f8930, 0xe9f89a67, 0x0e23d1f9],
        state: 0xddc419442aebde794d8b0a3b048acdb0,
        inc: 0x37762aacb3cc854f4ed623c7d18951ed,
        random20: [0x3fe5c2c74f5188ea, 0x3feb0ccb3ebe6704, 0x3f7e52b195bc2d00, 0x3feca04d55e33445, 0x3fc081eecc4d67f8, 0x3fd467d9a3936a3e, 0x3fe2dcf94e79f20e, 0x3fc7624e8c04fac8, 0x3fed240c36e81e86, 0x3fe05eb984a34a1f, 0x3fe6278da3026e65, 0x3fd11f39c30e3fd2, 0x3feffb3dff9f7681, 0x3fe2809170d626a8, 0x3fe97369857c6cfa, 0x3fd6dda38c2d2064, 0x3fda33b2270cbc30, 0x3fe42a06dba22bb5, 0x3fe00180af081db2, 0x3fe6bc0fc4336723],
        ints_3: [1, 2, 2, 2, 1, 0, 0, 2, 1, 0],
        ints_5: [2, 3, 4, 4, 1, 0, 0, 4, 3, 0],
        ints_1000: [547, 680, 950, 845, 358, 7, 100, 894, 604, 128],
        ints_2p40: [747697240716, 929430107635, 8139774299, 983588056857, 141798774938, 350566649421, 648133899215, 200867125257, 1001270654784, 562469545242],
        mixed: &[
            U(0.0, 1.0, 0x3fe5c2c74f5188ea), I(0, 3, 2), U(0.0, 1.0, 0x3f7e52b195bc2d00),
            I(0, 3, 2), I(0, 3, 0), U(0.0, 1.0, 0x3fc081eecc4d67f8),
            I(0, 3, 2), I(0, 3, 0), I(0, 3, 0),
            R(0x3fe2dcf94e79f20e), I(-5, 5, -5), I(0, 1099511627776, 1001270654784),
            I(10, 1000, 190), U(0.0, 1.0, 0x3fe05eb984a34a1f), I(0, 3, 0),
            I(0, 4294967296, 2973527320), I(0, 4294967297, 1149036300), U(-3.5, 7.25, 0x401cf99b4f7e473e),
            I(-9223372036854775808, 9223372036854775807, 1442431191280338416), I(7, 8, 7), I(0, 5, 4),
            I(0, 2147483648, 1707976213), R(0x3fd6dda38c2d2064), I(0, 1000, 198),
            I(0, 2147483649, 145676161), I(0, 3221225472, 2029791525), I(-4611686018427387904, 6917529027641081856, 3579322480604720926),
            U(0.0, 1.0, 0x3fe2dbb0a1e8847a), I(0, 2147483649, 1239656111), I(0, 3221225472, 213313030),
            I(-4611686018427387904, 6917529027641081856, 1797101811449961602), U(0.0, 1.0, 0x3fd442e1e940011c), I(0, 2147483649, 972514132),
            I(0, 3221225472, 1695627410), I(-4611686018427387904, 6917529027641081856, -879698065157152823), U(0.0, 1.0, 0x3fc11a51eff6e874),
            I(0, 2147483649, 946880458), I(0, 3221225472, 920965177), I(-4611686018427387904, 6917529027641081856, 1672515587534866883),
            U(0.0, 1.0, 0x3fe787655ef98fca),
        ],
        mixed_end: (0x608427523730257497485900588c1e5e, 0x37762aacb3cc854f4ed623c7d18951ed, true, 0x2134510b),
        gym_colors: [0x4061d9c77f10e250, 0x4066307eb9783081, 0x3ff8dfd5acd45cea, 0x40677b7f707460e1, 0x403b152bc72efe93, 0x4050bd30882eed27],
        gym_idx: 2,
        gym_track: [0x3fb87cd8896b0480, 0x4061a214c572abec, 0x3fd1248441640d5c, 0x405dcee6a759e63f, 0x3fc1ee1a67f510d7, 0x4062be2437da4a4a, 0x3fd3601f5f172c39, 0x4060311538249a92, 0x3fc7f1ea9126dfd2, 0x4056bc319740f983, 0x3fd51da96c8b0525, 0x4059012c88be5733, 0x3fd7cec11605acc9, 0x405b3ba1fe7da780, 0x3fa1c0b21a2cd17f, 0x405a6597870adb70, 0x3fc537b0cc37057e, 0x40498fd37d7b3b99, 0x3fd10bd3700f0fe9, 0x4059a8e8b3165251, 0x3f97af75a60f29b0, 0x405497ab62d2bc61, 0x3fb1e8f74f461cc1, 0x405785ec75a143fc, 0x3fb162c15ecb0e06, 0x405a206ec29eacc7, 0x3fd8a3af7e47722b, 0x4059250679825206, 0x3fdb4012f610bdbe, 0x40565f07f542a47c, 0x3fdac2058e04139b, 0x40624e177c5f2972, 0x3fb03d3577f56610, 0x405038f63608e57c, 0x3fbefd86cd07dd6a, 0x4060f9683fb6a6ee, 0x3fdf9e01e4d6e90f, 0x4062069546d9af49, 0x3faed69878245b37, 0x405e9fc837fe440c, 0x3fb2c3487664714c, 0x405f1f4f7d616d27, 0x3fc6d7d7afd71a34, 0x40529e633f15b148, 0x3fd22c88b0c883ce, 0x405c70a991a08992, 0x3fdacbcfbcedf592, 0x404a71c3e9d32d56],
    },
    Case {
        seed: 0x8f3a61c2d5e04b971c2d3e4f5a6b7c8d,
        words: &[0x5a6b7c8d, 0x1c2d3e4f, 0xd5e04b97, 0x8f3a61c2],
        pool: [0x15eb308d, 0x690b21ee, 0x6de6a46f, 0xb315b47c],
        state: 0x1161d7e3a7efdd756deaa5d94894bde5,
        inc: 0xb72be9cd714dab0de0b23440d8d061a5,
        random20: [0x3fde387a4d03e77e, 0x3fe749a84f73b4b5, 0x3fdd1478e6db4fda, 0x3fe1d564487cbca4, 0x3fbc8124c3674838, 0x3fe3da2f21b8410d, 0x3f9732f7b4850be0, 0x3fef52df6a092ed4, 0x3fc9180ef7c56c78, 0x3fd93019ef9afc3a, 0x3fd63697a44943d2, 0x3fd52ab15dde1efe, 0x3fe8cd9267178a61, 0x3fa5d76a1035c9c0, 0x3fcd60f6b965a444, 0x3fd95bbf2dc05a64, 0x3fe5bf1967e503cb, 0x3fe5e5d7f8162a97, 0x3fe472b1e85f3353, 0x3fea78746b644ab9],
        ints_3: [0, 1, 1, 2, 1, 1, 2, 1, 1, 0],
        ints_5: [0, 2, 3, 3, 2, 2, 4, 2, 2, 0],
        ints_1000: [61, 472, 615, 727, 426, 454, 898, 557, 403, 111],
        ints_2p40: [519186232335, 800160119709, 499590077293, 612756505573, 122425754471, 682119204290, 24909835553, 1076274876489, 215555633034, 432724754027],
        mixed: &[
            U(0.0, 1.0, 0x3fde387a4d03e77e), I(0, 3, 1), U(0.0, 1.0, 0x3fdd1478e6db4fda),
            I(0, 3, 2), I(0, 3, 2), U(0.0, 1.0, 0x3fbc8124c3674838),
            I(0, 3, 1), I(0, 3, 2), I(0, 3, 1),
            R(0x3f9732f7b4850be0), I(-5, 5, -3), I(0, 1099511627776, 215555633034),
            I(10, 1000, 979), U(0.0, 1.0, 0x3fd93019ef9afc3a), I(0, 3, 0),
            I(0, 4294967296, 1490706065), I(0, 4294967297, 1420477815), U(-3.5, 7.25, 0x4013543cba87a1f2),
            I(-9223372036854775808, 9223372036854775807, -8436450430532918605), I(7, 8, 7), I(0, 5, 3),
            I(0, 2147483648, 492893881), R(0x3fd95bbf2dc05a64), I(0, 1000, 156),
            I(0, 2147483649, 1487560021), I(0, 3221225472, 2058365809), I(-4611686018427387904, 6917529027641081856, 4925326215494344105),
            U(0.0, 1.0, 0x3fbab3b4ba9f8d38), I(0, 2147483649, 2092267955), I(0, 3221225472, 2575829289),
            I(-4611686018427387904, 6917529027641081856, 2933167800023578590), U(0.0, 1.0, 0x3fefb3c35367c5d8), I(0, 2147483649, 1200797168),
            I(0, 3221225472, 2270050688), I(-4611686018427387904, 6917529027641081856, -3532572287235063741), U(0.0, 1.0, 0x3fc0847cf5725754),
            I(0, 2147483649, 242567455), I(0, 3221225472, 538751490), I(-4611686018427387904, 6917529027641081856, 4509873314435935714),
            U(0.0, 1.0, 0x3fe260140b679cfb),
        ],
        mixed_end: (0xf0f45a54a11eaf2509c4505112d0d2db, 0xb72be9cd714dab0de0b23440d8d061a5, false, 0x2ad0ed59),
        gym_colors: [0x4058ca54532d33e5, 0x40631a6c112cea3c, 0x4057dacb2d5fe781, 0x405d421886eca57d, 0x403761f0284ab93e, 0x406048faa9a9255d],
        gym_idx: 0,
        gym_track: [0x3fe066ac03d622fc, 0x405166b2ec648f30, 0x3fca606f976a0d6f, 0x40552d533c2c9e7e, 0x3fc62a711e78f4ea, 0x405fe09a608a641c, 0x3f96df50bc48e43e, 0x40523cf03035da15, 0x3fca8e242f152b2d, 0x405d7d4bd92aeaf7, 0x3fd6ee6cfc0c35ac, 0x405c799afd8a6019, 0x3fdbb8496df92409, 0x404e37194c732995, 0x3f9f7a99b166eef2, 0x40603edb436eadb8, 0x3fb8d4028483a4e3, 0x405cdc3c36f0f8c6, 0x3fe09967500f0f76, 0x404c685466e0f628, 0x3fcf6dbf7112a0f9, 0x405e1e2f7cc0faa7, 0x3fa91790472f8f94, 0x404f73c0cfe0aa1d, 0x3fb66b20c69a8f98, 0x406023bdc5b3f35a, 0x3fd33e196a1c622a, 0x405fb69c84baf8b7, 0x3fa1d5c9ced75c94, 0x4061b838698f51f8, 0x3fd43e719fb5788e, 0x404987ff7f2eabb0, 0x3fd621d0d5f22baf, 0x40499617b95aa0a0, 0x3fca9daf98ced7b4, 0x405ac58135025aea, 0x3fd1d72a9dff5304, 0x404e2dcbb84eea96, 0x3fc7fffa4ee3663e, 0x4057dcc6981b3860, 0x3fd2a5dfbf90e496, 0x405f98ff54b53fcc, 0x3fd69ee8daeffd38, 0x40531144e7dd34da, 0x3fe028af5b43c54c, 0x405c275dafa78364, 0x3fd7b00deed6309b, 0x40616827c3ad1243],
    },
];
