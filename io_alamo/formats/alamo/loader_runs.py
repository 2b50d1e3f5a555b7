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
            if index >= len(model_bones) or model_bones[index] != bytes(
                    minis[0].data).split(b"\0", 1)[0].upper().decode("latin-1"):
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
