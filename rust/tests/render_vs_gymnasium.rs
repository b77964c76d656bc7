//! Fidelity of `scene::draw` against frames Gymnasium drew for the same scene state.
//!
//! The scenes and Gymnasium's frames come from `tools/scene_oracle.py` (see its docstring for
//! the file format) and live in `rust/tests/data/scenes/`.

use std::path::{Path, PathBuf};

use reinfors_gym::sim::scene::{
    self, CarDrawing, Indicators, Renderer, RoadPoly, SceneView, ScoreStyle, SkidMark,
};

/// Mean absolute difference per pixel channel (0–255 scale) the state frames must stay within.
const STATE_MAD_LIMIT: f64 = 1.0;

struct Scene {
    name: String,
    hull: ([f32; 2], f32),
    t: f64,
    bg: [f64; 3],
    grass: [f64; 3],
    reward: f64,
    ind: Indicators,
    car: CarDrawing,
    road: Vec<RoadPoly>,
    road_bounds: Vec<[f64; 4]>,
    skid: Vec<SkidMark>,
    state: Vec<u8>,
    video: Option<Vec<u8>>,
}

impl Scene {
    fn view(&self) -> SceneView<'_> {
        SceneView {
            hull_position: self.hull.0,
            hull_angle: self.hull.1,
            t: self.t,
            bg_color: self.bg,
            grass_color: self.grass,
            road: &self.road,
            road_bounds: &self.road_bounds,
            car: &self.car,
            skid_marks: &self.skid,
            indicators: self.ind,
            reward: self.reward,
            // The scenes were recorded under Gymnasium 1.4.0 and pygame-ce.
            score: ScoreStyle::default(),
        }
    }
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rust/tests/data/scenes")
}

fn nums(words: &[&str]) -> Vec<f64> {
    words
        .iter()
        .map(|w| w.parse::<f64>().expect("number"))
        .collect()
}

fn load(dir: &Path, name: &str) -> Scene {
    let text = std::fs::read_to_string(dir.join(format!("{name}.txt"))).expect("scene text");
    let mut lines = text.lines();
    let mut s = Scene {
        name: name.to_string(),
        hull: ([0.0; 2], 0.0),
        t: 0.0,
        bg: [0.0; 3],
        grass: [0.0; 3],
        reward: 0.0,
        ind: Indicators::default(),
        car: CarDrawing {
            hull: [[[0.0; 2]; 8]; 4],
            hull_counts: [0; 4],
            wheels: [[[0.0; 2]; 4]; 4],
            wheel_phase: [0.0; 4],
            wheel_pose: [([0.0; 2], 0.0); 4],
        },
        road: Vec::new(),
        road_bounds: Vec::new(),
        skid: Vec::new(),
        state: Vec::new(),
        video: None,
    };
    let (mut nhull, mut nwheel, mut npose) = (0, 0, 0);
    while let Some(line) = lines.next() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let v = |from: usize| nums(&w[from..]);
        match w[0] {
            "hull" => {
                let x = v(1);
                s.hull = ([x[0] as f32, x[1] as f32], x[2] as f32);
            }
            "t" => s.t = v(1)[0],
            "bg" => s.bg = v(1).try_into().unwrap(),
            "grass" => s.grass = v(1).try_into().unwrap(),
            "reward" => s.reward = v(1)[0],
            "ind" => {
                let x = v(1);
                s.ind = Indicators {
                    true_speed: x[0],
                    wheel_omega: [x[1], x[2], x[3], x[4]],
                    steer_angle: x[5],
                    hull_angular_velocity: x[6],
                };
            }
            "hullfix" => {
                let x = v(2);
                let n = x.len() / 2;
                for i in 0..n {
                    s.car.hull[nhull][i] = [x[2 * i] as f32, x[2 * i + 1] as f32];
                }
                s.car.hull_counts[nhull] = n;
                nhull += 1;
            }
            "wheel" => {
                let x = v(1);
                for i in 0..4 {
                    s.car.wheels[nwheel][i] = [x[2 * i] as f32, x[2 * i + 1] as f32];
                }
                nwheel += 1;
            }
            "phase" => s.car.wheel_phase = v(1).try_into().unwrap(),
            "wheelpose" => {
                let x = v(1);
                s.car.wheel_pose[npose] = ([x[0] as f32, x[1] as f32], x[2] as f32);
                npose += 1;
            }
            "road" => {
                let n: usize = w[1].parse().unwrap();
                for _ in 0..n {
                    let x = nums(&lines.next().unwrap().split_whitespace().collect::<Vec<_>>());
                    let mut vertices = [[0.0; 2]; 4];
                    for (i, p) in vertices.iter_mut().enumerate() {
                        *p = [x[3 + 2 * i], x[4 + 2 * i]];
                    }
                    s.road.push(RoadPoly {
                        vertices,
                        color: [x[0] as u8, x[1] as u8, x[2] as u8],
                    });
                }
            }
            "skid" => {
                let n: usize = w[1].parse().unwrap();
                for _ in 0..n {
                    let x = nums(&lines.next().unwrap().split_whitespace().collect::<Vec<_>>());
                    let k = x[3] as usize;
                    let points = (0..k).map(|i| [x[4 + 2 * i], x[5 + 2 * i]]).collect();
                    s.skid.push(SkidMark {
                        color: [x[0] as u8, x[1] as u8, x[2] as u8],
                        points,
                    });
                }
            }
            "video" => {
                if w[1] == "1" {
                    s.video = Some(std::fs::read(dir.join(format!("{name}.video.bin"))).unwrap());
                }
            }
            other => panic!("unknown record {other}"),
        }
    }
    s.state = std::fs::read(dir.join(format!("{name}.state.bin"))).expect("state frame");
    s.road_bounds = scene::road_chunk_bounds(&s.road);
    s
}

fn load_all() -> Vec<Scene> {
    let dir = data_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("scene dir")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".txt").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "expected the oracle's scenes in {dir:?}");
    names.iter().map(|n| load(&dir, n)).collect()
}

fn mad(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (x as i32 - y as i32).unsigned_abs() as f64)
        .sum::<f64>()
        / a.len() as f64
}

/// Optional debugging aid: `RENDER_DUMP=dir` writes our frames as binary PPM next to
/// Gymnasium's.
fn dump(name: &str, w: usize, h: usize, ours: &[u8], theirs: &[u8]) {
    if let Ok(dir) = std::env::var("RENDER_DUMP") {
        for (tag, px) in [("ours", ours), ("gym", theirs)] {
            let mut buf = format!("P6\n{w} {h}\n255\n").into_bytes();
            buf.extend_from_slice(px);
            std::fs::write(Path::new(&dir).join(format!("{name}.{tag}.ppm")), buf).unwrap();
        }
    }
}

#[test]
fn state_frames_match_gymnasium() {
    let scenes = load_all();
    let mut r = Renderer::new();
    let mut out = vec![0u8; 96 * 96 * 3];
    let (mut worst, mut sum) = (0.0f64, 0.0);
    for s in &scenes {
        r.draw_into(&s.view(), &mut out, 96, 96, false);
        let m = mad(&out, &s.state);
        println!("{:<24} state MAD {m:.3}", s.name);
        dump(&s.name, 96, 96, &out, &s.state);
        worst = worst.max(m);
        sum += m;
    }
    let mean = sum / scenes.len() as f64;
    println!("state frames: max MAD {worst:.3}, mean MAD {mean:.3}");
    assert!(
        worst <= STATE_MAD_LIMIT,
        "max state MAD {worst:.3} > {STATE_MAD_LIMIT}"
    );
}

#[test]
fn video_frames_match_gymnasium() {
    let scenes = load_all();
    let mut r = Renderer::new();
    let mut out = vec![0u8; 600 * 400 * 3];
    let mut n = 0;
    for s in scenes.iter().filter(|s| s.video.is_some()) {
        r.draw_into(&s.view(), &mut out, 600, 400, true);
        let m = mad(&out, s.video.as_ref().unwrap());
        println!("{:<24} video MAD {m:.3}", s.name);
        dump(
            &format!("{}.video", s.name),
            600,
            400,
            &out,
            s.video.as_ref().unwrap(),
        );
        // Not a hard target (the state frame is); guard against gross regressions only.
        assert!(m <= 2.0, "{} video MAD {m:.3}", s.name);
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn road_chunk_culling_changes_no_pixel() {
    let mut r = Renderer::new();
    for s in load_all() {
        let mut with = vec![0u8; 96 * 96 * 3];
        let mut without = vec![0u8; 96 * 96 * 3];
        r.draw_into(&s.view(), &mut with, 96, 96, false);
        let view = SceneView {
            road_bounds: &[],
            ..s.view()
        };
        r.draw_into(&view, &mut without, 96, 96, false);
        assert_eq!(with, without, "{}", s.name);
    }
}

#[test]
fn free_function_matches_renderer() {
    let scenes = load_all();
    let s = &scenes[scenes.len() / 2];
    let mut a = vec![0u8; 96 * 96 * 3];
    let mut b = vec![0u8; 96 * 96 * 3];
    scene::draw(&s.view(), &mut a, 96, 96, false);
    Renderer::new().draw_into(&s.view(), &mut b, 96, 96, false);
    assert_eq!(a, b);
    // Resolution independence: the human window size draws without panicking.
    let mut big = vec![0u8; 1000 * 800 * 3];
    scene::draw(&s.view(), &mut big, 1000, 800, true);
}

/// `cargo test --release --test render_vs_gymnasium -- --ignored --nocapture`
#[test]
#[ignore]
fn time_state_frame() {
    let scenes = load_all();
    let s = scenes
        .iter()
        .find(|s| s.t > 1.5 && s.road.len() > 200)
        .expect("a mid-episode scene");
    let mut r = Renderer::new();
    let mut out = vec![0u8; 96 * 96 * 3];
    let view = s.view();
    for _ in 0..200 {
        r.draw_into(&view, &mut out, 96, 96, false);
    }
    let n = 5000;
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        r.draw_into(&view, &mut out, 96, 96, false);
        std::hint::black_box(&out);
    }
    let us = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("{}: {us:.2} us per 96x96 frame", s.name);
}
