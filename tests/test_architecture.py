"""The package's shape, read from its source (ast; no Blender needed): no import cycle among
io_alamo modules, no module over 600 lines, no function over 100 lines; and the directions
imports go in (issue 24): the format layer imports nothing from ``blender/``; no engine's
package imports another engine's, but for Alamo's hub API (``blender/alamo/hub.py``, issue
32); a neutral module (outside the engines' packages) imports no engine's package; Blender
modules reach the format layer only through its neutral modules (the registry, errors,
files) or their own engine's package. Formats are declared only in ``entries`` modules of
their own engine's package.

Known violations are listed below, each with why it is still there. The lists may only
shrink: an entry that no longer violates fails the test too, so that whoever fixes one
removes it here.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "io_alamo"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100

# --- known violations: none left (issue #18) -------------------------------------------------
KNOWN_CYCLES = []
KNOWN_LONG_MODULES = set()
KNOWN_LONG_FUNCTIONS = set()
# Imports inside functions, only where bpy is optional: importing io_alamo (format layer,
# command line) never loads Blender, and the batch entry point says "needs bpy" without it.
IMPORTS_INSIDE_FUNCTIONS = {
    "io_alamo/__init__.py:register",       # bpy, the Blender layer: only Blender calls it
    "io_alamo/__init__.py:unregister",
    "io_alamo/batch/__init__.py:main",              # bpy checked here; then the Blender half
}


ENGINES = ("alamo", "alithia", "alod", "arma")
# Format modules any Blender module may use: the registry and what every format shares.
NEUTRAL_FORMAT_MODULES = {"io_alamo.formats", "io_alamo.formats.registry", "io_alamo.formats.entry",
                          "io_alamo.formats.content", "io_alamo.formats.keep",
                          "io_alamo.formats.errors", "io_alamo.formats.files",
                          "io_alamo.formats.saving", "io_alamo.formats.options"}
# The Alamo package's public API for the other engines (Alamo is the hub: their imports
# become Alamo units). The one module of another engine's package an engine may import.
HUB_API = {"io_alamo.blender.alamo.hub"}
# Known crossings, each with why it is still there (may only shrink, as the lists above).
KNOWN_CROSSINGS = set()


def layer_and_engine(module):
    """("formats" or "blender" or None, the engine's name or None) of a module name."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in ("formats", "blender"):
        return None, None
    return parts[1], parts[2] if len(parts) > 2 and parts[2] in ENGINES else None


def crossings(graph):
    """(module, imported, rule broken) for every import against the directions above."""
    out = []
    for module, deps in graph.items():
        layer, engine = layer_and_engine(module)
        for dep in deps:
            dep_layer, dep_engine = layer_and_engine(dep)
            if layer == "formats" and dep_layer == "blender":
                out.append((module, dep, "the format layer imports the Blender layer"))
            elif engine is None and dep_engine is not None:
                out.append((module, dep, "a neutral module imports an engine's package"))
            elif engine and dep_engine and dep_engine != engine and dep not in HUB_API:
                out.append((module, dep, "an engine imports another engine's package (other "
                                         "than Alamo's hub API)"))
            elif (layer == "blender" and dep_layer == "formats" and dep_engine != engine
                  and dep not in NEUTRAL_FORMAT_MODULES):
                out.append((module, dep, "a Blender module reaches another engine's format "
                                         "modules"))
    return out


# --- reading the source ---------------------------------------------------------------------

def module_files(package=PACKAGE):
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path, root=ROOT):
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def rel(path, root=ROOT):
    return path.relative_to(root).as_posix()


def imported_modules(path, known, root=ROOT):
    """The io_alamo modules ``path`` imports, anywhere in it (inside functions too), with
    relative imports resolved. ``from package import name`` counts ``package.name`` when that
    is a module, and ``package`` only for names that are not (a parent package is imported
    before any of its modules anyway: that is no cycle)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            modules = {f"{target}.{alias.name}" for alias in node.names} & known
            out |= modules if len(modules) == len(node.names) else modules | {target}
    return {m for m in out if m in known and m != name}


def import_graph(package=PACKAGE, root=ROOT):
    files = module_files(package)
    known = {module_name(p, root) for p in files}
    return {module_name(p, root): imported_modules(p, known, root) for p in files}


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.add(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def long_modules():
    return {rel(p): len(p.read_text(encoding="utf-8").splitlines()) for p in module_files()
            if len(p.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES}


def long_functions(package=PACKAGE, root=ROOT):
    """``path:qualified.name`` -> lines, for every function or method over the limit."""
    out = {}

    def visit(node, prefix, path):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    lines = child.end_lineno - child.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        out[f"{path}:{name}"] = lines
                visit(child, name + ".", path)
            else:
                visit(child, prefix, path)

    for p in module_files(package):
        visit(ast.parse(p.read_text(encoding="utf-8")), "", rel(p, root))
    return out


# --- the checks -----------------------------------------------------------------------------

def test_no_import_cycle_beyond_the_known_ones():
    found = cycles(import_graph())
    unknown = [sorted(c) for c in found if not any(c <= known for known in KNOWN_CYCLES)]
    assert not unknown, f"import cycles: {unknown}"
    stale = [sorted(k) for k in KNOWN_CYCLES if not any(c & k for c in found)]
    assert not stale, f"no longer cycles, remove from KNOWN_CYCLES: {stale}"


def test_no_module_over_600_lines_beyond_the_known_ones():
    found = long_modules()
    assert not set(found) - KNOWN_LONG_MODULES, {k: v for k, v in found.items()
                                                 if k not in KNOWN_LONG_MODULES}
    assert not KNOWN_LONG_MODULES - set(found), \
        f"now short enough, remove from KNOWN_LONG_MODULES: {KNOWN_LONG_MODULES - set(found)}"


def test_no_function_over_100_lines_beyond_the_known_ones():
    found = long_functions()
    assert not set(found) - KNOWN_LONG_FUNCTIONS, {k: v for k, v in found.items()
                                                   if k not in KNOWN_LONG_FUNCTIONS}
    assert not KNOWN_LONG_FUNCTIONS - set(found), \
        f"now short enough, remove from KNOWN_LONG_FUNCTIONS: {KNOWN_LONG_FUNCTIONS - set(found)}"


def test_imports_go_the_allowed_directions():
    found = crossings(import_graph())
    unknown = sorted((m, d, why) for m, d, why in found if (m, d) not in KNOWN_CROSSINGS)
    assert not unknown, "\n".join(f"{m} -> {d}: {why}" for m, d, why in unknown)
    stale = KNOWN_CROSSINGS - {(m, d) for m, d, _ in found}
    assert not stale, f"no longer crossing, remove from KNOWN_CROSSINGS: {sorted(stale)}"


def test_every_engine_has_a_package_in_both_layers_and_an_entry_in_the_registry():
    from io_alamo.formats import registry
    for layer in ("formats", "blender"):
        for engine in ENGINES:
            assert (PACKAGE / layer / engine / "__init__.py").exists(), (layer, engine)
    engines = {fmt.engine for fmt in registry.FORMATS}
    for engine in ("Alamo", "Alithia", "ALOD", "Arma"):
        assert engine in engines


# the engine name each package's entries carry
ENGINE_NAMES = {"alamo": "Alamo", "alithia": "Alithia", "alod": "ALOD", "arma": "Arma"}


def format_calls(package=PACKAGE, root=ROOT):
    """``path`` -> the engine strings of every ``Format(...)`` made in it (None: not a
    literal)."""
    out = {}
    for p in module_files(package):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Format":
                arg = node.args[1] if len(node.args) > 1 else None
                out.setdefault(rel(p, root), []).append(
                    arg.value if isinstance(arg, ast.Constant) else None)
    return out


def misplaced_entries(calls):
    """(path, engine) of every entry made outside an ``entries`` module of its own engine's
    package (``io_alamo/formats/<engine>/.../entries.py``)."""
    out = []
    for path, engines in calls.items():
        parts = path.split("/")
        home = parts[2] if len(parts) > 3 and parts[1] == "formats" else None
        for engine in engines:
            if parts[-1] != "entries.py" or ENGINE_NAMES.get(home) != engine:
                out.append((path, engine))
    return out


def test_engine_entries_are_declared_only_in_their_own_package():
    assert not misplaced_entries(format_calls())
    from io_alamo.formats import registry
    for name in registry.entry_modules():
        module = __import__(name, fromlist=["FORMATS"])
        home = name.split(".")[2]
        assert home in ENGINES, f"{name}: entries outside an engine's package"
        for fmt in getattr(module, "FORMATS", ()):
            assert fmt.engine == ENGINE_NAMES[home], (name, fmt.key, fmt.engine)


def test_misplaced_entries_are_found(tmp_path):
    pkg = write_package(tmp_path, {
        "io_alamo/formats/registry.py": 'X = Format("x", "Alamo", "an x")\n',
        "io_alamo/formats/alod/entries.py": 'X = Format("x", "Arma", "an x")\n',
        "io_alamo/formats/arma/sub/entries.py": 'X = Format("x", "Arma", "an x")\n',
        "io_alamo/formats/arma/read.py": 'X = Format("x", "Arma", "an x")\n',
    }).parent / "io_alamo"
    found = set(misplaced_entries(format_calls(pkg, tmp_path)))
    assert found == {("io_alamo/formats/registry.py", "Alamo"),
                     ("io_alamo/formats/alod/entries.py", "Arma"),
                     ("io_alamo/formats/arma/read.py", "Arma")}


def test_all_lists_are_written_out():
    """``__all__`` names the public API; one built from dir() leaks submodule names."""
    for p in module_files():
        text = p.read_text(encoding="utf-8")
        assert "__all__ = [name for name in dir()" not in text, rel(p)


def imports_inside_functions(package=PACKAGE, root=ROOT):
    """``path:qualified.name`` of every function (or method) with an import statement in it."""
    out = set()

    def visit(node, prefix, path, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                out.add(f"{path}:{prefix.rstrip('.')}")
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = in_function or not isinstance(child, ast.ClassDef)
                visit(child, prefix + child.name + ".", path, inner)
            else:
                visit(child, prefix, path, in_function)

    for p in module_files(package):
        visit(ast.parse(p.read_text(encoding="utf-8")), "", rel(p, root), False)
    return out


def test_imports_inside_functions_only_where_bpy_is_optional():
    found = imports_inside_functions()
    assert found == IMPORTS_INSIDE_FUNCTIONS, (
        f"new: {sorted(found - IMPORTS_INSIDE_FUNCTIONS)}; "
        f"gone, remove from the list: {sorted(IMPORTS_INSIDE_FUNCTIONS - found)}")


def test_the_format_layer_is_not_on_any_list():
    """The Blender-free layer has no known violation left to carry."""
    listed = set().union(*KNOWN_CYCLES) | {m.replace("/", ".") for m in KNOWN_LONG_MODULES} \
        | {f.split(":")[0].replace("/", ".") for f in KNOWN_LONG_FUNCTIONS}
    assert not [m for m in listed if m.startswith("io_alamo.formats")]


# --- the checker checks itself ---------------------------------------------------------------

def write_package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_cycles_are_found_through_relative_imports_and_imports_inside_functions(tmp_path):
    pkg = write_package(tmp_path, {
        "pkg/__init__.py": "", "pkg/sub/__init__.py": "",
        "pkg/sub/a.py": "from . import b\n",
        "pkg/sub/b.py": "def f():\n    from ..c import x\n",
        "pkg/c.py": "import pkg.sub.a\nx = 1\n",
        "pkg/d.py": "from .c import x\n",
    })
    graph = import_graph(pkg, tmp_path)
    assert graph["pkg.sub.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.c"}
    assert graph["pkg.d"] == {"pkg.c"}
    assert cycles(graph) == [{"pkg.sub.a", "pkg.sub.b", "pkg.c"}]


def test_imports_inside_functions_are_found_in_methods_and_nested_functions(tmp_path):
    pkg = write_package(tmp_path, {
        "pkg/m.py": "import os\nclass C:\n    import sys\n    def f(self):\n"
                    "        if os:\n            from os import path\n",
        "pkg/n.py": "def outer():\n    def inner():\n        import json\n",
    })
    assert imports_inside_functions(pkg, tmp_path) == {"pkg/m.py:C.f", "pkg/n.py:outer.inner"}


def test_crossings_are_found(tmp_path):
    graph = {"io_alamo.formats.alod.read": {"io_alamo.formats.alamo.chunks",
                                            "io_alamo.blender.alod.importer"},
             "io_alamo.blender.arma.importer": {"io_alamo.formats.arma.read",
                                                "io_alamo.formats.registry",
                                                "io_alamo.formats.alamo.files",
                                                "io_alamo.blender.alamo.importer.alo"},
             "io_alamo.blender.batch": {"io_alamo.formats.alamo.compare",
                                        "io_alamo.blender.alamo.exporter.alo"},
             "io_alamo.blender.alod.mesh": {"io_alamo.blender.alamo.hub",
                                            "io_alamo.blender.alamo.shading"},
             "io_alamo.cli": {"io_alamo.formats.registry", "io_alamo.formats.alamo.meg"}}
    found = {(m, d) for m, d, _ in crossings(graph)}
    assert found == {("io_alamo.formats.alod.read", "io_alamo.formats.alamo.chunks"),
                     ("io_alamo.formats.alod.read", "io_alamo.blender.alod.importer"),
                     ("io_alamo.blender.arma.importer", "io_alamo.formats.alamo.files"),
                     ("io_alamo.blender.arma.importer", "io_alamo.blender.alamo.importer.alo"),
                     ("io_alamo.blender.batch", "io_alamo.formats.alamo.compare"),
                     ("io_alamo.blender.batch", "io_alamo.blender.alamo.exporter.alo"),
                     ("io_alamo.blender.alod.mesh", "io_alamo.blender.alamo.shading"),
                     ("io_alamo.cli", "io_alamo.formats.alamo.meg")}


def test_long_functions_are_found_among_methods_and_nested_functions(tmp_path):
    body = "".join(f"        x{i} = {i}\n" for i in range(100))
    pkg = write_package(tmp_path, {
        "pkg/m.py": f"class C:\n    def long(self):\n{body}\n\ndef short():\n    pass\n",
        "pkg/n.py": f"def outer():\n    def inner():\n{body}",
    })
    assert long_functions(pkg, tmp_path) == {"pkg/m.py:C.long": 101, "pkg/n.py:outer": 102,
                                             "pkg/n.py:outer.inner": 101}
