"""Alamo naming conventions, Blender-free: LOD and ALT suffixes, vertex format features."""

import re

_LOD = re.compile(r"_LOD(\d+)", re.IGNORECASE)
_ALT = re.compile(r"_ALT(\d+)", re.IGNORECASE)


def lod_alt(name):
    """(base name, LOD number or None, ALT number or None) of a mesh or proxy name."""
    lod = _LOD.search(name)
    alt = _ALT.search(name)
    base = _ALT.sub("", _LOD.sub("", name))
    return base, int(lod.group(1)) if lod else None, int(alt.group(1)) if alt else None


def default_visibility(names):
    """Which names are shown by default: the highest LOD of each base name, and ALT0. The
    ALT is the unit's damage state, one for the whole model, and the game starts at ALT0: a
    name with ALT1 and no ALT0 (a ``p_fire_ALT1`` proxy, damage smoke) waits for ALT1, as
    the LOD/ALT panel shows it. Names without suffixes are always shown."""
    parsed = [lod_alt(n) for n in names]
    best_lod = {}
    for base, lod, _ in parsed:
        if lod is not None:
            best_lod[base] = max(best_lod.get(base, lod), lod)
    return [(lod is None or lod == best_lod[base]) and (alt is None or alt == 0)
            for base, lod, alt in parsed]


def format_has_colors(vertex_format):
    """Vertex formats ending in C carry a colour (alD3dVertNU2C, alD3dVertB4I4NU2U3U3C...)."""
    return vertex_format.rstrip().endswith("C")


def format_has_tangents(vertex_format):
    return "U3U3" in vertex_format


def format_is_b4i4(vertex_format):
    """B4I4 formats use four bone indices and weights per vertex."""
    return "B4I4" in vertex_format.upper()


def animation_owner(animation_name, model_names):
    """The model an ``<MODEL>_*.ala`` file belongs to: of the model names (file names or
    stems) that prefix it followed by ``_``, ignoring case, the longest; None if none does.
    ``A_Blue_IDLE_00.ala`` belongs to ``A_Blue.alo``, not ``A.alo``, when both exist."""
    owners = animation_owners(animation_name, model_names)
    return owners[0] if owners else None


def animation_owners(animation_name, model_names):
    """Every model name that prefixes ``animation_name`` followed by ``_`` (any case), the
    longest first: the models the viewer tries an animation on, in its order."""
    return indexed_owners(animation_name, owner_index(model_names))


def owner_index(model_names):
    """The model names by lower-case stem, {stem: [(place in ``model_names``, name)]}: made
    once for a folder, :func:`indexed_owners` looks an animation's owners up by its own
    ``_`` prefixes instead of comparing it with every model."""
    out = {}
    for k, m in enumerate(model_names):
        out.setdefault(_stem(m).lower(), []).append((k, m))
    return out


def indexed_owners(animation_name, index):
    """:func:`animation_owners` from an :func:`owner_index`: the models whose stem, followed
    by ``_``, starts the animation's (any case), in their listing order, then the longest
    first (lower-casing may change a stem's length: İ -> i̇)."""
    stem = _stem(animation_name).lower()
    found = sorted(hit for i, c in enumerate(stem) if c == "_" for hit in index.get(stem[:i], ()))
    return sorted((m for _, m in found), key=lambda m: -len(_stem(m)))


def model_animation_names(model_name, folder_names):
    """(the model's own animations, {animation: the other model it belongs to}) among the file
    names of a folder: the ``.ala`` files ``model_name`` prefixes, each given to the model with
    the longest name that prefixes it (other ``.alo`` files of the folder compete). Sorted
    case-insensitively."""
    models = [n for n in folder_names if n.lower().endswith(".alo")]
    if _stem(model_name).lower() not in {_stem(m).lower() for m in models}:
        models.append(model_name)
    prefix = _stem(model_name).lower() + "_"
    mine, left = [], {}
    for name in sorted(folder_names, key=str.lower):
        if not (name.lower().endswith(".ala") and name.lower().startswith(prefix)):
            continue
        owner = animation_owner(name, models)
        if _stem(owner).lower() == _stem(model_name).lower():     # the file system's case
            mine.append(name)
        else:
            left[name] = owner
    return mine, left


def _stem(name):
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-4] if base.lower().endswith((".alo", ".ala")) else base
