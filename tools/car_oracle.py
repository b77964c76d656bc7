#!/usr/bin/env python3
"""Reference trajectories of Gymnasium's CarRacing car, recorded with pybox2d.

Builds the car exactly as Gymnasium does (`car_dynamics.Car` in a `Box2D.b2World((0, 0))`),
drives it with a few action sequences in Gymnasium's step order

    car.steer(-a0); car.gas(a1); car.brake(a2); car.step(1/50); world.Step(1/50, 180, 60)

(step 0 is the reset step: no action), and writes every step's state to a whitespace-separated
text file that `rust/tests/car_vs_box2d.rs` replays against the Rust car.

Road contact is emulated without a track: a wheel "on road" carries a fake tile with
road_friction 1.0 in `w.tiles`; a wheel "on grass" has no tiles.

Format (one record per line, `#` starts a comment line):
    scenario NAME INIT_ANGLE INIT_X INIT_Y ROAD0 ROAD1 ROAD2 ROAD3 NSTEPS
    step K HAS_ACTION A0 A1 A2 HULL[6] WHEEL0[9] .. WHEEL3[9] AWAKE NPART LASTLEN LASTX LASTY
        HULL  = px py angle vx vy w                            (Box2D f32, shortest repr)
        WHEEL = px py angle vx vy w joint_angle omega phase   (f32 ..., then Python floats)
    poly KIND N x0 y0 ...      (world vertices after the last step: 4 hull fixtures, 4 wheels)
    particle R G B N x0 y0 ... x(N-1) y(N-1)                   (skid marks at scenario end)
    end
Actions and Python floats are printed with repr (exact round trip); f32 values with NumPy's
shortest float32 repr, which parses back to the same f32.

Usage: python tools/car_oracle.py [OUT_PATH]   (default rust/tests/data/car_box2d.txt)
"""

import math
import os
import random
import sys

import Box2D
import numpy as np
from gymnasium.envs.box2d.car_dynamics import Car

FPS = 50
STEPS = 300


class FakeTile:
    road_friction = 1.0


def f32(x):
    return str(np.float32(x))


def record(name, init, road, actions, out):
    world = Box2D.b2World((0, 0))
    car = Car(world, *init)
    for w, on_road in zip(car.wheels, road):
        if on_road:
            w.tiles.add(FakeTile())
    out.append(
        "scenario %s %r %r %r %s %d"
        % (name, init[0], init[1], init[2], " ".join(str(int(r)) for r in road), len(actions))
    )
    for k, a in enumerate(actions):
        if a is not None:
            car.steer(-a[0])
            car.gas(a[1])
            car.brake(a[2])
        car.step(1.0 / FPS)
        world.Step(1.0 / FPS, 6 * 30, 2 * 30)
        h = car.hull
        vals = ["step", str(k)]
        vals += ["0", "0.0", "0.0", "0.0"] if a is None else ["1"] + [repr(float(x)) for x in a]
        vals += [f32(h.position[0]), f32(h.position[1]), f32(h.angle)]
        vals += [f32(h.linearVelocity[0]), f32(h.linearVelocity[1]), f32(h.angularVelocity)]
        for w in car.wheels:
            vals += [f32(w.position[0]), f32(w.position[1]), f32(w.angle)]
            vals += [f32(w.linearVelocity[0]), f32(w.linearVelocity[1]), f32(w.angularVelocity)]
            vals += [f32(w.joint.angle), repr(float(w.omega)), repr(float(w.phase))]
        vals.append("1" if h.awake else "0")
        vals.append(str(len(car.particles)))
        if car.particles:
            last = car.particles[-1].poly
            vals += [str(len(last)), repr(float(last[-1][0])), repr(float(last[-1][1]))]
        else:
            vals += ["0", "0.0", "0.0"]
        out.append(" ".join(vals))
    # World polygons after the last step (Box2D's f32 b2Mul(xf, v)), in pybox2d fixture order.
    for kind, bodies in (("hull", [car.hull]), ("wheel", car.wheels)):
        for b in bodies:
            for f in b.fixtures:
                pts = [b.transform * v for v in f.shape.vertices]
                out.append(
                    "poly %s %d %s"
                    % (kind, len(pts), " ".join("%s %s" % (f32(x), f32(y)) for x, y in pts))
                )
    for p in car.particles:
        pts = " ".join("%r %r" % (float(x), float(y)) for x, y in p.poly)
        out.append("particle %d %d %d %d %s" % (*p.color, len(p.poly), pts))
    out.append("end")


def throttle_sweep():
    acts = [None]
    for t in range(STEPS):
        gas = 1.0 if t < 150 else 0.5
        acts.append((math.sin(t * 0.05), gas, 0.0))
    return acts


def brake_sequence():
    acts = [None]
    for t in range(STEPS):
        if t < 80:
            a = (0.3, 1.0, 0.0)
        elif t < 120:
            a = (0.0, 0.0, 0.95)  # >= 0.9 locks the wheels
        elif t < 180:
            a = (-0.5, 0.8, 0.0)
        elif t < 240:
            a = (0.0, 0.0, 0.4)  # partial brake
        else:
            a = (1.0, 0.3, 0.2)  # steering into the +-0.4 joint limit
        acts.append(a)
    return acts


def random_smooth(seed):
    rng = random.Random(seed)
    s, g, b = 0.0, 0.5, 0.0
    acts = [None]
    for _ in range(STEPS):
        s = max(-1.0, min(1.0, 0.9 * s + 0.3 * rng.uniform(-1.0, 1.0)))
        g = 0.9 * g + 0.1 * rng.uniform(-0.3, 1.3)  # may leave [0, 1]: Car.gas clips
        b = max(0.0, 0.8 * b + 0.2 * rng.uniform(-1.0, 1.0))
        acts.append((s, g, b))
    return acts


def grass_then_idle():
    acts = [None]
    for t in range(STEPS):
        if t < 60:
            acts.append((-1.0, 1.0, 0.0))
        elif t < 110:
            acts.append((0.0, 0.0, 1.0))  # locked wheels: grass friction stops the car
        else:
            acts.append((0.0, 0.0, 0.0))  # idle: the island falls asleep after 0.5 s
    return acts


def main():
    path = (
        sys.argv[1]
        if len(sys.argv) > 1
        else os.path.join(os.path.dirname(__file__), "..", "rust", "tests", "data", "car_box2d.txt")
    )
    out = [
        "# Generated by tools/car_oracle.py with gymnasium %s, Box2D %s, numpy %s"
        % (__import__("gymnasium").__version__, Box2D.__version__, np.__version__),
    ]
    record("road_throttle_sweep", (1.2345, -35.7, 180.3), (1, 1, 1, 1), throttle_sweep(), out)
    record("road_brake", (-0.7, 120.25, -40.5), (1, 1, 1, 1), brake_sequence(), out)
    record("road_random", (3.0, 10.0, 20.0), (1, 1, 1, 1), random_smooth(7), out)
    record("grass_idle", (0.1, -150.0, 60.0), (0, 0, 0, 0), grass_then_idle(), out)
    record("mixed_random", (-2.5, 55.5, -230.125), (1, 0, 1, 0), random_smooth(11), out)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
