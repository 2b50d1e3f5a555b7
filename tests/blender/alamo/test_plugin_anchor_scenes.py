"""The real scenes of ../shared/anchor-scenes (made by importing ../shared/corpus models with
the older ALAMO plugin): exported as they are and after conversion, then compared field by
field with the original .alo, both read by the format layer."""

from pathlib import Path

import numpy as np
import pytest
from plugin_compare import FIELDS, INFO_FIELDS, compare

from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, build_animation
from io_alamo.blender.alamo.exporter.alo import ExportError, AloExportOptions, export_alo
from io_alamo.blender.alamo.legacy.convert import convert_scene
from io_alamo.formats.alamo import decode_animation, read_ala, read_alo

bpy = pytest.importorskip("bpy")

SHARED = Path(__file__).resolve().parents[4] / "shared"
ANCHORS = SHARED / "anchor-scenes"
CORPUS = SHARED / "corpus"
OPEN_SHADOW = "shadow mesh is not closed and manifold"


def original_of(blend):
    stem = blend.stem.removesuffix("_anims").lower()
    found = [p for p in CORPUS.iterdir() if p.suffix.lower() == ".alo"
             and p.stem.lower() == stem] if CORPUS.is_dir() else []
    return found[0] if found else None


def anchor_params():
    if not ANCHORS.is_dir() or not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no {ANCHORS} or {CORPUS}: anchor-scene tests skipped"))]
    return [pytest.param(p, id=p.name) for p in sorted(ANCHORS.glob("*.blend"))]


def open_edges(obj):
    """Edges of the mesh not shared by exactly two faces."""
    me = obj.data
    edges = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("edge_index", edges)
    return int((np.bincount(edges, minlength=len(me.edges)) != 2).sum())


def export_and_read(path):
    """The exported model read back, and the names of meshes left out: the plugin merged
    the vertices of some shadow meshes into shapes that are no longer closed (edges of 3 or
    4 faces), which the export refuses with a clear error; the rest is then exported
    without them (removed from the opened file)."""
    context = bpy.context
    try:
        export_alo(context, str(path), AloExportOptions())
        return read_alo(path.read_bytes()), []
    except ExportError as e:
        assert all(OPEN_SHADOW in text for text in e.problems), e.problems
        broken = list(e.objects)
        assert broken and all(open_edges(o) > 0 for o in broken)
    names = [o.name for o in broken]
    for o in broken:
        bpy.data.objects.remove(o)
    export_alo(context, str(path), AloExportOptions())
    return read_alo(path.read_bytes()), names


@pytest.mark.parametrize("mode", ["as is", "converted"])
@pytest.mark.parametrize("blend", anchor_params())
def test_anchor_scene_matches_original(blender, blend, mode, tmp_path):
    original_path = original_of(blend)
    if original_path is None:
        pytest.skip(f"no original .alo for {blend.name} in {CORPUS}")
    bpy.ops.wm.open_mainfile(filepath=str(blend))       # saved by Blender 4.5
    if mode == "converted":
        report = convert_scene(bpy.context)
        assert report.mapped["armatures"] == 1 and report.mapped["meshes"] > 0
    exported, skipped = export_and_read(tmp_path / "out.alo")
    original = read_alo(original_path.read_bytes())
    figures = compare(original, exported, skipped)
    print(f"\n{blend.name} [{mode}] skipped={skipped}: " + "; ".join(
        f"{f} {n}/{t}" for f, (n, t, _) in figures.items()))
    for field in FIELDS:
        n, total, diffs = figures[field]
        assert n == total, f"{field}: {diffs[:5]}"
    assert figures["mesh bone"][1] + len(skipped) == len(original.meshes)
    for field in INFO_FIELDS:
        assert figures[field][1] > 0 or not original.meshes


def anims_params():
    return [p for p in anchor_params() if p.values[0] is None or "_anims" in p.values[0].stem]


def _occurrences(names):
    """(name, k) for the k-th bone of that name: duplicates told apart by their order."""
    seen = {}
    out = []
    for n in names:
        out.append((n, seen.get(n, 0)))
        seen[n] = seen.get(n, 0) + 1
    return out


@pytest.mark.parametrize("blend", anims_params())
def test_anchor_animation_after_conversion(blender, blend):
    """Frame count from AnimationEndFrame, and the plugin's animated proxy visibility
    (proxyIsHiddenAnimation) as the .ala visibility track, against the original .ala."""
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    convert_scene(bpy.context)
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    model = original_of(blend).stem.lower()
    for action in bpy.data.actions:
        path = next(p for p in CORPUS.iterdir() if p.suffix.lower() == ".ala"
                    and p.stem.lower() == f"{model}_{action.name}".lower())
        original = decode_animation(read_ala(path.read_bytes()))
        built = build_animation(bpy.context, arm, action, AlaExportOptions())
        exported = decode_animation(built.animation)
        assert built.frames == original.visible.shape[1] == action.alamo.frames
        mine = dict(zip(_occurrences(exported.names), exported.visible))
        # a converted action has no file behind it: the export writes the bones that move or
        # whose visibility is keyed (issue 14); a bone written must match the original, and
        # every bone the original hides at some frame must be written
        checked = 0
        for key, visible in zip(_occurrences(original.names), original.visible):
            if key not in mine:
                assert visible.all(), f"{key} is hidden at some frame but was not written"
                continue
            assert np.array_equal(mine[key].astype(bool), visible.astype(bool)), key
            checked += 1
        assert checked > 0
        assert checked >= int((~original.visible.astype(bool)).any(axis=1).sum())
