#!/usr/bin/env python3
"""Checks that imports point one way inside every crate: no two modules of a crate use each
other, directly or through others (docs/ARCHITECTURE.md, "Layers").

Each source file is a module. A module depends on another when it names an item of it: in a
`use` (braces expanded) or in a path (`crate::a::b`, `super::x`, `self::x`, or a child
module's name). A module and its ancestors are one facade and are not looked at together
(a parent declares and re-exports its children; a child may take the crate's `Error`): the
check is between modules on separate branches, e.g. `a::x` and `b`, or `a` and `b`. Code of a crate's
tests and benches (outside src/) is not looked at. A cycle is printed with the paths that
close it, and the exit code is 1.

Usage: scripts/module-cycles.py [CRATE_DIR ...]   (default: every crate of the workspace)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CRATES = sorted(str(p.parent) for p in ROOT.glob("crates/*/Cargo.toml")) + [str(ROOT / "python"), str(ROOT / "elixir/native/chwire_nif")]


def modules(src: Path) -> dict:
    """Module path (tuple) -> file, for every .rs file under src/."""
    out = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "mod":
            parts.pop()
        if parts in (["lib"], ["main"]):
            parts = []
        if parts and parts[0] == "bin":
            continue
        out[tuple(parts)] = f
    return out


def strip(text: str) -> str:
    """The code without comments and string literals (paths inside them are no uses)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [re.sub(r"\s+as\s+\w+$", "", tree)]
    prefix, body = tree[:i], tree[i + 1 : tree.rfind("}")]
    items, depth, start = [], 0, 0
    for k, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(body[start:k])
            start = k + 1
    items.append(body[start:])
    return [p for it in items if it.strip() for p in expand(prefix + it.strip())]


def resolve(path: list, here: tuple, mods: dict):
    """The module a path (segments) used in module `here` names, or None (another crate, std)."""
    if not path:
        return None
    if path[0] == "crate":
        base, rest = (), path[1:]
    elif path[0] in ("super", "self"):
        base, rest = here, path
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    elif here + (path[0],) in mods:
        base, rest = here, path
    else:
        return None
    best = base if base in mods else None
    for n in range(1, len(rest) + 1):
        if base + tuple(rest[:n]) in mods:
            best = base + tuple(rest[:n])
    return best


def related(a: tuple, b: tuple) -> bool:
    """Whether one module is the other or contains it."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def deps(mods: dict) -> dict:
    graph = {m: {} for m in mods}
    for m, f in mods.items():
        code = strip(f.read_text())
        paths = []
        for u in re.finditer(r"\buse\s+([^;]+);", code):
            paths += expand(u.group(1))
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", code)
        children = {c[-1] for c in mods if len(c) == len(m) + 1 and c[: len(m)] == m}
        paths += [p for p in re.findall(r"\b(\w+(?:::\w+)+)", code) if p.split("::")[0] in children]
        for p in paths:
            segs = [s for s in re.split(r"\s*::\s*", p.strip()) if s and s != "*"]
            target = resolve(segs, m, mods)
            # A module and its ancestors are one facade (a parent re-exports its children, a
            # child takes the crate's Error): only modules on separate branches count.
            if target is not None and not related(target, m):
                graph[m].setdefault(target, p.strip())
    return graph


def cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def name(m: tuple) -> str:
    return "::".join(m) or "(crate root)"


def main() -> int:
    crates = sys.argv[1:] or DEFAULT_CRATES
    bad = 0
    for c in crates:
        src = Path(c) / "src"
        if not src.is_dir():
            continue
        mods = modules(src)
        graph = deps(mods)
        for comp in cycles(graph):
            bad += 1
            print(f"{Path(c).name}: modules that use each other: {', '.join(name(m) for m in comp)}")
            for a in comp:
                for b, p in graph[a].items():
                    if b in comp:
                        print(f"    {name(a)} -> {name(b)}  ({p})")
    if bad:
        print(f"{bad} import cycle(s): move what both sides need to the module that owns it", file=sys.stderr)
        return 1
    print(f"module-cycles: imports point one way in {len(crates)} crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
