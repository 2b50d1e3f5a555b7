"""Structural checks beyond what reading enforces: indices in range, parent order, limits,
collision trees, values the game cannot draw. Each problem is a
:class:`~io_alamo.formats.problems.Problem` (a line of text with a severity): an *error* is
what would crash the game or what its loaders refuse, a *warning* loads but looks or behaves
wrong (NaN or infinite values, unknown modes), a *note* is harmless to the game (a mesh
connected to no bone, a collision tree the game does not read the way we check it). An empty
list means the file is sound."""

import numpy as np

from ..problems import Problem, error, note, warning
from . import shaders

from .animation import Animation
from .chunk_types import ChunkType
from .collision import check_collision_tree
from .model import Billboard, LightType, Mesh, Model

MAX_SKIN_BONES = 24
MAX_PATH = 259          # the game's file names (textures, the file itself) are Windows paths


def file_problems(obj, filename=None) -> list[Problem]:
    """What the file's name and the names it holds mean to the game: a model named ``.ala``
    (or an animation named ``.alo``) the game never looks at as such, shader names the game
    has no shader for, texture names longer than a Windows path."""
    out = []
    low = str(filename or "").lower()
    if isinstance(obj, Model) and low.endswith(".ala"):
        out.append(warning("is a model but is named .ala; the game loads models from .alo "
                           "files: rename it to .alo"))
    elif isinstance(obj, Animation) and low.endswith(".alo"):
        out.append(warning("is an animation but is named .alo; the game loads animations "
                           "from .ala files: rename it to .ala"))
    if len(str(filename or "")) > MAX_PATH:
        out.append(warning(f"the file's path is {len(str(filename)):,} characters long; the "
                           f"game's limit is {MAX_PATH}"))
    if isinstance(obj, Model):
        out += _material_problems(obj)
    return out


def _material_problems(model):
    out, seen = [], set()
    for mesh in model.meshes:
        for si, sub in enumerate(mesh.submeshes):
            where = f"mesh {mesh.name!r} sub-mesh {si}"
            shader = sub.material.shader
            if shader and shader not in seen and shaders.find(shader) is None:
                seen.add(shader)
                out.append(warning(f"shader {shader!r} is none of the game's shaders: the "
                                   "game draws nothing (or its default) for it", where))
            for p in sub.material.params:
                if isinstance(p.value, str) and len(p.value) > MAX_PATH:
                    out.append(warning(f"texture name of {p.name!r} is {len(p.value):,} "
                                       f"characters long; the game's limit is {MAX_PATH}",
                                       where))
    return out


def validate(obj) -> list[Problem]:
    if isinstance(obj, Animation):
        return validate_animation(obj)
    if isinstance(obj, Model):
        return validate_model(obj)
    return []   # particle effects are kept raw; nothing to check here


def _count_problems(layout, where):
    counts = getattr(layout, "counts", None) or {}
    return [error(f"header says {declared} {key}, the data holds {found}", where)
            for key, (declared, found) in counts.items()]


def validate_model(model: Model) -> list[Problem]:
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
    finite = _all_finite([b.matrix for b in bones])
    if model.skeleton is None:
        problems.append(error("model has no skeleton (0x200)"))
    elif nb == 0:
        problems.append(error("skeleton has no bones"))
    for i, b in enumerate(bones):
        if i == 0 and b.parent != -1:
            problems.append(error(f"is the root but has parent {b.parent}",
                                  f"bone 0 ({b.name!r})"))
        elif i > 0 and not 0 <= b.parent < i:
            problems.append(error(f"has parent {b.parent}; must be a lower bone index "
                                  f"(0..{i - 1})", f"bone {i} ({b.name!r})"))
        if b.chunk_type == ChunkType.BONE_DATA and b.billboard not in Billboard._value2member_map_:
            problems.append(warning(f"unknown billboard mode {b.billboard}",
                                    f"bone {i} ({b.name!r})"))
        if not finite and not np.all(np.isfinite(b.matrix)):
            problems.append(warning("matrix has NaN or infinite values",
                                    f"bone {i} ({b.name!r})"))
    for oi, obj in enumerate(model.objects):
        if isinstance(obj, Mesh):
            problems += _mesh_problems(obj, oi, nb)
        elif obj.type not in LightType._value2member_map_:
            problems.append(warning(f"unknown light type {obj.type}", f"light {obj.name!r}"))
    conn = model.connections
    if conn is None:
        if model.objects:
            problems.append(error("model has objects but no connections chunk (0x600)"))
        return problems
    connected = set()
    for k, c in enumerate(conn.objects):
        if not 0 <= c.object < len(model.objects):
            problems.append(error(f"object {c.object} out of range ({len(model.objects)} "
                                  "objects)", f"object connection {k}"))
        if not 0 <= c.bone < nb:
            problems.append(error(f"bone {c.bone} out of range ({nb} bones)",
                                  f"object connection {k}"))
        if c.object in connected:
            problems.append(note(f"object {c.object} is connected more than once (the last "
                                 "connection wins)"))
        connected.add(c.object)
    for oi, obj in enumerate(model.objects):
        if oi not in connected:
            problems.append(note("is connected to no bone (the game draws it at the root)",
                                 f"{type(obj).__name__.lower()} {obj.name!r}"))
    for k, p in enumerate(conn.proxies):
        if not 0 <= p.bone < nb:
            problems.append(error(f"bone {p.bone} out of range ({nb} bones)",
                                  f"proxy {k} ({p.name!r})"))
    for k, d in enumerate(conn.dazzles):
        if not 0 <= d.bone < nb:
            problems.append(error(f"bone {d.bone} out of range ({nb} bones)",
                                  f"dazzle {k} ({d.name!r})"))
        if d.tex_size is not None and d.tex_size == 0:
            problems.append(warning("texture grid size is 0", f"dazzle {k} ({d.name!r})"))
    return problems


def _all_finite(arrays):
    """Whether every value of ``arrays`` is finite, in one test (False when they do not
    stack: the caller then looks at each). float32 matrices, as read, are joined as bytes."""
    try:
        if arrays and all(getattr(a, "dtype", None) is _F32 for a in arrays):
            return bool(np.isfinite(_joined(arrays, _F32)).all())
        return bool(np.isfinite(np.asarray(arrays, np.float64)).all())
    except (ValueError, TypeError):
        return False


def _mesh_problems(mesh, oi, nb):
    out = []
    name = f"mesh {mesh.name!r}"
    if not mesh.submeshes:
        out.append(note("has no sub-meshes (nothing to draw)", name))
    if np.any(np.asarray(mesh.bbox_min) > np.asarray(mesh.bbox_max)):
        out.append(warning("bounding box min is above max", name))
    trees = [s.collision_tree is not None for s in mesh.submeshes]
    if mesh.collision and not all(trees):
        out.append(warning("has collision enabled but not every sub-mesh has a collision "
                           "tree", name))
    if not mesh.collision and any(trees):
        out.append(note("has collision trees but collision is not enabled", name))
    for si, sub in enumerate(mesh.submeshes):
        where = f"{name} sub-mesh {si}"
        nv = len(sub.vertices)
        if nv > 65535:
            out.append(error(f"{nv:,} vertices (at most 65,535)", where))
        if sub.indices.size and int(sub.indices.max()) >= nv:
            out.append(error(f"vertex index {int(sub.indices.max())} out of range "
                             f"({nv:,} vertices)", where))
        if not sub.vertex_format:
            out.append(warning("empty vertex format", where))
        if sub.bone_map is not None:
            k = len(sub.bone_map)
            if not 1 <= k <= MAX_SKIN_BONES:
                out.append(error(f"bone map has {k} entries (1 to {MAX_SKIN_BONES} allowed)",
                                 where))
            if k and int(sub.bone_map.max()) >= nb:
                out.append(error(f"bone map names bone {int(sub.bone_map.max())}, "
                                 f"skeleton has {nb}", where))
            indices = sub.vertices["bone_indices"] if nv and k else None
            if indices is not None and int(indices.max()) >= k:    # else none is beyond it
                used = indices[sub.vertices["bone_weights"] > 0]
                worst = max(int(used.max()) if used.size else 0, int(indices[:, 0].max()))
                if worst >= k:
                    out.append(error(f"vertex bone index {worst} beyond the bone map "
                                     f"({k} entries)", where))
        if sub.collision_tree is not None:
            positions = sub.vertices["position"]
            for p in check_collision_tree(sub.collision_tree, positions, sub.indices):
                out.append(_collision_problem(p, f"{where} collision tree"))
        out += _finite_problems(sub, where)
    return out


# what the model loader does not read and the game tolerates: boxes that do not hold their
# triangles exactly, a root box short of 0..255 (real files' flat meshes have z 0..0)
_COLLISION_NOTES = ("poke out of their leaf's box", "root node box is ")


def _collision_problem(text, where):
    """A collision tree problem: a note for what real files have and the game takes, a
    warning for the rest (the model loads; collisions may go wrong)."""
    if any(s in text for s in _COLLISION_NOTES):
        return note(text, where)
    return warning(text, where)


_FINITE_FIELDS = ("position", "normal", "uv", "tangent", "binormal")


def _finite_problems(sub, where):
    """NaN or infinite vertex values: the game loads them and draws garbage (or nothing).
    One whole-buffer test; the fields are looked at only when it fails."""
    vertices = sub.vertices
    fields, width = _finite_plan(vertices.dtype)
    if not len(vertices) or not fields:
        return []
    if width and vertices.flags.c_contiguous:
        head = vertices.view(np.float32).reshape(len(vertices), -1)[:, :width]
        if np.isfinite(head).all():
            return []
    out = []
    for field in fields:
        values = vertices[field]
        bad = ~np.isfinite(values.reshape(len(values), -1)).all(axis=1)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            n = int(bad.sum())
            what = f"1 vertex {field} has" if n == 1 else f"{n:,} vertex {field}s have"
            out.append(warning(f"{what} NaN or infinite values (first: vertex {first})",
                               where))
    return out


_FINITE_PLANS = {}


def _finite_plan(dtype):
    """(the vertex fields :func:`_finite_problems` checks, the float32 columns the buffer
    starts with that hold exactly them, or 0 when they are not so laid out), per dtype."""
    plan = _FINITE_PLANS.get(dtype)
    if plan is None:
        names = dtype.names or ()
        fields = [f for f in _FINITE_FIELDS if f in names]
        width = 0
        if fields:
            ends = [dtype.fields[f][1] + dtype[f].itemsize for f in fields]
            if dtype.itemsize % 4 == 0 and dtype[fields[0]].base == np.float32 and max(
                    ends) == sum(dtype[f].itemsize for f in fields):
                width = max(ends) // 4
        plan = _FINITE_PLANS[dtype] = (fields, width)
    return plan


def validate_animation(anim: Animation) -> list[Problem]:
    problems = _count_problems(anim.layout, "animation")
    if not anim.fps > 0:
        problems.append(warning(f"frame rate {anim.fps} is not positive"))
    if anim.num_frames < 1:
        problems.append(warning("animation has no frames"))
    sound = _all_sound(anim.bones)
    seen = {}
    for i, b in enumerate(anim.bones):
        if b.index in seen:
            problems.append(warning(f"bones {seen[b.index]} and {i} both animate skeleton bone "
                                    f"{b.index}"))
        seen.setdefault(b.index, i)
        if not sound:
            problems += _bone_value_problems(i, b)
    return problems


_BONE_VECTORS = ("translation_offset", "translation_scale", "scale_offset", "scale_scale")
_UNIT = 32767 ** 2          # a unit quaternion's squared length in the file's int16 units


def _all_sound(bones):
    """Whether no bone can have a value warning: every file quaternion (int16) within 1.9 %
    of unit squared length, counted exactly in integers, and every offset and scale finite.
    Whole-array tests over all bones at once; the bones are looked at one by one (by
    :func:`_bone_value_problems`, which says what is wrong) only when one fails."""
    rotations = [b.rotation for b in bones if b.rotation is not None]
    defaults = [b.default_rotation for b in bones if b.default_rotation is not None]
    quats = []
    try:        # int16 only (casting "no"): anything else is looked at bone by bone
        if rotations:
            quats.append(np.concatenate(rotations, dtype=np.int16, casting="no"))
            if quats[0].ndim != 2 or quats[0].shape[1] != 4:
                return False
        if defaults:
            if not all(type(q) is np.ndarray and q.shape == (4,) for q in defaults):
                return False            # (lists too: then bone by bone, which says the same)
            quats.append(_joined(defaults, _I16).reshape(-1, 4))
    except (ValueError, TypeError):
        return False
    if quats:
        q = np.concatenate(quats).astype(np.int64)
        if np.any(np.abs(np.einsum("ij,ij->i", q, q) - _UNIT) > 0.019 * _UNIT):
            return False
    if not bones:
        return True
    return bool(np.isfinite(_bone_vectors(bones)).all())


_F32, _I16 = np.dtype(np.float32), np.dtype(np.int16)


def _joined(arrays, dtype):
    """The values of numpy ``arrays`` one after another as ``dtype`` (casting none): their
    bytes joined when every one is C-contiguous of that native dtype (a fraction of
    ``np.concatenate``'s instructions per small array), else ``np.concatenate``."""
    try:
        if all(a.dtype is dtype for a in arrays):
            return np.frombuffer(b"".join(arrays), dtype)
    except (AttributeError, TypeError):     # no array, or not C-contiguous
        pass
    return np.concatenate(arrays, dtype=dtype, casting="no" if dtype is _I16 else "same_kind")


def _bone_vectors(bones):
    """Every bone's offsets and scales as float32 values, in one flat array."""
    try:                                # one concatenation of the vectors as they are
        return _joined([v for b in bones for v in (
            b.translation_offset, b.translation_scale, b.scale_offset, b.scale_scale)], _F32)
    except (ValueError, TypeError):     # not all 1-d: value by value
        return np.concatenate([np.asarray(getattr(b, name), np.float32).ravel()
                               for b in bones for name in _BONE_VECTORS])


def _bone_value_problems(i, b):
    """Rotations that are no unit quaternions, offsets and scales NaN or infinite."""
    problems = []
    for q, what in ((b.rotation, "rotation"), (None if b.default_rotation is None
                                                else np.asarray(b.default_rotation)[None],
                                                "default rotation")):
        if q is None or not len(q):
            continue
        q = np.asarray(q, np.float32)
        square = np.einsum("ij,ij->i", q, q) * np.float32(1 / 32767.0 ** 2)
        near = np.abs(square - 1) <= 0.0199          # |norm - 1| <= 0.01, most frames
        norm = np.ones(len(q))
        norm[~near] = np.linalg.norm(q[~near].astype(np.float64) / 32767.0, axis=1)
        bad = np.flatnonzero(np.abs(norm - 1) > 0.01)
        if bad.size:
            problems.append(warning(f"{what} is not a unit quaternion at {bad.size} "
                                    f"frame(s), first {int(bad[0])} (length "
                                    f"{norm[bad[0]]:.4f})", f"bone {i} ({b.name!r})"))
    for name in _BONE_VECTORS:
        if not np.all(np.isfinite(getattr(b, name))):
            problems.append(warning(f"{name} has NaN or infinite values",
                                    f"bone {i} ({b.name!r})"))
    return problems
