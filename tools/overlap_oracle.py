#!/usr/bin/env python3
"""Reference answers of Box2D's sensor overlap test (`b2TestOverlap`) for car fixtures on road
tiles, recorded with pybox2d.

Gymnasium awards a tile when a wheel fixture starts "touching" the tile's sensor fixture, which
Box2D decides with `b2TestOverlap` = `b2Distance` (GJK in f32) minus both polygon skins, below
`10 * FLT_EPSILON`. Near the boundary (a gap of 0.02 world units) f32 rounding decides, so this
records many such configurations for `rust/src/sim/physics/distance.rs`'s test to replay:

- real tiles of Gymnasium tracks (the quad Gymnasium builds, and the f32 hull pybox2d stored);
- `random` cases: a wheel or hull fixture placed at a random angle next to a random tile edge
  or corner with a gap within +-1e-4 (a third +-1e-5, a third +-2e-6) of 0.02;
- `episode` cases: every fixture/tile pair within 5e-3 of the boundary along a Gymnasium
  episode (random_smooth seed 98 of `reinfors_gym.parity`, where f32 rounding once made a tile
  count a step earlier than an exact distance would), on the poses its `world.Step` tested.

Each case stores pybox2d's answers with the tile as shape A (as in Gymnasium's contacts: tiles
get lower broad-phase proxy ids) and with the shapes swapped, plus the `b2Distance` output.
The script also checks, along the episode, that every live contact's `touching` flag equals
`b2TestOverlap` on the pre-step poses, and which fixture Box2D made fixture A; it prints both.

Format (whitespace-separated, `#` starts a comment line):
    shape F N x0 y0 ...          local polygon of car fixture F (0-3 wheels, 4-7 hull), f32
    tile T q0x q0y .. q3x q3y N s0x s0y ...
        Gymnasium's quad [road1_l, road1_r, road2_r, road2_l] (Python floats, repr), then the
        N vertices pybox2d stored after b2PolygonShape::Set (f32)
    case KIND T F px py s c AB BA DIST IT pax pay pbx pby
        fixture F at transform (p, q = (sin, cos)), all f32; AB = b2TestOverlap(tile, fixture),
        BA = b2TestOverlap(fixture, tile) (0/1); DIST IT pa pb = b2Distance(tile, fixture,
        useRadii=True): distance, iterations, witness points (f32)
f32 values are written with NumPy's shortest float32 repr, which parses back to the same f32.

Usage: python tools/overlap_oracle.py [OUT_PATH]   (default rust/tests/data/overlap_box2d.txt)
"""

import math
import os
import random
import sys

import Box2D
import gymnasium as gym
import numpy as np
from gymnasium.envs.box2d import car_racing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from reinfors_gym.parity import family_actions  # noqa: E402

F32 = np.float32
TRACK_SEEDS = (0, 1, 2, 3, 98)
RANDOM_TILES_PER_TRACK = 30
RANDOM_CASES_PER_TRACK = 200
EPISODE = ("random_smooth", 98, 1000)
EPISODE_BAND = 5e-3
GAP = 0.02


def f32(x):
    return str(F32(x))


def quads_of(track):
    """Gymnasium's tile quads, computed as `_create_track` does."""
    quads = []
    w = car_racing.TRACK_WIDTH
    for i in range(len(track)):
        _, beta1, x1, y1 = track[i]
        _, beta2, x2, y2 = track[i - 1]
        road1_l = (x1 - w * math.cos(beta1), y1 - w * math.sin(beta1))
        road1_r = (x1 + w * math.cos(beta1), y1 + w * math.sin(beta1))
        road2_l = (x2 - w * math.cos(beta2), y2 - w * math.sin(beta2))
        road2_r = (x2 + w * math.cos(beta2), y2 + w * math.sin(beta2))
        quads.append([road1_l, road1_r, road2_r, road2_l])
    return quads


def world_points(vertices, xf):
    """`b2Mul(xf, v)` in f32, Box2D's operation order."""
    s, c = F32(xf.q.s), F32(xf.q.c)
    px, py = F32(xf.position[0]), F32(xf.position[1])
    out = []
    for vx, vy in vertices:
        vx, vy = F32(vx), F32(vy)
        out.append(((c * vx - s * vy) + px, (s * vx + c * vy) + py))
    return np.array(out, dtype=np.float64)


def seg_dist2(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-300), 0.0, 1.0)
    d = p - (a + t * ab)
    return float(np.dot(d, d))


def separated(p, q):
    """Whether an edge normal of convex CCW polygon p separates it from q."""
    for i in range(len(p)):
        a, b = p[i], p[(i + 1) % len(p)]
        n = np.array([b[1] - a[1], -(b[0] - a[0])])
        if np.all((q - a) @ n > 0.0):
            return True
    return False


def exact_distance(p, q):
    """Exact (f64) distance between convex CCW polygons, 0 when they intersect."""
    if not separated(p, q) and not separated(q, p):
        return 0.0
    best = math.inf
    for u, v in ((p, q), (q, p)):
        for x in u:
            for i in range(len(v)):
                best = min(best, seg_dist2(x, v[i], v[(i + 1) % len(v)]))
    return math.sqrt(best)


def make_transform(px, py, angle):
    xf = Box2D.b2Transform()
    xf.Set(Box2D.b2Vec2(float(F32(px)), float(F32(py))), float(F32(angle)))
    return xf


def identity():
    xf = Box2D.b2Transform()
    xf.SetIdentity()
    return xf


class Recorder:
    def __init__(self, fixture_shapes):
        self.shapes = fixture_shapes  # 8 b2PolygonShape, contact order
        self.tiles = {}  # key -> (index, line, shape)
        self.lines = []
        self.stats = {"random": [0, 0, 0], "episode": [0, 0, 0]}  # cases, touching, f64 differs

    def tile(self, key, quad):
        if key not in self.tiles:
            shape = Box2D.b2PolygonShape(vertices=quad)
            t = len(self.tiles)
            stored = [v for v in shape.vertices]
            line = "tile %d %s %d %s" % (
                t,
                " ".join("%r %r" % (float(x), float(y)) for x, y in quad),
                len(stored),
                " ".join("%s %s" % (f32(x), f32(y)) for x, y in stored),
            )
            self.tiles[key] = (t, line, shape)
        return self.tiles[key]

    def case(self, kind, tile, f, xf):
        t, _, tshape = tile
        fshape = self.shapes[f]
        ident = identity()
        ab = Box2D.b2TestOverlap(tshape, 0, fshape, 0, ident, xf)
        ba = Box2D.b2TestOverlap(fshape, 0, tshape, 0, xf, ident)
        out = Box2D.b2Distance(
            shapeA=tshape, shapeB=fshape, transformA=ident, transformB=xf, useRadii=True
        )
        self.lines.append(
            "case %s %d %d %s %s %s %s %d %d %s %d %s %s %s %s"
            % (
                kind,
                t,
                f,
                f32(xf.position[0]),
                f32(xf.position[1]),
                f32(xf.q.s),
                f32(xf.q.c),
                int(ab),
                int(ba),
                f32(out.distance),
                out.iterations,
                f32(out.pointA[0]),
                f32(out.pointA[1]),
                f32(out.pointB[0]),
                f32(out.pointB[1]),
            )
        )
        exact = exact_distance(
            world_points(tshape.vertices, ident), world_points(fshape.vertices, xf)
        )
        st = self.stats[kind]
        st[0] += 1
        st[1] += int(ab)
        st[2] += int((exact - GAP < 10 * np.finfo(np.float32).eps) != bool(ab))
        return ab, ba


def car_shapes(env):
    """Copies of the car's 8 fixture shapes (wheels, then hull), which outlive the env's world.
    Re-running Set on Box2D's own vertex order reproduces it."""
    car = env.unwrapped.car
    shapes = [w.fixtures[0].shape for w in car.wheels] + [f.shape for f in car.hull.fixtures]
    copies = [Box2D.b2PolygonShape(vertices=list(s.vertices)) for s in shapes]
    for s, c in zip(shapes, copies):
        assert list(s.vertices) == list(c.vertices)
    return copies


def random_cases(rec, quads, track_key, rng):
    chosen = rng.sample(range(len(quads)), RANDOM_TILES_PER_TRACK)
    for _ in range(RANDOM_CASES_PER_TRACK):
        ti = rng.choice(chosen)
        tile = rec.tile((track_key, ti), quads[ti])
        tpts = world_points(tile[2].vertices, identity())
        f = rng.randrange(4) if rng.random() < 0.75 else 4 + rng.randrange(4)
        fverts = rec.shapes[f].vertices
        # A point on a random edge (often near its ends, to reach corners), pushed outwards.
        i = rng.randrange(len(tpts))
        a, b = tpts[i], tpts[(i + 1) % len(tpts)]
        s = rng.choice([rng.random(), rng.random() * 0.02, 1 - rng.random() * 0.02])
        edge = b - a
        normal = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)
        phi = math.atan2(normal[1], normal[0]) + rng.uniform(-1.0, 1.0)
        direction = np.array([math.cos(phi), math.sin(phi)])
        angle = rng.uniform(-math.pi, math.pi)
        delta = rng.uniform(-1.0, 1.0) * rng.choice([1e-4, 1e-5, 2e-6])
        target = GAP + delta
        center = a + s * edge + direction * 3.0
        xf = None
        for _ in range(4):
            xf = make_transform(center[0], center[1], angle)
            d = exact_distance(tpts, world_points(fverts, xf))
            if d <= 0.0:
                break
            # Closest-point direction: step straight towards the tile by the excess gap.
            fpts = world_points(fverts, xf)
            best = None
            for u, v, sign in ((fpts, tpts, 1.0), (tpts, fpts, -1.0)):
                for x in u:
                    for j in range(len(v)):
                        p, q = v[j], v[(j + 1) % len(v)]
                        pq = q - p
                        t = np.clip(np.dot(x - p, pq) / np.dot(pq, pq), 0.0, 1.0)
                        gap = x - (p + t * pq)
                        dd = float(np.linalg.norm(gap))
                        if best is None or dd < best[0]:
                            best = (dd, sign * gap / dd)
            center = center - best[1] * (d - target)
        if xf is not None and d > 0.0:
            xf = make_transform(center[0], center[1], angle)
            rec.case("random", tile, f, xf)


def run_episode(rec):
    """Gymnasium episode; records near-boundary pairs and checks contact.touching."""
    family, seed, steps = EPISODE
    env = gym.make("CarRacing-v3", disable_env_checker=True)
    env.reset(seed=seed)
    u = env.unwrapped
    quads = quads_of(u.track)
    for ti, body in enumerate(u.road):
        stored = [tuple(map(float, v)) for v in body.fixtures[0].shape.vertices]
        expect = [tuple(map(float, v)) for v in Box2D.b2PolygonShape(vertices=quads[ti]).vertices]
        assert stored == expect, "tile %d stored differently" % ti
    car = u.car
    bodies = list(car.wheels) + [car.hull] * 4
    tile_pts = [world_points(b.fixtures[0].shape.vertices, identity()) for b in u.road]
    tile_box = np.array(
        [[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] for p in tile_pts]
    )
    actions = family_actions(family, seed, steps)
    checked = mismatched = tile_is_a = car_is_a = 0
    for k in range(steps):
        poses = {hash(b): make_pose(b) for b in [car.hull] + list(car.wheels)}
        for f in range(8):
            xf = poses[hash(bodies[f])]
            fpts = world_points(rec.shapes[f].vertices, xf)
            lo, hi = fpts.min(0) - 0.05, fpts.max(0) + 0.05
            near = np.nonzero(
                (tile_box[:, 0] <= hi[0])
                & (tile_box[:, 2] >= lo[0])
                & (tile_box[:, 1] <= hi[1])
                & (tile_box[:, 3] >= lo[1])
            )[0]
            for ti in near:
                if abs(exact_distance(tile_pts[ti], fpts) - GAP) < EPISODE_BAND:
                    rec.case("episode", rec.tile(("ep", int(ti)), quads[ti]), f, xf)
        _, _, terminated, truncated, _ = env.step(actions[k].astype(np.float32))
        # Each live contact was last updated on `poses` (Collide runs before the solver).
        for c in u.world.contacts:
            fa, fb = c.fixtureA, c.fixtureB
            a_tile = hasattr(fa.body.userData, "road_friction")
            b_tile = hasattr(fb.body.userData, "road_friction")
            if a_tile == b_tile:
                continue
            tile_is_a += int(a_tile)
            car_is_a += int(b_tile)
            xa = identity() if a_tile else poses[hash(fa.body)]
            xb = identity() if b_tile else poses[hash(fb.body)]
            checked += 1
            mismatched += int(Box2D.b2TestOverlap(fa.shape, 0, fb.shape, 0, xa, xb) != c.touching)
        if terminated or truncated:
            break
    env.close()
    print(
        "episode %s %d: %d contacts checked, %d touching flags differ from b2TestOverlap; "
        "fixtureA is the tile in %d, the car in %d"
        % (family, seed, checked, mismatched, tile_is_a, car_is_a)
    )
    return mismatched


def make_pose(body):
    """A copy of the body's b2Transform (pybox2d's `body.transform` is a live reference)."""
    src = body.transform
    q = Box2D.b2Rot(0.0)
    q.s, q.c = src.q.s, src.q.c
    xf = Box2D.b2Transform(Box2D.b2Vec2(src.position[0], src.position[1]), q)
    assert (xf.q.s, xf.q.c, tuple(xf.position)) == (src.q.s, src.q.c, tuple(src.position))
    return xf


def main():
    path = (
        sys.argv[1]
        if len(sys.argv) > 1
        else os.path.join(
            os.path.dirname(__file__), "..", "rust", "tests", "data", "overlap_box2d.txt"
        )
    )
    rng = random.Random(20240611)
    env = gym.make("CarRacing-v3", disable_env_checker=True)
    env.reset(seed=0)
    rec = Recorder(car_shapes(env))
    for seed in TRACK_SEEDS:
        env.reset(seed=seed)
        random_cases(rec, quads_of(env.unwrapped.track), seed, rng)
    env.close()
    mismatched = run_episode(rec)

    out = [
        "# Generated by tools/overlap_oracle.py with gymnasium %s, Box2D %s, numpy %s"
        % (gym.__version__, Box2D.__version__, np.__version__)
    ]
    for f, shape in enumerate(rec.shapes):
        out.append(
            "shape %d %d %s"
            % (
                f,
                len(shape.vertices),
                " ".join("%s %s" % (f32(x), f32(y)) for x, y in shape.vertices),
            )
        )
    out += [line for _, line, _ in sorted(rec.tiles.values(), key=lambda t: t[0])]
    out += rec.lines
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")
    for kind, (n, touching, differs) in rec.stats.items():
        print(
            "%s: %d cases, %d touching, %d where an exact f64 distance disagrees"
            % (kind, n, touching, differs)
        )
    asym = sum(1 for line in rec.lines if line.split()[8] != line.split()[9])
    print("asymmetric b2TestOverlap answers: %d; wrote %s" % (asym, path))
    if mismatched or asym:
        sys.exit(1)


if __name__ == "__main__":
    main()
