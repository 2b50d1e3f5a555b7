"""What the game's particle loader demands of a particle effect, checked on the chunk tree.

The public statement of those rules is the alo-viewer's particle-system loader
(``ParticleSystem.cpp``: ``ReadFormat_V1`` for Empire at War / Forces of Corruption, root
``0x900``; ``ReadFormat_V2`` for Universe at War, root ``0x1500``; its ``Verify()`` checks and
the reads between them). As for models (:mod:`..game_rules`), the order the loader reads is
stated here as data and a file's chunks are walked with it, so that ``validate``, every
particle write and the tests refuse what the loader refuses.

:func:`particle_problems` gives the problems with their severity: an *error* for what the
loader refuses (or what would crash it), a *note* for the editors' chunk ``0x100`` (the
viewer refuses it; the game's chunk reader skips unknown chunks in release builds, see
FORMAT-NOTES), *warnings* for values it takes but draws wrong.
"""

import struct

from ...errors import AlamoFormatError
from ...problems import Problem, error, note, warning
from ..chunks import MAX_MINIS, read_chunks, read_minis
from ..game_rules import Refusal, _Cursor, _data, _Refused, _refuse, _Root
from ..sniff import is_particle_file

__all__ = ["EMITTER_V1", "PLUGINS", "PROPERTY_BYTES", "SLOTS", "particle_problems",
           "particle_refusal", "particle_refusals", "viewer_refuses"]

# --- the rules as data -----------------------------------------------------------------

# Property mini-chunks of a V1 emitter's 0x02 and the bytes the loader reads from each
# (``OldEmitter::ReadProperties``): any other mini type is refused ("thrown directly").
_READS = {"int": 4, "byte": 1, "float": 4, "vector": 12, "colour": 16, "skip": 0}
PROPERTY_BYTES = {mini: _READS[kind] for mini, kind in {
    0x04: "int", 0x05: "int", 0x07: "byte", 0x08: "byte", 0x09: "float", 0x0A: "vector",
    0x0B: "float", 0x0C: "float", 0x0F: "float", 0x10: "int", 0x12: "float", 0x13: "float",
    0x14: "int", 0x17: "float", 0x23: "byte", 0x24: "float", 0x25: "float", 0x26: "int",
    0x27: "int", 0x28: "float", 0x2A: "int", 0x2C: "colour", 0x2D: "byte", 0x2E: "byte",
    0x2F: "int", 0x30: "float", 0x31: "byte", 0x32: "float", 0x33: "float", 0x34: "int",
    0x35: "byte", 0x3B: "byte", 0x3C: "float", 0x3D: "byte", 0x3E: "float", 0x40: "float",
    0x41: "byte", 0x42: "float", 0x43: "byte", 0x46: "byte", 0x47: "float", 0x48: "byte",
    0x2B: "skip", 0x06: "skip", 0x11: "skip", 0x15: "skip", 0x3F: "skip", 0x44: "skip",
    0x49: "skip"}.items()}

# A V1 emitter's chunks in the order the loader reads them: (type, what, container?,
# optional?). After them the emitter must end; 0x100 (the editors' link group) is a note.
EMITTER_V1 = ((0x02, "properties", False, False), (0x03, "texture", False, False),
              (0x16, "name", False, False), (0x29, "groups", True, False),
              (0x01, "tracks", True, False), (0x36, "links", False, True),
              (0x45, "secondary texture", False, True))
GROUPS, GROUP_BYTES = 3, 64
# tracks: 4 colour channels (header minis 2, 3 of one byte, keys' values 0..255), then
# size, texture index, rotation speed (header minis of 4-byte floats)
TRACKS = (("red", 1), ("green", 1), ("blue", 1), ("alpha", 1), ("size", 4), ("index", 4),
          ("rotation speed", 4))
LINKS = ((0x37, "death emitter"), (0x39, "birth emitter"))
BLEND_MODES = 14
LIGHT_FIELD_BYTES = 62      # ReadLightFieldSource: 11 floats, 3-vectors, 2 bytes, an int

# V2 plugins by numeric id (``Emitter::ReadPlugin``): the slot each id is a plugin of;
# an id in another slot (or unknown, as 6: the terrain creator) is refused.
SLOTS = {1: "creator", 2: "translater", 3: "killer", 4: "renderer", 5: "modifier"}
_C, _T, _K, _R, _M = 1, 2, 3, 4, 5
PLUGINS = dict(enumerate(
    (_C, _C, _C, _C, _C, _C, None, _M, _M, _M, _M, _M, _M, _M, _M, _M, _M, _M, _M, _K, _K, _K,
     _R, _R, _R, _R, _T, _T, _R, _R, _M, _M, _M, _M, _C, _C, _R, _R, _R, _C, _C, _M, _M, _C,
     _K, _M, _M, _R, _M, _M, _C, _M, _R, _M, _M, _M, _M, _M, _M, _M, _C, _R, _K)))


# --- EaW/FoC (0x900) -------------------------------------------------------------------

def _minis(chunk, rule, what):
    _data(chunk, rule, what)
    try:
        return read_minis(chunk)
    except AlamoFormatError as e:
        _refuse(chunk.path, rule, f"{what}: {e.message}")


def _properties(chunk, who):
    for m in _minis(chunk, "properties", f"{who} properties"):
        need = PROPERTY_BYTES.get(m.type)
        if need is None:
            _refuse(chunk.path, "properties", f"{who}: property mini-chunk 0x{m.type:x} is "
                                              "none the loader knows")
        if len(m.data) < need:
            _refuse(chunk.path, "properties", f"{who}: property mini-chunk 0x{m.type:x} "
                                              f"holds {len(m.data)} bytes; the loader reads "
                                              f"{need}")


def _groups(chunk, who):
    cur = _Cursor(chunk)
    for g in range(GROUPS):
        gc = _Cursor(cur.expect(0x1100, "groups", f"{who}: group {g}", True))
        _data(gc.expect(0x1101, "groups", f"{who}: group {g} data"), "groups",
              f"{who}: group {g}", GROUP_BYTES)
        gc.end("groups", f"{who}: group {g}")
    cur.end("groups", f"{who}: the loader reads {GROUPS} groups")


def _tracks(chunk, who):
    cur = _Cursor(chunk)
    for name, width in TRACKS:
        what = f"{who}: {name} track"
        head = cur.expect(0x00, "tracks", f"{what} header", False)
        minis = _minis(head, "tracks", f"{what} header")
        for k, (mtype, size) in enumerate(((2, width), (3, width), (4, 4))):
            if k >= len(minis) or minis[k].type != mtype or len(minis[k].data) < size:
                _refuse(head.path, "tracks", f"{what} header: the loader expects mini-chunk "
                                             f"{mtype} of {size} bytes here")
        if len(minis) > 3:
            _refuse(head.path, "tracks", f"{what} header: the loader expects it to end after "
                                         "mini-chunk 4")
        keys = cur.expect(0x01, "tracks", f"{what} keys", False)
        if not _keys_taken(keys, width == 1):
            _keys(keys, _minis(keys, "tracks", f"{what} keys"), what, width == 1)
    cur.end("tracks", f"{who}: the loader reads {len(TRACKS)} tracks")


_KEY_RUNS = {True: struct.Struct("<BBIf"), False: struct.Struct("<BBff")}


def _keys_taken(chunk, colour):
    """Whether a keys chunk is a run of key minis of 8 bytes each that :func:`_keys` takes,
    read straight from its bytes (no mini-chunk records) and counted in the file's mini
    budget as :func:`read_minis` counts them. False: the minis are read and looked at one
    by one (a chunk already read, an odd mini, a key out of order, a budget overrun)."""
    data, budget = chunk.data, chunk.budget
    n, rest = divmod(len(data), 10)
    if rest or chunk.parsed is not None or (budget is not None
                                            and budget.minis + n > MAX_MINIS):
        return False
    last = 0.0
    for mtype, size, value, time in _KEY_RUNS[colour].iter_unpack(data):
        if mtype != 5 or size != 8 or not (time <= 1.0 and time >= last
                                           and (not colour or value <= 255)):
            return False
        last = time
    if budget is not None:
        budget.minis += n
    return True


def _keys(chunk, minis, what, colour):
    last = 0.0
    for k, m in enumerate(minis):
        if m.type != 5 or len(m.data) < 8:
            _refuse(chunk.path, "track keys", f"{what}: key {k} is not a mini-chunk 5 of 8 "
                                              "bytes")
        value, time = struct.unpack_from("<If" if colour else "<ff", m.data)
        ok = time <= 1.0 and time >= last and (not colour or value <= 255)
        if not ok:       # NaN fails every comparison, as in the loader
            _refuse(chunk.path, "track keys",
                    f"{what}: key {k} at time {time:g}" + (f" value {value}" if colour else "")
                    + f"; the loader needs times from {last:g} up to 1 in order"
                    + (" and values 0..255" if colour else ""))
        last = time


def _emitter_v1(chunk, index, count, found):
    cur = _Cursor(chunk)
    who = f"emitter {index}"
    for ctype, what, container, optional in EMITTER_V1:
        c = cur.next()
        if optional and (c is None or c.type != ctype):
            cur.k -= c is not None
            continue
        if c is None or c.type != ctype or c.is_container != container:
            found_ = "the end of the emitter" if c is None else f"chunk 0x{c.type:x}"
            _refuse(c.path if c is not None else chunk.path, "emitter",
                    f"{who}: the loader expects its {what} (0x{ctype:x}) here, found {found_}")
        if ctype == 0x02:
            _properties(c, who)
        elif ctype == 0x16:
            who = f"emitter {index} ({_text(c.data)!r})"
        elif ctype == 0x29:
            _groups(c, who)
        elif ctype == 0x01:
            _tracks(c, who)
        elif ctype == 0x36:
            _links(c, who, count, found)
    rest = cur.next()
    if rest is not None and rest.type == 0x100 and not rest.is_container:
        found.append(_editor_note(rest, "link group"))
        rest = cur.next()
    if rest is not None:
        _refuse(rest.path, "emitter", f"{who}: the loader expects no more chunks, found "
                                      f"chunk 0x{rest.type:x}")
    return who


def _links(chunk, who, count, found):
    minis = _minis(chunk, "links", f"{who} links")
    for k, (mtype, what) in enumerate(LINKS):
        if k >= len(minis) or minis[k].type != mtype or len(minis[k].data) < 4:
            _refuse(chunk.path, "links", f"{who} links: the loader expects mini-chunk "
                                         f"0x{mtype:x} ({what}, 4 bytes) here")
        value = struct.unpack_from("<i", minis[k].data)[0]
        if value < -1 or value > 0xFFFF:
            _refuse(chunk.path, "links", f"{who}: {what} {value} would crash the loader "
                                         "(it sizes a list by it; -1 is none)")
        if value >= count:
            found.append(warning(f"{who}: {what} {value} does not exist ({count} emitters): "
                                 "nothing is spawned", chunk.path))
    if len(minis) > 2:
        _refuse(chunk.path, "links", f"{who} links: the loader expects them to end after "
                                     "mini-chunk 0x39")


def _v1(root, found):
    cur = _Cursor(root)
    _data(cur.expect(0x0, "system", "the system's name", False), "system", "name")
    ident = cur.expect(0x1, "system", "the system's id", False)
    if len(ident.data) != 4:
        _refuse(ident.path, "system", f"the system's id chunk holds {len(ident.data)} bytes; "
                                      "the loader needs exactly 4")
    emitters = cur.expect(0x800, "system", "the emitter list", True)
    ec = _Cursor(emitters)
    count = sum(1 for c in emitters.children if c.type == 0x700)
    for k, c in enumerate(emitters.children):
        if c.type != 0x700 or not c.is_container:
            _refuse(c.path, "system", f"the emitter list holds chunk 0x{c.type:x}; the loader "
                                      "expects only emitters (0x700)")
        _emitter_v1(ec.next(), k, count, found)
    c = cur.next()
    if c is not None and c.type == 0x3 and not c.is_container:
        found.append(_editor_note(c, "system data"))
        c = cur.next()
    if c is not None and c.type == 0x2:
        if c.is_container or len(c.data) != 1:
            _refuse(c.path, "system", "the persistence chunk 0x2 must hold exactly 1 byte")
        c = cur.next()
    if c is not None:
        _refuse(c.path, "system", f"the loader expects the system to end after the emitters "
                                  f"and persistence, found chunk 0x{c.type:x}")


EDITOR_NOTE = "the particle editors' {} chunk 0x{:x}: the game skips it, the alo-viewer " \
              "refuses the file"


def _editor_note(chunk, what):
    """A note for a chunk the particle editors write that no loader reads (FORMAT-NOTES):
    the game's chunk reader skips it, the viewer's refuses the file."""
    return note(EDITOR_NOTE.format(what, chunk.type), chunk.path)


def viewer_refuses(data=None, roots=None) -> bool:
    """Whether the alo-viewer's loader refuses the effect: the game's rules, and the
    editors' chunks it does not skip."""
    refusal, found = particle_refusal(data, roots)
    return refusal is not None or any(p.message.startswith("the particle editors' ")
                                      for p in found)


def _text(data):
    return bytes(data).split(b"\0", 1)[0].decode("latin-1")


# --- Universe at War (0x1500) ----------------------------------------------------------

def _plugin(chunk, slot, who):
    cur = _Cursor(chunk)
    what = f"{who}: {SLOTS[slot]} plugin"
    ident = _data(cur.expect(0, "plugin", f"{what} id"), "plugin", f"{what} id", 4)
    pid = struct.unpack_from("<I", ident)[0]
    body = cur.expect(1, "plugin", f"{what} body", True)
    if PLUGINS.get(pid) != slot:
        kind = "unknown to the loader" if pid not in PLUGINS or PLUGINS[pid] is None else \
            f"a {SLOTS[PLUGINS[pid]]} plugin"
        _refuse(ident_path(chunk), "plugin", f"{what}: plugin id {pid} is {kind}")
    bc = _Cursor(body)
    params = bc.expect(0, "plugin", f"{what} parameters")
    if params.is_container:
        pc = _Cursor(params)
        while (p := pc.next()) is not None:
            if p.type != 0:
                _refuse(p.path, "plugin", f"{what}: the loader expects parameter ids (chunk 0) "
                                          f"here, found chunk 0x{p.type:x}")
            _data(p, "plugin", f"{what} parameter id", 4)
            pc.expect(1, "plugin", f"{what} parameter value")
    bc.end("plugin", what)
    cur.end("plugin", what)


def ident_path(chunk):
    return chunk.children[0].path if chunk.children else chunk.path


def _emitter_v2(chunk, index):
    cur = _Cursor(chunk)
    name = _text(_data(cur.expect(0, "emitter", f"emitter {index}: name", False), "emitter",
                       "name"))
    who = f"emitter {index} ({name!r})"
    for slot in (1, 2, 3, 4):
        _plugin(cur.expect(slot, "emitter", f"{who}: {SLOTS[slot]}", True), slot, who)
    while (c := cur.next()) is not None:
        if c.type != 5 or not c.is_container:
            _refuse(c.path, "emitter", f"{who}: the loader expects modifiers (chunk 5) or the "
                                       f"end here, found chunk 0x{c.type:x}")
        _plugin(c, 5, who)


def _v2(root, found):
    cur = _Cursor(root)
    _data(cur.expect(0, "system", "the system's name", False), "system", "name")
    c = cur.next()
    if c is not None and c.type == 1:
        c = cur.next()
        if c is not None and c.type == 2:
            c = cur.next()
    if c is None or c.type != 0x1520 or not c.is_container:
        _refuse(c.path if c is not None else root.path, "system",
                "the loader expects the emitter list (0x1520) here")
    for k, e in enumerate(c.children):
        if e.type != 0x1540 or not e.is_container:
            _refuse(e.path, "system", f"the emitter list holds chunk 0x{e.type:x}; the loader "
                                      "expects only emitters (0x1540)")
        _emitter_v2(e, k)
    c = cur.next()
    if c is not None and c.type == 3:
        _data(c, "light field", "light field source", LIGHT_FIELD_BYTES)
        c = cur.next()
    if c is not None:
        _refuse(c.path, "system", f"the loader expects the system to end after the emitters "
                                  f"and the light field, found chunk 0x{c.type:x}")


# --- entry points ----------------------------------------------------------------------

def particle_refusal(data=None, roots=None) -> tuple[Refusal | None, list[Problem]]:
    """(why the loader refuses the effect or None, the other problems it meets on the way:
    notes and warnings)."""
    found = []
    if roots is None:
        try:
            roots = read_chunks(data)
        except AlamoFormatError as e:
            return Refusal(e.path, "chunks", e.message), found
    top = _Cursor(_Root(roots))
    try:
        root = top.expect((0x900, 0x1500), "system", "a particle effect starts with chunk "
                                                     "0x900 or 0x1500", True)
        (_v1 if root.type == 0x900 else _v2)(root, found)
    except _Refused as e:
        return e.refusal, found
    return None, found


def particle_refusals(files) -> list[tuple[str, Refusal]]:
    """What the game's particle loader refuses of files about to be written,
    ``[(bytes, path), ...]``: ``[(path, refusal), ...]`` (models and animations: none)."""
    out = []
    for data, path in files:
        if is_particle_file(data):
            refusal = particle_refusal(data)[0]
            if refusal is not None:
                out.append((path, refusal))
    return out


def particle_problems(data=None, roots=None) -> list[Problem]:
    """The loader's verdict as problems: an error if it refuses the effect, then notes and
    warnings."""
    refusal, found = particle_refusal(data, roots)
    if refusal is not None:
        found.insert(0, error(f"game loader rule '{refusal.rule}': {refusal.message}",
                              refusal.path or "(file)"))
    return found
