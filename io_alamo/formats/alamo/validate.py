"""Structural checks beyond what reading enforces: indices in range, parent order, limits,
collision trees. Each problem is one line of text; an empty list means the file is sound."""

import numpy as np

from .animation import Animation
from .chunk_types import ChunkType
from .collision import check_collision_tree
from .model import Billboard, LightType, Mesh, Model

MAX_SKIN_BONES = 24


def validate(obj) -> list[str]:
    if isinstance(obj, Animation):
        return validate_animation(obj)
    if isinstance(obj, Model):
        return validate_model(obj)
    return []   # particle effects are kept raw; nothing to check here


def _count_problems(layout, where):
    counts = getattr(layout, "counts", None) or {}
    return [f"{where}: header says {declared} {key}, the data holds {found}"
            for key, (declared, found) in counts.items()]


def validate_model(model: Model) -> list[str]:
    problems = []
    if model.skeleton is not None:
        problems += _count_problems(model.skeleton.layout, "skeleton")
    if model.connections is not None:
        problems += _count_problems(model.connections.layout, "connections")
    for obj in model.meshes:
        problems += _count_problems(obj.layout, f"mesh {obj.name!r}")
        for si, sub in enumerate(obj.submeshes):
            problems += _count_problems(sub.layout, f"mesh {obj.name!r} sub-mesh {si}")
            if sub.collision_tree is not None:
                problems += _count_problems(sub.collision_tree.layout,
                                            f"mesh {obj.name!r} sub-mesh {si} collision tree")
    bones = model.bones
    nb = len(bones)
    if model.skeleton is None:
        problems.append("model has no skeleton (0x200)")
    elif nb == 0:
        problems.append("skeleton has no bones")
    for i, b in enumerate(bones):
        if i == 0 and b.parent != -1:
            problems.append(f"bone 0 ({b.name!r}) is the root but has parent {b.parent}")
        elif i > 0 and not 0 <= b.parent < i:
            problems.append(f"bone {i} ({b.name!r}) has parent {b.parent}; "
                            f"must be a lower bone index (0..{i - 1})")
        if b.chunk_type == ChunkType.BONE_DATA and b.billboard not in Billboard._value2member_map_:
            problems.append(f"bone {i} ({b.name!r}) has unknown billboard mode {b.billboard}")
        if not np.all(np.isfinite(b.matrix)):
            problems.append(f"bone {i} ({b.name!r}) matrix has NaN or infinite values")
    for oi, obj in enumerate(model.objects):
        if isinstance(obj, Mesh):
            problems += _mesh_problems(obj, oi, nb)
        elif obj.type not in LightType._value2member_map_:
            problems.append(f"light {obj.name!r}: unknown light type {obj.type}")
    conn = model.connections
    if conn is None:
        if model.objects:
            problems.append("model has objects but no connections chunk (0x600)")
        return problems
    connected = set()
    for k, c in enumerate(conn.objects):
        if not 0 <= c.object < len(model.objects):
            problems.append(f"object connection {k}: object {c.object} out of range "
                            f"({len(model.objects)} objects)")
        if not 0 <= c.bone < nb:
            problems.append(f"object connection {k}: bone {c.bone} out of range ({nb} bones)")
        if c.object in connected:
            problems.append(f"object {c.object} is connected more than once")
        connected.add(c.object)
    for oi, obj in enumerate(model.objects):
        if oi not in connected:
            problems.append(f"{type(obj).__name__.lower()} {obj.name!r} is connected to no bone")
    for k, p in enumerate(conn.proxies):
        if not 0 <= p.bone < nb:
            problems.append(f"proxy {k} ({p.name!r}): bone {p.bone} out of range ({nb} bones)")
    for k, d in enumerate(conn.dazzles):
        if not 0 <= d.bone < nb:
            problems.append(f"dazzle {k} ({d.name!r}): bone {d.bone} out of range ({nb} bones)")
        if d.tex_size is not None and d.tex_size == 0:
            problems.append(f"dazzle {k} ({d.name!r}): texture grid size is 0")
    return problems


def _mesh_problems(mesh, oi, nb):
    out = []
    name = f"mesh {mesh.name!r}"
    if not mesh.submeshes:
        out.append(f"{name} has no sub-meshes")
    if np.any(np.asarray(mesh.bbox_min) > np.asarray(mesh.bbox_max)):
        out.append(f"{name}: bounding box min is above max")
    trees = [s.collision_tree is not None for s in mesh.submeshes]
    if mesh.collision and not all(trees):
        out.append(f"{name} has collision enabled but not every sub-mesh has a collision tree")
    if not mesh.collision and any(trees):
        out.append(f"{name} has collision trees but collision is not enabled")
    for si, sub in enumerate(mesh.submeshes):
        where = f"{name} sub-mesh {si}"
        nv = len(sub.vertices)
        if nv > 65535:
            out.append(f"{where}: {nv} vertices (at most 65,535)")
        if sub.indices.size and int(sub.indices.max()) >= nv:
            out.append(f"{where}: vertex index {int(sub.indices.max())} out of range "
                       f"({nv} vertices)")
        if not sub.vertex_format:
            out.append(f"{where}: empty vertex format")
        if sub.bone_map is not None:
            k = len(sub.bone_map)
            if not 1 <= k <= MAX_SKIN_BONES:
                out.append(f"{where}: bone map has {k} entries (1 to {MAX_SKIN_BONES} allowed)")
            if k and int(sub.bone_map.max()) >= nb:
                out.append(f"{where}: bone map names bone {int(sub.bone_map.max())}, "
                           f"skeleton has {nb}")
            if nv and k:
                weights = sub.vertices["bone_weights"]
                used = sub.vertices["bone_indices"][weights > 0]
                first = sub.vertices["bone_indices"][:, 0]
                worst = max(int(used.max()) if used.size else 0, int(first.max()))
                if worst >= k:
                    out.append(f"{where}: vertex bone index {worst} beyond the bone map "
                               f"({k} entries)")
        if sub.collision_tree is not None:
            positions = sub.vertices["position"]
            for p in check_collision_tree(sub.collision_tree, positions, sub.indices):
                out.append(f"{where} collision tree: {p}")
    return out


def validate_animation(anim: Animation) -> list[str]:
    problems = _count_problems(anim.layout, "animation")
    if not anim.fps > 0:
        problems.append(f"frame rate {anim.fps} is not positive")
    if anim.num_frames < 1:
        problems.append("animation has no frames")
    seen = {}
    for i, b in enumerate(anim.bones):
        if b.index in seen:
            problems.append(f"bones {seen[b.index]} and {i} both animate skeleton bone {b.index}")
        seen.setdefault(b.index, i)
        for q, what in ((b.rotation, "rotation"), (None if b.default_rotation is None
                                                    else np.asarray(b.default_rotation)[None],
                                                    "default rotation")):
            if q is None or not len(q):
                continue
            norm = np.linalg.norm(np.asarray(q, np.float64) / 32767.0, axis=1)
            bad = np.flatnonzero(np.abs(norm - 1) > 0.01)
            if bad.size:
                problems.append(f"bone {i} ({b.name!r}): {what} is not a unit quaternion at "
                                f"{bad.size} frame(s), first {int(bad[0])} (length "
                                f"{norm[bad[0]]:.4f})")
        for name in ("translation_offset", "translation_scale", "scale_offset", "scale_scale"):
            if not np.all(np.isfinite(getattr(b, name))):
                problems.append(f"bone {i} ({b.name!r}): {name} has NaN or infinite values")
    return problems
