"""Which actions belong to which unit (armature).

An action belongs to the unit whose bones it animates, and to no other unit that happens to
have bones of the same names (two units in one scene often share "Root" or "Turret"):

1. an imported action belongs to the armature it was imported onto (both carry the same
   ``UNIT_KEY`` token, given at import);
2. else an action that an armature plays (its active action or one of its NLA strips)
   belongs to that armature;
3. else it belongs to the armatures that have the largest share of the bones it animates.
"""

import uuid

import bpy

from .. import compat
from ..names import to_blender
from .fingerprint import bone_of_path

UNIT_KEY = "alamo_unit"          # the same token on an armature and on its imported actions


def unit_token(armature):
    """The armature's unit token (given on first use; copies of an armature share it)."""
    token = armature.get(UNIT_KEY)
    if not isinstance(token, str):
        token = uuid.uuid4().hex
        armature[UNIT_KEY] = token
    return token


def claim(action, armature):
    """Make ``action`` the armature's (import calls it)."""
    action[UNIT_KEY] = unit_token(armature)


def _played_by(action):
    out = []
    for obj in bpy.data.objects:
        ad = obj.animation_data if obj.type == "ARMATURE" else None
        if ad is None:
            continue
        if ad.action == action or any(s.action == action for t in ad.nla_tracks
                                      for s in t.strips):
            out.append(obj)
    return out


def _bones_animated(action):
    return {bone_of_path(fc.data_path)[0] for fc in compat.action_fcurves(action)} - {None}


def owners(action, armatures=None):
    """The armatures ``action`` belongs to."""
    armatures = [o for o in (armatures if armatures is not None else bpy.data.objects)
                 if o.type == "ARMATURE"]
    token = action.get(UNIT_KEY)
    if isinstance(token, str):
        mine = [a for a in armatures if a.get(UNIT_KEY) == token]
        if mine:
            return mine
    played = [a for a in _played_by(action) if a in armatures]
    if played:
        return played
    animated = _bones_animated(action)
    if not animated:
        return []
    share = {a: len(animated & {b.name for b in a.data.bones}) for a in armatures}
    best = max(share.values(), default=0)
    return [a for a, n in share.items() if n == best and n > 0]


def unit_actions(armature):
    """The actions that belong to ``armature``, the active one first, then by name."""
    armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    if armature not in armatures:
        armatures.append(armature)
    names = {b.name for b in armature.data.bones}
    out = [a for a in bpy.data.actions
           if _bones_animated(a) & names and armature in owners(a, armatures)]
    active = armature.animation_data.action if armature.animation_data else None
    out.sort(key=lambda a: (a is not active, a.name))
    return out


def match_bones(armature, anim):
    """Armature bone for each animated bone: by index when the names agree (ignoring case),
    otherwise by name; None where there is none."""
    bones = list(armature.data.bones)
    by_index = {b.alamo.index: b for b in bones if b.alamo.index >= 0}
    by_name = {}
    for b in bones:
        for key in {(b.alamo.name or b.name).lower(), b.name.lower()}:
            by_name.setdefault(key, []).append(b)
    used, out = set(), []
    for ab in anim.bones:
        name = to_blender(ab.name).lower()
        cand = by_index.get(ab.index)
        if cand is None or (cand.alamo.name or cand.name).lower() != name or cand.name in used:
            cand = next((b for b in by_name.get(name, []) if b.name not in used), None)
        if cand is not None:
            used.add(cand.name)
        out.append(cand)
    return out
