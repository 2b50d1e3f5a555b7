"""Measure how local edits stay on real files (issue 14), and the conventions of real files.

For every model of a corpus folder (default ../shared/corpus): unedited import -> export
identical or not; every mesh rebuilt (vertex count against the file's, shadow triangles);
one bone renamed (meshes reused, the file with the old names put back identical); one
vertex moved in the largest mesh with tangents (angle between the file's and the export's
tangents at vertices far from it). For every animation with its model: edited and exported in
its own format (bones, step bits, 0x1008 chunks). Prints one line per file and a summary.
With ``--only workflows`` (or by default, first): a modder's day of work (issue 25), see
scripts/measure_workflows.py.

Run with a Python that has the bpy wheel:  .venv/bin/python scripts/measure_edits.py [FOLDER]
``--repo PATH`` measures another checkout's io_alamo (e.g. before the change).
"""

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp())
ROOT = Path(__file__).resolve().parents[1]


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    p.add_argument("--repo", default=str(ROOT), help="checkout whose io_alamo is measured")
    p.add_argument("--only", choices=("all", "edits", "workflows"), default="all",
                   help="edits: the single edits above; workflows: a modder's day of work "
                        "(issue 25: resize three ways, kitbash, n-gon part, one key edited, "
                        "new actions, a folder as output; scripts/measure_workflows.py)")
    return p.parse_args()


ARGS = parse()
sys.path.insert(0, ARGS.repo)

import bpy  # noqa: E402
import numpy as np  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.formats.alamo import shaders  # noqa: E402
from io_alamo.formats.alamo import decode_animation, read_ala, read_alo, write_alo  # noqa: E402
from io_alamo.formats.alamo.naming import format_has_tangents  # noqa: E402


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def do_import(path, merge=False):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path),
                      AloImportOptions(import_animations=False, merge_vertices=merge))


def do_export(path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    return export_alo(bpy.context, str(path), AloExportOptions())


def vertex_counts(model):
    """(non-shadow vertices, shadow triangles) of a model."""
    verts = tris = 0
    for m in model.meshes:
        for s in m.submeshes:
            if shaders.is_shadow(s.material.shader):
                tris += len(s.indices)
            else:
                verts += len(s.vertices)
    return verts, tris


def unedited(path, tmp):
    fresh()
    do_import(path)
    out = tmp / "u.alo"
    do_export(out)
    return out.read_bytes() == path.read_bytes()


def rebuilt(path, tmp):
    from io_alamo.blender.alamo import fingerprint
    fresh()
    do_import(path)
    for o in bpy.data.objects:
        o.pop(fingerprint.KEY, None)
    out = tmp / "r.alo"
    try:
        result = do_export(out)
    except Exception as e:            # noqa: BLE001 - a refusal is a figure too
        return None, None, f"refused: {str(e)[:80]}"
    a, b = vertex_counts(read_alo(path.read_bytes())), vertex_counts(read_alo(out.read_bytes()))
    ratio_v = b[0] / a[0] if a[0] else None
    ratio_s = b[1] / a[1] if a[1] else None
    opened = [w for w in result.warnings if "shadow" in w and "not closed" in w]
    return ratio_v, ratio_s, "; ".join(opened)[:120]


def renamed(path, tmp, model):
    """Rename the bone most objects hang on: (all meshes reused, identical but names)."""
    fresh()
    arm = do_import(path).armature
    bones = [model.object_bone(i) for i in range(len(model.objects))]
    bones = [b for b in bones if b is not None and b > 0] or [len(model.bones) - 1]
    index = max(set(bones), key=bones.count)
    bone = next(b for b in arm.data.bones if b.alamo.index == index)
    old = model.bones[index].name
    bone.name = bone.name + "_renamed"
    out = tmp / "n.alo"
    result = do_export(out)
    b = read_alo(out.read_bytes())
    b.bones[index].name = old
    return all(result.reused.values()), write_alo(b) == path.read_bytes()


def far_tangents(path, tmp, model):
    """Move one vertex of the largest mesh with tangents; angles (degrees) at far vertices."""
    best = None
    for i, m in enumerate(model.objects):
        subs = getattr(m, "submeshes", [])
        n = sum(len(s.vertices) for s in subs if format_has_tangents(s.vertex_format)
                and not shaders.is_shadow(s.material.shader))
        if n and (best is None or n > best[1]):
            best = (i, n)
    if best is None:
        return None
    fresh()
    do_import(path)
    obj = next(o for o in bpy.data.objects if o.type == "MESH" and o.alamo.file_index == best[0])
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    k = int(np.argmin(np.linalg.norm(co - co.mean(axis=0), axis=1)))
    size = float(np.ptp(co, axis=0).max())
    co[k, 2] += 0.05 * size
    me.vertices.foreach_set("co", co.ravel())
    me.update()
    out = tmp / "t.alo"
    do_export(out)
    a = read_alo(path.read_bytes()).objects[best[0]]
    b = read_alo(out.read_bytes()).objects[best[0]]
    fa = _tangent_vertices(a)
    fb = _tangent_vertices(b)
    moved = fa["position"][np.argmin(np.linalg.norm(fa["position"] - _moved(a, b), axis=1))]
    far = np.linalg.norm(fa["position"] - moved, axis=1) > 0.25 * size
    return _angles(fa[far], fb), len(fa), len(fb)


def _tangent_vertices(mesh):
    subs = [s for s in mesh.submeshes if format_has_tangents(s.vertex_format)
            and not shaders.is_shadow(s.material.shader)]
    return np.concatenate([s.vertices for s in subs])


def _moved(a, b):
    """A point where the two meshes differ (the moved vertex, in file space)."""
    pa = _tangent_vertices(a)["position"]
    pb = _tangent_vertices(b)["position"]
    keys = {tuple(p) for p in pa.tolist()}
    new = [p for p in pb.tolist() if tuple(p) not in keys]
    return np.array(new[0] if new else pa[0])


def _angles(va, vb):
    """Tangent angle at each vertex of ``va`` against the ``vb`` vertex with the same
    position, normal and UV (rounded), where there is one."""
    def key(v):
        return np.concatenate([np.round(v["position"], 3), np.round(v["normal"], 2),
                               np.round(v["uv"][:, 0], 4)], axis=1) + 0.0
    index = {}
    for j, row in enumerate(key(vb).tolist()):
        index.setdefault(tuple(row), []).append(j)
    out = []
    for i, row in enumerate(key(va).tolist()):
        js = index.get(tuple(row))
        if js:          # the file may hold several vertices that differ by tangent only
            c = np.clip(vb["tangent"][js] @ va["tangent"][i].astype(np.float64), -1, 1)
            out.append(math.degrees(math.acos(float(c.max()))))
    return np.array(out)


def tangent_only_splits(model):
    """Vertices of the file that share position, normal, UVs and colour with another
    vertex of their sub-mesh and differ in tangent frame only."""
    n = 0
    for m in model.meshes:
        for s in m.submeshes:
            if not format_has_tangents(s.vertex_format):
                continue
            v = s.vertices
            k = np.concatenate([v["position"], v["normal"], v["uv"].reshape(len(v), -1),
                                v["color"]], axis=1) + np.float32(0)
            n += len(v) - len(np.unique(k, axis=0))
    return n


def rebuilt_fresh(path, tmp, merge=False):
    """Every mesh rebuilt with tangents computed afresh (no imported ones kept): the
    vertex count ratio against the file (non-shadow sub-meshes). ``merge``: imported with
    vertices welded by position, so that the export alone decides how they split."""
    from io_alamo.blender.alamo import fingerprint
    fresh()
    do_import(path, merge)
    for o in bpy.data.objects:
        o.pop(fingerprint.KEY, None)
        if o.type == "MESH":
            for name in ("alamo_corner_key", "alamo_tangent", "alamo_binormal"):
                att = o.data.attributes.get(name)
                if att is not None:
                    o.data.attributes.remove(att)
    out = tmp / "f.alo"
    try:
        do_export(out)
    except Exception:                 # noqa: BLE001
        return None
    a, b = vertex_counts(read_alo(path.read_bytes())), vertex_counts(read_alo(out.read_bytes()))
    return b[0] / a[0] if a[0] else None


def animation(path, tmp):
    """Edited and exported in its default format: (format kept, bones equal, steps equal,
    0x1008 in a format #2 output)."""
    from io_alamo.blender.alamo import fingerprint
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    from io_alamo.blender.alamo.importer.ala import import_ala
    stem = path.stem.lower()
    models = [p for p in path.parent.iterdir() if p.suffix.lower() == ".alo"
              and stem.startswith(p.stem.lower() + "_")]
    if not models:
        return None
    fresh()
    arm = do_import(max(models, key=lambda p: len(p.stem))).armature
    action = import_ala(bpy.context, arm, str(path)).action
    del action[fingerprint.KEY]
    out = tmp / "a.ala"
    try:
        opts = AlaExportOptions(format=None)
    except TypeError:
        opts = AlaExportOptions()
    try:
        export_ala(bpy.context, arm, action, str(out), opts)
    except Exception as e:          # noqa: BLE001
        return f"refused: {e}"
    a, b = read_ala(path.read_bytes()), read_ala(out.read_bytes())
    same_bones = [x.name.lower() for x in a.bones] == [x.name.lower() for x in b.bones]
    da, db = decode_animation(a), decode_animation(b)
    steps = (b.format == a.format and same_bones and np.array_equal(da.step, db.step))
    return (b.format == a.format, same_bones, steps,
            b.format == 2 and b"\x08\x10\x00\x00" in out.read_bytes())


def conventions(models, anims):
    root = sum(m.bones and m.bones[0].name.lower() == "root"
               and np.allclose(m.bones[0].matrix, np.eye(3, 4)) for m in models.values())
    bone0 = sum(any(b.index == 0 for b in a.bones) for a in anims.values())
    step2 = sum(a.format == 2 and any(b.step is not None for b in a.bones)
                for a in anims.values())
    near_y = 0
    for m in models.values():
        w = m.skeleton.world_matrices()
        y = w[:, :3, 1] / np.maximum(np.linalg.norm(w[:, :3, 1], axis=1, keepdims=True), 1e-12)
        near_y += int((np.abs(np.abs(y[:, 1]) - 1) < 5e-5).sum())
    print(f"conventions: bone 0 identity Root in {root} of {len(models)} models; "
          f"animations with bone 0: {bone0} of {len(anims)}; format #2 with step bits: "
          f"{step2} of {sum(a.format == 2 for a in anims.values())}; bones whose Y axis is "
          f"within 0.01 of +-Y: {near_y}")
    for name, m in models.items():
        for mesh in m.meshes:
            for s in mesh.submeshes:
                if shaders.is_shadow(s.material.shader):
                    print("  shadow", name, mesh.name, _shadow_stats(s))


def _shadow_stats(sub):
    p = sub.vertices["position"][sub.indices.astype(int)].astype(np.float32) + np.float32(0)
    flat = np.ascontiguousarray(p.reshape(-1, 3)).view(np.dtype((np.void, 12))).ravel()
    _, pid = np.unique(flat, return_inverse=True)
    pid = pid.reshape(-1, 3)
    surface = (pid[:, 0] != pid[:, 1]) & (pid[:, 1] != pid[:, 2]) & (pid[:, 0] != pid[:, 2])
    p64 = p.astype(np.float64)
    area = np.linalg.norm(np.cross(p64[:, 1] - p64[:, 0], p64[:, 2] - p64[:, 0]), axis=1)
    from collections import Counter
    e = Counter()
    for f in pid[surface].tolist():
        for j in range(3):
            e[(f[j], f[(j + 1) % 3])] += 1
    open_edges = sum(max(0, n - e.get((b, a), 0)) for (a, b), n in e.items())
    return (f"triangles {len(pid)}, surface {int(surface.sum())} (collinear "
            f"{int((surface & (area == 0)).sum())}), open edges {open_edges}")


def main():
    folder = Path(ARGS.folder)
    if not folder.is_dir():
        print(f"no corpus at {folder}")
        return 1
    io_alamo.register()
    if ARGS.only != "edits":
        sys.path.insert(0, str(ROOT / "scripts"))
        import measure_workflows
        measure_workflows.run(folder)
        if ARGS.only == "workflows":
            io_alamo.unregister()
            return 0
    tmp = Path(tempfile.mkdtemp())
    models, anims = {}, {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() == ".alo":
            m = read_alo(p.read_bytes())
            if m.kind == "model":
                models[p] = m
        elif p.suffix.lower() == ".ala":
            anims[p] = read_ala(p.read_bytes())
    same, ratios, fresh_ratios, welded_ratios, all_angles, splits = 0, [], [], [], [], 0
    for p, m in models.items():
        ok = unedited(p, tmp)
        same += ok
        rv, rs, note = rebuilt(p, tmp)
        if rv:
            ratios.append(rv)
        rf = rebuilt_fresh(p, tmp)
        if rf:
            fresh_ratios.append(rf)
        rw = rebuilt_fresh(p, tmp, merge=True)
        if rw:
            welded_ratios.append(rw)
        splits += tangent_only_splits(m)
        reused, names_only = renamed(p, tmp, m)
        t = far_tangents(p, tmp, m)
        tan = ""
        if t is not None and len(t[0]):
            all_angles.append(t[0])
            tan = (f"far tangents median {np.median(t[0]):.3f} deg, >1 deg "
                   f"{(t[0] > 1).mean():.1%} of {len(t[0])}, vertices {t[1]} -> {t[2]}")
        print(f"{p.name}: unedited identical {ok}; rebuilt vertices x{rv if rv is None else round(rv, 3)}"
              f" (fresh tangents x{rf if rf is None else round(rf, 3)}, welded at import and "
              f"fresh tangents x{rw if rw is None else round(rw, 3)})"
              f", shadow triangles x{rs if rs is None else round(rs, 3)} {note}; rename: "
              f"reused {reused}, only names {names_only}; {tan}")
    for p in anims:
        print(f"{p.name}: format kept, same bones, same steps, 0x1008 in #2 = {animation(p, tmp)}")
    angles = np.concatenate(all_angles) if all_angles else np.zeros(0)
    print(f"unedited identical: {same} of {len(models)} models")
    if ratios:
        print(f"rebuilt vertex count ratio: min {min(ratios):.3f}, median "
              f"{np.median(ratios):.3f}, max {max(ratios):.3f} ({len(ratios)} models)")
    if fresh_ratios:
        print(f"rebuilt with fresh tangents: vertex count ratio min {min(fresh_ratios):.3f}, "
              f"median {np.median(fresh_ratios):.3f}, max {max(fresh_ratios):.3f}")
    if welded_ratios:
        print(f"welded at import, fresh tangents: vertex count ratio min "
              f"{min(welded_ratios):.3f}, median {np.median(welded_ratios):.3f}, max "
              f"{max(welded_ratios):.3f}")
    print(f"file vertices that differ from another by tangent frame only: {splits}")
    if len(angles):
        print(f"far-vertex tangent change after a one-vertex edit: median {np.median(angles):.4f}"
              f" deg, max {angles.max():.4f} deg, > 1 deg {(angles > 1).mean():.2%} "
              f"({len(angles)} vertices)")
    conventions({p.name: m for p, m in models.items()}, anims)
    io_alamo.unregister()
    return 0


if __name__ == "__main__":
    sys.exit(main())
