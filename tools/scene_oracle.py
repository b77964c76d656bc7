"""Dump Gymnasium CarRacing-v3 scenes and the frames Gymnasium draws for them.

For a few seeds and scripted action sequences this runs Gymnasium's env and, at chosen steps,
writes the full scene state (what `_render` reads) plus Gymnasium's own 96x96 state frame
(and, for a few scenes, the 600x400 video frame) under rust/tests/data/scenes/. The Rust test
`rust/tests/render_vs_gymnasium.rs` re-draws each scene with `scene::draw` and compares.

File format, one `NAME.txt` per scene (whitespace-separated, floats as Python repr):
    hull X Y ANGLE              hull position / angle (Box2D f32 values)
    t T                         episode time, s
    bg R G B / grass R G B      float colours
    reward R                    self.reward at render time
    ind SPEED W0 W1 W2 W3 STEER ANGVEL
    hullfix N x0 y0 ...         four lines, world vertices of the hull fixtures
    wheel x0 y0 ... x3 y3       four lines, world vertices of the wheel boxes
    phase P0 P1 P2 P3
    wheelpose X Y ANGLE         four lines, wheel body transforms
    road N                      then N lines `R G B x0 y0 x1 y1 x2 y2 x3 y3` (int colours)
    skid M                      then M lines `R G B N x0 y0 ...`
    video 0|1                   whether NAME.video.bin (600x400x3) exists
`NAME.state.bin` holds the 96x96x3 state frame, row-major RGB bytes.

Usage: python tools/scene_oracle.py [OUT_DIR]
"""

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = (
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join(HERE, "..", "rust", "tests", "data", "scenes")
)


def f(x):
    return repr(float(x))


def dump(env, name, video):
    u = env.unwrapped
    car = u.car
    lines = []
    hp = car.hull.position
    lines.append(f"hull {f(hp[0])} {f(hp[1])} {f(car.hull.angle)}")
    lines.append(f"t {f(u.t)}")
    lines.append("bg " + " ".join(f(c) for c in u.bg_color))
    lines.append("grass " + " ".join(f(c) for c in u.grass_color))
    lines.append(f"reward {f(u.reward)}")
    v = car.hull.linearVelocity
    speed = np.sqrt(np.square(v[0]) + np.square(v[1]))
    ind = [speed] + [w.omega for w in car.wheels]
    ind += [car.wheels[0].joint.angle, car.hull.angularVelocity]
    lines.append("ind " + " ".join(f(x) for x in ind))
    for fx in car.hull.fixtures:
        pts = [fx.body.transform * vv for vv in fx.shape.vertices]
        lines.append(f"hullfix {len(pts)} " + " ".join(f"{f(p[0])} {f(p[1])}" for p in pts))
    for w in car.wheels:
        fx = w.fixtures[0]
        pts = [fx.body.transform * vv for vv in fx.shape.vertices]
        lines.append("wheel " + " ".join(f"{f(p[0])} {f(p[1])}" for p in pts))
    lines.append("phase " + " ".join(f(w.phase) for w in car.wheels))
    for w in car.wheels:
        lines.append(f"wheelpose {f(w.position[0])} {f(w.position[1])} {f(w.angle)}")
    lines.append(f"road {len(u.road_poly)}")
    for poly, color in u.road_poly:
        c = [int(x) for x in color]
        lines.append(f"{c[0]} {c[1]} {c[2]} " + " ".join(f"{f(p[0])} {f(p[1])}" for p in poly))
    lines.append(f"skid {len(car.particles)}")
    for p in car.particles:
        c = [int(x) for x in p.color]
        lines.append(
            f"{c[0]} {c[1]} {c[2]} {len(p.poly)} "
            + " ".join(f"{f(q[0])} {f(q[1])}" for q in p.poly)
        )
    lines.append(f"video {1 if video else 0}")
    with open(os.path.join(OUT, name + ".txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    state = u._render("state_pixels")
    assert state.shape == (96, 96, 3)
    with open(os.path.join(OUT, name + ".state.bin"), "wb") as fh:
        fh.write(np.ascontiguousarray(state, dtype=np.uint8).tobytes())
    if video:
        frame = u._render("rgb_array")
        assert frame.shape == (400, 600, 3)
        with open(os.path.join(OUT, name + ".video.bin"), "wb") as fh:
            fh.write(np.ascontiguousarray(frame, dtype=np.uint8).tobytes())


def script(kind, i):
    """Action (steer, gas, brake) at step i for a scripted driving style."""
    if kind == "straight":
        return [0.0, 0.6 if i < 80 else 0.1, 0.0]
    if kind == "weave":
        return [0.7 * np.sin(i / 12.0), 0.5, 0.0]
    if kind == "offroad":
        return [1.0 if i > 30 else 0.0, 0.8, 0.0]
    if kind == "spin":
        return [-1.0 if i > 20 else 0.0, 1.0, 0.3 if i > 100 else 0.0]
    raise ValueError(kind)


RUNS = [
    # seed, domain_randomize, style, capture steps, steps that also get a video frame
    (0, False, "straight", [0, 5, 12, 30, 49, 90, 160], [12, 160]),
    (1, False, "weave", [1, 40, 70, 110, 150, 200, 240], []),
    (2, False, "offroad", [20, 60, 90, 130, 170], [130]),
    (3, True, "weave", [3, 45, 80, 120, 180], []),
    (4, False, "spin", [25, 60, 100, 140, 190], []),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for seed, dr, style, steps, videos in RUNS:
        env = gym.make("CarRacing-v3", render_mode="rgb_array", domain_randomize=dr)
        env.reset(seed=seed)
        last = max(steps)
        for i in range(last + 1):
            if i in steps:
                dump(env, f"s{seed}_{style}_{i:03d}", i in videos)
            env.step(np.array(script(style, i), dtype=np.float32))
        env.close()
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total / 1e6:.2f} MB to {OUT}")


if __name__ == "__main__":
    main()
