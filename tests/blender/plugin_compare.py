"""Field-by-field comparison of a model exported from an ALAMO-plugin scene with the original
.alo the plugin imported (both read by the format layer). Blender-free."""

import os

import numpy as np

from io_alamo.formats.alamo import Mesh, ParamType

FIELDS = ("bone names and order", "bone visibility", "bone billboard", "mesh bone",
          "mesh placement", "mesh hidden", "mesh collision", "shaders", "parameters",
          "textures", "proxies")
#: reported, not required: the plugin stored .dds for .tga and changed letter case, and
#: kept textures of shader parameters the file left out
INFO_FIELDS = ("textures (exact spelling)", "textures the file left out")


def _texture_key(name):
    """The game loads a .tga name from its .dds; the plugin stored .dds names."""
    stem, ext = os.path.splitext(name or "")
    return (stem.lower(), ".dds" if ext.lower() in (".tga", ".dds") else ext.lower())


def _values(material):
    numbers, textures = {}, {}
    for p in material.params:
        if p.type == ParamType.TEXTURE:
            textures[p.name.lower()] = p.value
        else:
            numbers[p.name.lower()] = np.atleast_1d(np.asarray(p.value, np.float64))
    return numbers, textures


def _same_numbers(a, b):
    return a.keys() == b.keys() and all(
        a[k].shape == b[k].shape and np.allclose(a[k], b[k], atol=1e-5) for k in a)


def _box(mesh):
    p = np.concatenate([s.vertices["position"] for s in mesh.submeshes]).astype(np.float64)
    return p.min(axis=0), p.max(axis=0)


def _same_box(a, b):
    """Same vertex bounding box (in the space the file keeps them: bone or model space)."""
    (lo1, hi1), (lo2, hi2) = _box(a), _box(b)
    tol = 1e-4 * max(1.0, float(np.abs(np.r_[lo1, hi1]).max()))
    return np.allclose(lo1, lo2, atol=tol) and np.allclose(hi1, hi2, atol=tol)


def _mesh_bones(model):
    bones = model.object_bones()
    return {o.name: bones.get(i) for i, o in enumerate(model.objects) if isinstance(o, Mesh)}


def compare(original, exported, skip_meshes=()):
    """{field: (matching, total, [what differs])} for the fields the plugin keeps; meshes
    named in ``skip_meshes`` are left out of the count."""
    out = {f: [0, 0, []] for f in FIELDS + INFO_FIELDS}

    def tally(field, same, what):
        out[field][1] += 1
        out[field][0] += bool(same)
        if not same:
            out[field][2].append(what)

    ob, eb = original.bones, exported.bones
    tally("bone names and order", [b.name for b in ob] == [b.name for b in eb],
          f"{[b.name for b in ob][:6]}... != {[b.name for b in eb][:6]}...")
    pairs = list(zip(ob, eb)) if len(ob) == len(eb) else []
    for a, b in pairs:
        tally("bone visibility", a.visible == b.visible, a.name)
        tally("bone billboard", a.billboard == b.billboard, a.name)
    o_bones, e_bones = _mesh_bones(original), _mesh_bones(exported)
    e_meshes = {m.name: m for m in exported.meshes}
    for m in original.meshes:
        if m.name in skip_meshes:
            continue
        e = e_meshes.get(m.name)
        if e is None:
            for f in ("mesh bone", "mesh hidden", "mesh collision", "shaders"):
                tally(f, False, f"{m.name}: not exported")
            continue
        tally("mesh bone", o_bones[m.name] == e_bones[m.name],
              f"{m.name}: {o_bones[m.name]} != {e_bones[m.name]}")
        tally("mesh placement", _same_box(m, e), m.name)
        tally("mesh hidden", m.hidden == e.hidden, m.name)
        tally("mesh collision", m.collision == e.collision, m.name)
        _compare_materials(m, e, tally)
    proxies = [(p.name.lower(), p.bone, p.hidden or 0, p.alt_decrease_stay_hidden or 0)
               for p in original.connections.proxies]
    e_proxies = [(p.name.lower(), p.bone, p.hidden or 0, p.alt_decrease_stay_hidden or 0)
                 for p in exported.connections.proxies]
    tally("proxies", sorted(proxies) == sorted(e_proxies), f"{proxies} != {e_proxies}")
    return {f: (n, total, diffs) for f, (n, total, diffs) in out.items()}


def _compare_materials(m, e, tally):
    o_shaders = [s.material.shader.lower() for s in m.submeshes]
    e_shaders = [s.material.shader.lower() for s in e.submeshes]
    same_shaders = sorted(set(o_shaders)) == sorted(set(e_shaders))
    tally("shaders", same_shaders, f"{m.name}: {o_shaders} != {e_shaders}")
    by_shader = {s.material.shader.lower(): s.material for s in e.submeshes}
    for s in m.submeshes:
        other = by_shader.get(s.material.shader.lower())
        if other is None:
            continue
        n1, t1 = _values(s.material)
        n2, t2 = _values(other)
        tally("parameters", _same_numbers(n1, n2), f"{m.name}/{s.material.shader}")
        tally("textures", all(k in t2 and _texture_key(v) == _texture_key(t2[k])
                              for k, v in t1.items()), f"{m.name}: {t1} != {t2}")
        tally("textures (exact spelling)", all(t2.get(k) == v for k, v in t1.items()),
              f"{m.name}: {t1} != {t2}")
        tally("textures the file left out", not (t2.keys() - t1.keys()),
              f"{m.name}: {sorted(t2.keys() - t1.keys())}")
