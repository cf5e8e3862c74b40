#!/usr/bin/env python3
"""Fails when the files of a crate import each other in a loop (docs/architecture.md: "Inside
each crate, files import one way, never in a loop").

For each crate under crates/, every module file's paths into its own crate (`crate::a::b`,
`super::a`) are edges to the module they name. A module and its ancestors are left out of each
other's edges: a parent declares and re-exports its children, and a child reaches the items of
its parent, which is how a Rust module tree is built, not a loop between ideas. Test modules
(`#[cfg(test)] mod tests` to the end of the file, files under a `tests` module) and comments
are left out. Prints each loop with the edges that close it, and exits 1 if there is any.

A reading of the source by pattern, not by the compiler: a path spelled through a `use` alias
or a macro is not seen. It errs towards silence, never towards a loop that is not there.
"""

import os
import re
import sys
from collections import defaultdict

TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod tests\b")
PATH = re.compile(r"\b(crate|super(?:::super)*)::([A-Za-z_0-9:]+)")


def modules(src):
    """Module path (tuple) -> file, for the crate rooted at `src`."""
    found = {}
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            parts = tuple(os.path.relpath(path, src)[:-3].split(os.sep))
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if "tests" in parts or "bin" in parts[:1]:
                continue
            found[parts] = path
    return found


def code(path):
    text = open(path, encoding="utf-8").read()
    text = TESTS.split(text)[0]
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def related(a, b):
    """Whether one module is the other or one of its ancestors."""
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def edges(found):
    graph = defaultdict(set)
    for module, path in found.items():
        for anchor, rest in PATH.findall(code(path)):
            if anchor == "crate":
                base = ()
            else:
                # `super` is the parent of the module the file holds.
                ups = anchor.count("super")
                base = module[: len(module) - ups]
            names = tuple(part for part in rest.split("::") if part)
            for end in range(len(names), 0, -1):
                target = base + names[:end]
                if target in found:
                    if not related(module, target):
                        graph[module].add(target)
                    break
    return graph


def loops(graph, nodes):
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for next_node in sorted(graph[node]):
            if next_node not in index:
                visit(next_node)
                low[node] = min(low[node], low[next_node])
            elif next_node in on_stack:
                low[node] = min(low[node], index[next_node])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def name(module):
    return "::".join(module) or "(root)"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "crates"
    failed = False
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        found = modules(src)
        graph = edges(found)
        for component in loops(graph, found):
            failed = True
            members = set(component)
            print(f"{crate}: files import each other in a loop: {', '.join(map(name, component))}")
            for module in component:
                for target in sorted(graph[module] & members):
                    print(f"    {found[module]} uses {name(target)}")
    if failed:
        sys.exit(1)
    print("knots: no crate's files import each other in a loop")


if __name__ == "__main__":
    main()
