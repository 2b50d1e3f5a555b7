"""Short cuts of the game's loader rules (:mod:`.game_rules`) over runs of sibling chunks.

The rules walk a file one chunk at a time, with a cursor, a check and a message per chunk.
Most of a real file is long runs of chunks the loader takes as they are (the bones of an
animation). The functions here take such a run at once and stop at the first chunk they are
not sure of: the step-by-step rules then look at it and say what is wrong. They only ever
answer "the steps would find nothing here" (no refusal, the same values), never refuse.
"""

import struct

_U32 = struct.Struct("<I")
# a format #1 bone's tracks after its header, in order, each optional: (type, bytes a frame)
_V1_TRACKS = ((0x1004, 6), (0x1005, 6), (0x1006, 8))


def loader_key(b):
    """A name as the loader compares it: up to its NUL, upper-cased the C way (ASCII only)."""
    return bytes(b).split(b"\0", 1)[0].upper().decode("latin-1")


def anim_bones_taken(cur, n, version, frames, model_bones, plans):
    """How many of the next ``n`` bones (0x1002) of an animation's cursor ``cur`` the
    loader takes as they are; the cursor moves past them. A bone is taken when its header
    was parsed already and has a sequence of mini types whose steps are in ``plans`` (the
    rules' ``_PLANS``: the bytes each mini must hold), its index names the bone of that
    name in ``model_bones`` (when given), and its tracks are long enough for ``frames``."""
    bones, k0 = cur.children, cur.k
    end = min(len(bones), k0 + n)
    plan = ("bone header", ("bone header #2",) if version == 2 else ())
    k = k0
    while k < end:
        kids = bones[k].children
        if bones[k].type != 0x1002 or not kids:
            break
        head = kids[0]
        parsed = head.parsed
        if head.type != 0x1003 or head.children is not None or parsed is None or (
                parsed[0] is not head.data):
            break
        minis = parsed[1]
        sizes = plans.get((*plan, tuple([m.type for m in minis])))
        if not sizes or not all(len(m.data) >= s for m, s in zip(minis, sizes)):
            break
        if model_bones is not None:     # minis 4 (name) and 5 (index) lead every plan
            index = _U32.unpack_from(minis[1].data)[0]
            if index >= len(model_bones) or model_bones[index] != loader_key(minis[0].data):
                break
        if not _tracks_taken(kids, version, frames):
            break
        k += 1
    cur.k = k
    return k - k0


def _tracks_taken(kids, version, frames):
    """Whether a bone's chunks after its header are the tracks (format #1), visibility and
    0x1008 the loader reads, in order, each long enough, and nothing more."""
    j, nk = 1, len(kids)
    if version == 1:
        for ctype, width in _V1_TRACKS:
            if j < nk and kids[j].type == ctype:
                if kids[j].children is not None:
                    return False
                size = len(kids[j].data)
                if size < frames * width and not (ctype == 0x1006 and size == 8):
                    return False
                j += 1
    if j < nk and kids[j].type == 0x1007:
        if kids[j].children is not None or len(kids[j].data) < (frames + 7) // 8:
            return False
        j += 1
    if j < nk and kids[j].type == 0x1008:
        j += 1
    return j == nk


def plain_bone(sc, count, min_bytes):
    """The next skeleton bone's name as the loader compares it, taken at once when the bone
    is what the loader reads (its name, then its data of ``min_bytes`` with a parent below
    ``count``, nothing more); else None, and the rules look at it step by step."""
    if sc.k >= len(sc.children):
        return None
    bone = sc.children[sc.k]
    kids = bone.children
    if bone.type != 0x202 or kids is None or len(kids) != 2:
        return None
    name, data = kids
    if (name.type != 0x203 or name.children is not None or data.type not in (0x205, 0x206)
            or data.children is not None or len(data.data) < min_bytes[data.type]
            or struct.unpack_from("<i", data.data)[0] >= count):
        return None
    sc.k += 1
    return loader_key(name.data)


def submeshes_taken(cur, n, min_bytes, vertex_bytes, plans):
    """How many of a mesh's next ``n`` sub-meshes (a material 0x10100, then its data
    0x10000) the loader takes as they are; the cursor moves past them. ``min_bytes``,
    ``vertex_bytes``, ``plans``: the rules' fixed record sizes, vertex sizes and mini plans."""
    kids, k0 = cur.children, cur.k
    k, end = k0, min(len(kids), k0 + 2 * n)
    while k + 1 < end:
        mat, sub = kids[k].children, kids[k + 1].children
        if kids[k].type != 0x10100 or kids[k + 1].type != 0x10000 or not mat or not sub or (
                not _material_taken(mat, min_bytes, plans)) or (
                not _data_taken(sub, min_bytes, vertex_bytes)):
            break
        k += 2
    cur.k = k
    return (k - k0) // 2


def _material_taken(mat, min_bytes, plans):
    """Whether a material is its shader name, then shader parameters of parsed minis."""
    if mat[0].type != 0x10101 or mat[0].children is not None or len(mat[0].data) < (
            min_bytes.get(0x10101, 0)):
        return False
    for p in mat[1:]:
        parsed = p.parsed
        if p.children is not None or parsed is None or parsed[0] is not p.data or len(
                p.data) < min_bytes.get(p.type, 0):
            return False
        sizes = plans.get(("shader parameter", (), tuple([m.type for m in parsed[1]])))
        if not sizes or not all(len(m.data) >= s for m, s in zip(parsed[1], sizes)):
            return False
    return True


def _data_taken(sub, min_bytes, vertex_bytes):
    """Whether a sub-mesh's data is its header, vertex format, vertices and triangles as
    long as the header says, then an optional bone map of whole uint32s (or of 24 or more)
    and collision tree, nothing more."""
    if len(sub) < 4:
        return False
    head, fmt, vb, ib = sub[:4]
    if (head.type != 0x10001 or head.children is not None or fmt.type != 0x10002
            or fmt.children is not None or vb.type not in vertex_bytes or vb.children is not None
            or ib.type != 0x10004 or ib.children is not None
            or len(head.data) < min_bytes.get(0x10001, 0)
            or len(fmt.data) < min_bytes.get(0x10002, 0)):
        return False
    nv, nt = struct.unpack_from("<II", head.data)
    if len(vb.data) < nv * vertex_bytes[vb.type] or len(ib.data) < nt * 6:
        return False
    j = 4
    if j < len(sub) and sub[j].type == 0x10006:
        if sub[j].children is not None or len(sub[j].data) < min_bytes.get(0x10006, 0):
            return False
        size = len(sub[j].data)
        if size % 4 and size < 4 * 24:
            return False
        j += 1
    if j < len(sub) and sub[j].type == 0x1200:
        j += 1
    return j == len(sub)


def connections_taken(cur, n, objects, bones, plans):
    """How many of the next ``n`` object connections (0x602) of the connections' cursor
    ``cur`` the loader takes as they are; the cursor moves past them. A connection is taken
    when its header was parsed already, has the mini types the rules' steps took (``plans``)
    with the bytes they read, and names an object below ``objects`` and a bone below
    ``bones``."""
    kids, k0 = cur.children, cur.k
    k, end = k0, min(len(kids), k0 + n)
    while k < end:
        c = kids[k]
        parsed = c.parsed
        if c.type != 0x602 or c.children is not None or parsed is None or (
                parsed[0] is not c.data):
            break
        minis = parsed[1]
        sizes = plans.get(("object connection", (), tuple([m.type for m in minis])))
        if not sizes or not all(len(m.data) >= s for m, s in zip(minis, sizes)) or (
                _U32.unpack_from(minis[0].data)[0] >= objects) or (
                _U32.unpack_from(minis[1].data)[0] >= bones):    # minis 2 (object), 3 (bone)
            break
        k += 1
    cur.k = k
    return k - k0
