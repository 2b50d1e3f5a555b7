"""What the game's own loaders demand of a model or an animation, checked on the chunk tree.

The public statement of those rules is the alo-viewer's model and animation loaders (their
``Verify()`` checks and the reads between them): a loader walks the chunks in one fixed order
and refuses the file at the first chunk or mini-chunk that is not the one it expects, that is
too short for what it reads there, or that points at a bone or object that is not there. This
module states that order as data (:data:`MINI_RULES` for the mini-chunk headers,
:data:`MIN_BYTES` for the fixed records) and walks a file's chunks with it, so that
``io-alamo validate`` and every writer refuse what the game refuses.

:func:`game_problem` gives ``None`` for a file the loaders take, else one :class:`Refusal`:
the chunk path, the rule's name and what is wrong (naming the bone, mesh, light, proxy or
dazzle at fault). Particle effects (root 0x900 or 0x1500) are not models to these loaders and
are not checked here.
"""

import os
import struct
from dataclasses import dataclass

from ..errors import AlamoFormatError
from ..problems import Problem, error
from ..run_cache import remember
from .chunks import BytesLike, Mini, read_chunks, read_minis
from .loader_runs import anim_bones_taken as _bones_taken, plain_bone as _plain_bone
from .loader_runs import connections_taken as _connections_taken, loader_key as _key
from .loader_runs import submeshes_taken as _submeshes_taken
from .model_pairs import model_beside, models_beside, stamp as _stamp
from .naming import animation_owner
from .sniff import PARTICLE_ROOTS, is_particle_file

# --- the rules as data -----------------------------------------------------------------

# Mini-chunk headers: the minis a loader reads, in order, as (type, bytes it reads, what it
# is). A tuple entry ("optional", type, bytes, what, then) may be left out; when present the
# entries in ``then`` must follow it. The header must end after the last entry.
MINI_RULES = {
    "animation header": [(1, 4, "frame count"), (2, 4, "frame rate"), (3, 4, "bone count"),
                         ("optional", 11, 4, "rotation frame size (format #2)",
                          [(12, 4, "translation frame size"), (13, 4, "scale frame size")])],
    "bone header": [(4, 0, "bone name"), (5, 4, "bone index"),
                    ("optional", 10, 0, "unknown flag", []),
                    (6, 12, "translation offset"), (7, 12, "translation scale"),
                    (8, 12, "scale offset"), (9, 12, "scale scale")],
    "bone header #2": [(14, 2, "translation index"), (15, 2, "scale index"),
                       (16, 2, "rotation index"), (17, 8, "default rotation")],
    "shader parameter": [(1, 0, "parameter name"), (2, 0, "value")],
    "connections header": [(1, 4, "object connection count"), (4, 4, "proxy count"),
                           ("optional", 9, 4, "dazzle count", [])],
    "object connection": [(2, 4, "object index"), (3, 4, "bone index")],
    "proxy": [(5, 0, "proxy name"), (6, 4, "bone index"), ("optional", 7, 4, "hidden", []),
              ("optional", 8, 4, "stay hidden on damage", [])],
    "dazzle": [(0, 12, "colour"), (1, 12, "position"), (2, 4, "radius"), (3, 4, "texture x"),
               (4, 4, "texture y"), (6, 4, "texture grid size"), (5, 0, "texture"),
               (7, 4, "frequency"), (8, 4, "phase"), (9, 4, "night only"),
               (10, 4, "bone index"), (11, 0, "dazzle name"), (12, 4, "hidden"),
               ("optional", 13, 4, "bias", [])],
}

# Fixed records: the bytes a loader reads from a data chunk (more are ignored, fewer refuse).
MIN_BYTES = {0x201: 4, 0x205: 56, 0x206: 60, 0x402: 40, 0x10001: 8, 0x1302: 36}
VERTEX_BYTES = {0x10007: 144, 0x10005: 128}
MAX_SKIN_BONES = 24


@dataclass(frozen=True)
class Refusal:
    """Why the game's loader refuses a file: where (chunk path), which rule, and what."""
    path: str
    rule: str
    message: str

    def line(self, filename=None):
        where = f"{filename}: " if filename else ""
        return f"{where}{self.path or '(file)'}: game loader rule '{self.rule}': {self.message}"


class GameRefusedError(AlamoFormatError):
    """Files about to be written that the game's loaders would refuse: ``refusals`` is
    ``[(path, Refusal), ...]``; nothing was written."""

    def __init__(self, refusals):
        self.refusals = refusals
        super().__init__("the game would refuse " + "; ".join(
            f"{os.path.basename(p)}: {r.message} ({r.path or 'file'}, rule '{r.rule}')"
            for p, r in refusals))


class _Refused(Exception):
    def __init__(self, refusal):
        super().__init__(refusal.message)
        self.refusal = refusal


def _refuse(path, rule, message):
    raise _Refused(Refusal(path, rule, message))


class _Cursor:
    """The loader's ``next()`` over one container's children: each call gives the next
    child, or None at the end."""

    def __init__(self, chunk):
        self.parent = chunk
        self.children = chunk.children if chunk.children is not None else []
        self.k = 0

    def next(self):
        k = self.k
        if k >= len(self.children):
            return None
        self.k = k + 1
        return self.children[k]

    def expect(self, ctype, rule, what, container=None):
        k = self.k
        if k < len(self.children):         # the chunk the loader expects: taken at once
            c = self.children[k]
            if (c.type in ctype if type(ctype) is tuple else c.type == ctype) and (
                    container is None or (c.children is not None) == container):
                self.k = k + 1
                return c
        c = self.next()
        types = ctype if isinstance(ctype, tuple) else (ctype,)
        if c is None or c.type not in types:
            found = "the end of the chunk" if c is None else f"chunk 0x{c.type:x}"
            want = " or ".join(f"0x{t:x}" for t in types)
            _refuse(c.path if c is not None else self.parent.path, rule,
                    f"{what}: the loader expects chunk {want} here, found {found}")
        kind = "a container" if container else "a data chunk"
        _refuse(c.path, rule, f"{what}: chunk 0x{c.type:x} must be {kind}")

    def end(self, rule, what):
        c = self.next()
        if c is not None:
            _refuse(c.path, rule, f"{what}: the loader expects no more chunks here, found "
                                  f"chunk 0x{c.type:x}")


def _data(chunk, rule, what, need=None):
    if chunk.children is not None:
        _refuse(chunk.path, rule, f"{what}: chunk 0x{chunk.type:x} must be a data chunk")
    need = MIN_BYTES.get(chunk.type, 0) if need is None else need
    if len(chunk.data) < need:
        _refuse(chunk.path, rule, f"{what}: {len(chunk.data)} bytes; the loader reads {need}")
    return chunk.data


def _minis(chunk, rule_name, what, extra=()):
    """The header's values by mini type, checked against ``MINI_RULES[rule_name]`` (and
    the rules named in ``extra`` after it)."""
    _data(chunk, rule_name, what)
    try:
        minis = read_minis(chunk)
    except AlamoFormatError as e:
        _refuse(chunk.path, rule_name, f"{what}: {e.message}")
    sizes = _plan(rule_name, extra, tuple([m.type for m in minis]))
    if sizes is not None:               # types the steps take: what they give, if long enough
        values = {}
        for m, n in zip(minis, sizes):
            if len(m.data) < n:
                break
            values[m.type] = m.data
        else:
            return values
    return _stepwise(chunk, rule_name, what, extra, minis)


_PLANS = {}
_PLAN_LIMIT = 4096      # the mini sequences kept (real files have a few dozen)
_FULL = bytes(255)      # more bytes than any step reads


def _plan(rule_name, extra, types):
    """The bytes each mini must hold when the rules' steps take a header of mini ``types``,
    or None if they refuse those types (then :func:`_stepwise` says why): the steps once per
    sequence of types, however many headers have it."""
    key = (rule_name, extra, types)
    sizes = _PLANS.get(key, False)
    if sizes is False:
        sizes = []
        try:
            _stepwise(_Root([]), rule_name, "", extra, [Mini(t, _FULL) for t in types], sizes)
        except _Refused:
            sizes = None
        if len(_PLANS) < _PLAN_LIMIT:
            _PLANS[key] = sizes
    return sizes


def _stepwise(chunk, rule_name, what, extra, minis, sizes=None):
    """:func:`_minis`' steps one mini at a time (``sizes`` gets what each mini must hold)."""
    steps = _steps(rule_name, extra)        # the next step last
    values, k = {}, 0
    while steps:
        step = steps.pop()
        optional = step[0] == "optional"
        mtype, size, label = step[1:4] if optional else step
        m = minis[k] if k < len(minis) else None
        if m is None or m.type != mtype:
            if optional:
                continue
            found = "the end of the header" if m is None else f"mini-chunk {m.type}"
            _refuse(chunk.path, rule_name, f"{what}: the loader expects mini-chunk {mtype} "
                                           f"({label}) here, found {found}")
        if len(m.data) < size:
            _refuse(chunk.path, rule_name, f"{what}: mini-chunk {mtype} ({label}) holds "
                                           f"{len(m.data)} bytes; the loader reads {size}")
        values[mtype] = bytes(m.data)
        if sizes is not None:
            sizes.append(size)
        k += 1
        if optional:
            steps += step[4][::-1]
    if k < len(minis):
        _refuse(chunk.path, rule_name, f"{what}: the loader expects the header to end after "
                                       f"mini-chunk {minis[k - 1].type if k else '-'}, found "
                                       f"mini-chunk {minis[k].type}")
    return values


_STEPS = {}


def _steps(rule_name, extra):
    """The rules' steps for :func:`_minis`, last first (a stack), in a new list."""
    key = (rule_name, extra)
    if key not in _STEPS:
        steps = list(MINI_RULES[rule_name]) + [s for name in extra for s in MINI_RULES[name]]
        _STEPS[key] = steps[::-1]
    return list(_STEPS[key])


def _u32(b):
    return struct.unpack_from("<I", b)[0]


def _i32(b):
    return struct.unpack_from("<i", b)[0]


def _string(b):
    return bytes(b).split(b"\0", 1)[0].decode("latin-1")


# --- models ------------------------------------------------------------------------------

def _skeleton(cur):
    skel = cur.expect(0x200, "skeleton", "the model must start with its skeleton", True)
    sc = _Cursor(skel)
    count = _u32(_data(sc.expect(0x201, "skeleton", "skeleton header", False), "skeleton",
                       "skeleton header"))
    names = []
    for i in range(count):
        if (key := _plain_bone(sc, count, MIN_BYTES)) is not None:
            names.append(key)
            continue
        bone = sc.expect(0x202, "skeleton", f"bone {i} of {count}", True)
        bc = _Cursor(bone)
        name = _string(_data(bc.expect(0x203, "bone", f"bone {i}: name"), "bone", "name"))
        what = f"bone {i} ({name!r})"
        data = bc.expect((0x205, 0x206), "bone", f"{what}: data")
        data_bytes = _data(data, "bone", f"{what} data")
        parent = _i32(data_bytes)
        if parent >= count:
            _refuse(data.path, "bone parent", f"{what}: parent {parent} is not a bone "
                                              f"({count} bones)")
        bc.end("bone", what)
        names.append(_key(name.encode("latin-1")))
    sc.end("skeleton", f"the skeleton header says {count} bones")
    return names


def _submesh(cur, mesh, si):
    what = f"mesh {mesh!r} sub-mesh {si}"
    mat = cur.expect(0x10100, "sub-mesh", f"{what}: material", True)
    mc = _Cursor(mat)
    _data(mc.expect(0x10101, "material", f"{what}: shader name"), "material", "shader name")
    while (p := mc.next()) is not None:
        _minis(p, "shader parameter", f"{what} shader parameter")
    sub = cur.expect(0x10000, "sub-mesh", f"{what}: data", True)
    dc = _Cursor(sub)
    head = _data(dc.expect(0x10001, "sub-mesh", f"{what}: header"), "sub-mesh", f"{what} header")
    nv, nt = struct.unpack_from("<II", head)
    _data(dc.expect(0x10002, "sub-mesh", f"{what}: vertex format"), "sub-mesh", "vertex format")
    vb = dc.expect((0x10007, 0x10005), "sub-mesh", f"{what}: vertices")
    _data(vb, "vertices", f"{what}: {nv} vertices", nv * VERTEX_BYTES[vb.type])
    ib = dc.expect(0x10004, "sub-mesh", f"{what}: triangles")
    _data(ib, "triangles", f"{what}: {nt} triangles", nt * 6)
    c = dc.next()
    if c is not None and c.type == 0x10006:
        n = len(_data(c, "bone map", f"{what} bone map"))
        if n % 4 and n < 4 * MAX_SKIN_BONES:
            _refuse(c.path, "bone map", f"{what}: bone map of {n} bytes is not whole uint32s")
        c = dc.next()
    if c is not None and c.type == 0x1200:
        c = dc.next()
    if c is not None:
        _refuse(c.path, "sub-mesh", f"{what}: the loader expects no more chunks after the "
                                    f"triangles, bone map and collision tree, found chunk "
                                    f"0x{c.type:x}")


def _mesh(chunk):
    cur = _Cursor(chunk)
    name = _string(_data(cur.expect(0x401, "mesh", "mesh name"), "mesh", "mesh name"))
    info = _data(cur.expect(0x402, "mesh", f"mesh {name!r}: info"), "mesh", f"mesh {name!r} info")
    count = _u32(info)
    si = 0
    while si < count:       # runs of sub-meshes the loader takes at once, else step by step
        if not (taken := _submeshes_taken(cur, count - si, MIN_BYTES, VERTEX_BYTES, _PLANS)):
            _submesh(cur, name, si)
        si += taken or 1
    cur.end("mesh", f"mesh {name!r}: its info says {count} sub-meshes")
    return f"mesh {name!r}"


def _light(chunk):
    cur = _Cursor(chunk)
    name = _string(_data(cur.expect(0x1301, "light", "light name"), "light", "light name"))
    _data(cur.expect(0x1302, "light", f"light {name!r}: info"), "light", f"light {name!r} info")
    cur.end("light", f"light {name!r}")
    return f"light {name!r}"


def _connections(chunk, bones, objects):
    cur = _Cursor(chunk)
    head = _minis(cur.expect(0x601, "connections", "connections header"), "connections header",
                  "connections header")
    counts = [_u32(head[1]), _u32(head[4]), _u32(head.get(9, b"\0\0\0\0"))]
    k = 0
    while k < counts[0]:    # runs the loader takes at once, else one by one
        if (taken := _connections_taken(cur, counts[0] - k, len(objects), len(bones), _PLANS)):
            k += taken
            continue
        c = cur.expect(0x602, "connections", f"object connection {k} of {counts[0]}")
        m = _minis(c, "object connection", f"object connection {k}")
        obj, bone = _u32(m[2]), _u32(m[3])
        if obj >= len(objects):
            _refuse(c.path, "object connection", f"object connection {k}: object {obj} is not "
                                                 f"there ({len(objects)} meshes and lights)")
        if bone >= len(bones):
            _refuse(c.path, "object connection", f"{objects[obj]}: bone {bone} is not there "
                                                 f"({len(bones)} bones)")
        k += 1
    for k in range(counts[1]):
        c = cur.expect(0x603, "connections", f"proxy {k} of {counts[1]}")
        m = _minis(c, "proxy", f"proxy {k}")
        bone = _u32(m[6])
        if bone >= len(bones):
            _refuse(c.path, "proxy", f"proxy {_string(m[5])!r}: bone {bone} is not there "
                                     f"({len(bones)} bones)")
    for k in range(counts[2]):
        c = cur.expect(0x604, "connections", f"dazzle {k} of {counts[2]}", True)
        dc = _Cursor(c)
        m = _minis(dc.expect(0, "dazzle", f"dazzle {k}", False), "dazzle", f"dazzle {k}")
        if _u32(m[10]) >= len(bones):
            _refuse(c.path, "dazzle", f"dazzle {_string(m[11])!r}: bone {_u32(m[10])} is not "
                                      f"there ({len(bones)} bones)")
        dc.end("dazzle", f"dazzle {_string(m[11])!r}")
    cur.end("connections", "the connections header counts {} objects, {} proxies and {} "
                           "dazzles".format(*counts))


def _model(cur, found):
    bones = _skeleton(cur)
    found.append(bones)         # for the animations beside it, whatever follows
    objects = []
    while (c := cur.next()) is not None and c.type in (0x400, 0x1300) and c.is_container:
        objects.append(_mesh(c) if c.type == 0x400 else _light(c))
    if c is None or c.type != 0x600 or not c.is_container:
        found = "the end of the file" if c is None else f"chunk 0x{c.type:x}"
        _refuse(c.path if c is not None else "", "model",
                f"after meshes and lights the loader expects the connections (0x600), found "
                f"{found}")
    _connections(c, bones, objects)
    return bones


# --- animations --------------------------------------------------------------------------

def _anim_bone(chunk, version, frames, model_bones):
    cur = _Cursor(chunk)
    head = cur.expect(0x1003, "bone header", "bone header", False)
    extra = ("bone header #2",) if version == 2 else ()
    m = _minis(head, "bone header", "bone header", extra)
    name, index, key = _string(m[4]), _u32(m[5]), _key(m[4])
    what = f"bone {name!r}"
    if model_bones is not None and (index >= len(model_bones) or model_bones[index] != key):
        has = model_bones[index] if index < len(model_bones) else None
        at = model_bones.index(key) if key in model_bones else None
        _refuse(head.path, "bone matches model",
                f"{what} index {index}, but the model's bone {index} is "
                f"{'missing' if has is None else repr(has)}"
                + (f" (it has {name!r} at {at})" if at is not None else
                   f" (the model has no bone {name!r})"))
    c = cur.next()
    if version == 1:
        for ctype, width in ((0x1004, 6), (0x1005, 6), (0x1006, 8)):
            if c is not None and c.type == ctype:
                n = len(_data(c, "track", what))
                if not (ctype == 0x1006 and n == 8) and n < frames * width:
                    _refuse(c.path, "track", f"{what}: {n} bytes; {frames} frames need "
                                             f"{frames * width}")
                c = cur.next()
    if c is not None and c.type == 0x1007:
        _data(c, "visibility", f"{what} visibility", (frames + 7) // 8)
        c = cur.next()
    if c is not None and c.type == 0x1008:
        c = cur.next()
    if c is not None:
        _refuse(c.path, "bone", f"{what}: the loader expects no more chunks in a format "
                                f"#{version} bone, found chunk 0x{c.type:x}")


def _animation(cur, model_bones):
    root = cur.expect(0x1000, "animation", "an animation starts with chunk 0x1000", True)
    ac = _Cursor(root)
    m = _minis(ac.expect(0x1001, "animation header", "animation header", False),
               "animation header", "animation header")
    frames, count = _u32(m[1]), _u32(m[3])
    version = 2 if 11 in m else 1
    i = 0
    while i < count:        # runs of bones the loader takes at once, else one step by step
        if not (taken := _bones_taken(ac, count - i, version, frames, model_bones, _PLANS)):
            _anim_bone(ac.expect(0x1002, "animation", f"bone {i} of {count}", True), version,
                       frames, model_bones)
        i += taken or 1
    if version == 2:
        for mini, ctype, width, what in ((12, 0x100A, 6, "translation"),
                                         (11, 0x1009, 8, "rotation")):
            block = _u32(m[mini]) * 2 // width
            if block > 0:
                c = ac.expect(ctype, "frame blocks", f"{what} frames ({block} per frame)")
                _data(c, "frame blocks", f"{what} frames", frames * block * width)
    ac.end("animation", f"the header says {count} bones")


# --- entry points ------------------------------------------------------------------------

def game_problem(data: BytesLike, model_bones=None, roots=None) -> Refusal | None:
    """None if the game's loaders take ``data`` (a model, or an animation, checked against
    ``model_bones``, the upper-case bone names of its model, when given), else why not.
    ``roots``: the file's chunks when the caller has parsed them already."""
    return _walk(data, model_bones, roots)[1]


def _walk(data, model_bones=None, roots=None):
    """(the bones :func:`model_bones` gives, :func:`game_problem`'s refusal) from one walk of
    the chunks: the loader reads a model's skeleton first, so its bones are known even when
    it refuses something after them."""
    if roots is None:
        try:
            roots = read_chunks(data)
        except AlamoFormatError as e:
            return None, Refusal(e.path, "chunks", e.message)
    if roots and roots[0].type in PARTICLE_ROOTS:
        return None, None
    top = _Cursor(_Root(roots))
    bones = []
    try:
        if roots and roots[0].type == 0x1000:
            _animation(top, model_bones)
        else:
            _model(top, bones)
    except _Refused as e:
        return (bones[0] if bones else None), e.refusal
    return (bones[0] if bones else None), None


def model_bones(data: BytesLike, roots=None):
    """The upper-case bone names the loader reads from a model (None if it has none)."""
    try:
        roots = read_chunks(data) if roots is None else roots
        if not roots or roots[0].type != 0x200:
            return None
        return _skeleton(_Cursor(_Root(roots)))
    except (AlamoFormatError, _Refused):
        return None


def game_lines(data: BytesLike, filename=None, roots=None) -> list[Problem]:
    """``validate``'s problems for the game's loaders: [] or one error. An animation is
    checked as the viewer pairs it: against each ``<dir>/<B>.alo`` whose ``B_`` starts its
    name (any case), the longest first; it loads if it loads on one of them (a model the
    loader refuses takes no animation). The error names the model."""
    if not (filename and is_animation(data)):
        bones, refusal = _walk(data, None, roots)
        if filename and not is_particle_file(data):       # its animations ask for it next
            _keep_verdict(filename, lambda: (bones, refusal))
        return [] if refusal is None else [_refusal_problem(refusal)]
    first = None
    for model in models_beside(filename) or [None]:
        bones, broken = _model_verdict(model) if model else (None, None)
        if broken is not None:
            refusal = Refusal("", "model loads", f"its model {os.path.basename(model)} is "
                                                 f"refused by the game ({broken.message})")
        else:
            refusal = game_problem(data, bones, roots)
        if refusal is None:
            return []
        first = first or (refusal, model)
    refusal, model = first
    against = f" (checked against the model {os.path.basename(model)})" if model else ""
    return [_refusal_problem(refusal, against)]


def _refusal_problem(refusal, against=""):
    return error(f"game loader rule '{refusal.rule}': {refusal.message}{against}",
                 refusal.path or "(file)")


def _keep_verdict(model, verdict):
    try:
        remember(("model verdict",) + _stamp(model), verdict)
    except OSError:
        pass


def _model_verdict(model):
    """(the model's bones, or None; why the loader refuses the model, or None), once per
    model in a run."""
    def read():
        with open(model, "rb") as f:
            data = f.read()
        if is_particle_file(data):
            return None, Refusal("", "model", "it is a particle effect")
        return _walk(data)
    try:
        return remember(("model verdict",) + _stamp(model), read)
    except OSError:
        return None, None


def game_refusals(files) -> list[tuple[str, Refusal]]:
    """What the game would refuse of files about to be written, ``[(bytes, path), ...]``:
    ``[(path, refusal), ...]``. An animation is matched against the model written with it
    (the viewer's ``<M>_*.ala`` pairing) or else the model already beside it on disk."""
    written = {os.path.normcase(os.path.abspath(p)): d for d, p in files
               if p.lower().endswith(".alo") and not is_particle_file(d)}
    out = []
    for data, path in files:
        bones = None
        if is_animation(data):
            folder, name = os.path.split(os.path.abspath(path))
            owner = animation_owner(name, [m for m in written
                                           if os.path.dirname(m) == os.path.normcase(folder)])
            if owner is not None:
                bones = model_bones(written[owner])
            else:
                bones = _bones_of_file(model_beside(path), cache=False)
        refusal = game_problem(data, bones)
        if refusal is not None:
            out.append((path, refusal))
    return out


# Within one run (:func:`~io_alamo.formats.run_cache.run_cache`) each model's bones and each
# folder's models (:mod:`.model_pairs`) are kept by path, size and mtime: one read per model.

def _read_bones(model):
    with open(model, "rb") as f:
        return model_bones(f.read())


def _bones_of_file(model, cache=True):
    if model is None:
        return None
    try:
        if not cache:
            return _read_bones(model)
        return remember(("model bones",) + _stamp(model), lambda: _read_bones(model))
    except OSError:
        return None


def is_animation(data: BytesLike) -> bool:
    return len(data) >= 4 and struct.unpack_from("<I", data)[0] == 0x1000


class _Root:
    """The file's top-level chunks as one parent, for :class:`_Cursor`."""

    def __init__(self, roots):
        self.children = roots
        self.path = ""
