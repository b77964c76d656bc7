"""Ours against each anchor measured under the same conditions, as "times better": the
comparisons a results document lists beside its rows."""

from __future__ import annotations

from typing import Any

from .method import ratio
from .sections import SECTIONS
from .systems import VARIANTS


def comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ours against each anchor measured under the same conditions, as 'times better'."""
    live = [r for r in rows if not r["skipped"] and r["stats"]]

    def find(
        section: str, variant: str, kind: str | None = None, **params: Any
    ) -> dict[str, Any] | None:
        for r in live:
            if kind is not None and r.get("kind", r["section"]) != kind:
                continue
            if (r["section"], r["variant"]) == (section, variant) and all(
                r["params"].get(k) == v for k, v in params.items()
            ):
                return r
        return None

    out: list[dict[str, Any]] = []

    def add(what: str, ours: dict | None, anchor: dict | None, meaning: str = "") -> None:
        if ours is None or anchor is None:
            return
        section = SECTIONS[ours["section"]]
        o = ours["stats"][section.metric]["median"]
        a = anchor["stats"][section.metric]["median"]
        out.append(
            {
                "section": ours["section"],
                "what": what,
                "ours": ours["id"],
                "anchor": anchor["id"],
                "ours_median": o,
                "anchor_median": a,
                "unit": section.unit,
                "ratio": ratio(o, a, section.higher_is_better),
                "meaning": meaning or ("faster" if section.higher_is_better else "less"),
            }
        )

    for anchor in ("gymnasium", "envpool", "reinfors"):
        for ours in ("ours-gym", "ours-raw"):
            add(
                f"{VARIANTS[ours].label} vs {VARIANTS[anchor].label}",
                find("single", ours),
                find("single", anchor),
            )
    for r in live:
        if r["section"] == "threads" and r["family"] != "ours":
            p = r["params"]
            threads = f"{p['threads']} thread" + ("s" if p["threads"] != 1 else "")
            what = f"vector, {p['num_envs']} envs, {threads}: vs {r['label']}"
            if r["variant"] == "gymnasium-async":
                what = (
                    f"vector, {p['num_envs']} envs, {p['threads']} cores: vs {r['label']} "
                    f"({p['num_envs']} processes)"
                )
            add(what, find("threads", "ours-vector", **p), r)
    ours_async = find("policy", "ours-vector", kind="policy-async")
    if ours_async is not None:
        p = ours_async["params"]
        head = f"async loop, {p['num_envs']} envs, batch {p['batch_size']}: vs "
        for anchor, what, meaning in (
            (
                find("policy", "policy-alone", num_envs=p["batch_size"]),
                f"the policy alone at batch {p['batch_size']}",
                "of the ceiling",
            ),
            (
                find("policy", "ours-vector", kind="policy", threads=0),
                "our synchronous loop",
                "faster",
            ),
            (find("policy", "envpool", kind="policy-async"), "EnvPool's async loop", "faster"),
        ):
            add(head + what, ours_async, anchor, meaning=meaning)
    ours_policy = find("policy", "ours-vector", kind="policy", threads=0)
    policy_envs = ours_policy["params"]["num_envs"] if ours_policy else None
    for anchor, meaning in (
        (find("policy", "policy-alone", num_envs=policy_envs), "of the ceiling"),
        (find("policy", "ours-vector", kind="policy", threads=1), "of num_threads=1"),
        (find("policy", "envpool", kind="policy"), "faster"),
        (find("policy", "gymnasium-async"), "faster"),
    ):
        if anchor is not None:
            what = f"policy in the loop, {anchor['params']['num_envs']} envs, default threads: "
            what += f"vs {anchor['label']}" + (
                ", num_threads=1" if anchor["variant"] == "ours-vector" else ""
            )
            add(what, ours_policy, anchor, meaning=meaning)
    two = find("oversub", "ours-vector", threads=2)
    for r in live:
        if r["section"] == "oversub" and r["params"]["threads"] > 2:
            add(
                f"{r['params']['num_envs']} envs, num_threads={r['params']['threads']} "
                "vs num_threads=2",
                r,
                two,
                meaning="of the 2-thread rate",
            )
    add(
        "reset(seed) vs Gymnasium CarRacing-v3",
        find("reset", "ours-gym"),
        find("reset", "gymnasium"),
    )
    ours_memory = [r for r in live if r["section"] == "memory" and r["variant"] == "ours-vector"]
    for r in live:
        if r["section"] == "memory" and r["family"] != "ours" and ours_memory:
            n = r["params"]["num_envs"]
            ours = min(ours_memory, key=lambda o: abs(o["params"]["num_envs"] - n))
            what = f"memory per env vs {r['label']} at {n} envs"
            if ours["params"]["num_envs"] != n:
                what += f" (ours at {ours['params']['num_envs']})"
            add(what, ours, r)
    add(
        "Engine vs reinfors Engine (discrete, zero-cost infer)",
        find("collector", "ours-engine"),
        find("collector", "reinfors-engine"),
    )
    add(
        "Engine records/s vs our raw vector env steps/s (share kept)",
        find("collector", "ours-engine"),
        find("collector", "ours-vector-discrete"),
        meaning="of the raw env's rate",
    )
    return out
