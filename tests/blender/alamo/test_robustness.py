"""Bad and hostile input in real Blender: a failed import leaves every data collection as it
was, a failed export leaves the target file as it was and no temporary file behind, texture
names from a file are looked up only inside the search folders, nothing is written but the
chosen export targets, and the format's extremes import and export."""

import errno
import hashlib
import importlib.util
import os
import resource
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest
import specbuild as sb

from io_alamo.formats.alamo.game_rules import game_problem, model_bones

from io_alamo.formats.alamo import (VERTEX_DTYPE, AlamoFormatError, Animation, Bone, BoneAnimation,
                                    Connections, Dazzle, Material, Mesh, Model, ObjectConnection,
                                    ParamType, Proxy, ShaderParam, Skeleton, SubMesh,
                                    decode_animation, read_ala, read_alo, save, write_ala,
                                    write_alo)
from io_alamo.formats.alamo.sample import box_vertices, sample_animation, sample_model, sample_textures, write_tga

bpy = pytest.importorskip("bpy")

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("fuzz", ROOT / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)


# --- helpers --------------------------------------------------------------------------------

def import_model(path, **kw):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    kw.setdefault("import_animations", False)
    return import_alo(bpy.context, str(path), AloImportOptions(**kw))


def import_anim(arm, path):
    from io_alamo.blender.alamo.importer.ala import import_ala
    return import_ala(bpy.context, arm, str(path))


def export_model(path, **kw):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    return export_alo(bpy.context, str(path), AloExportOptions(**kw))


def export_anim(arm, action, path):
    from io_alamo.blender.alamo.exporter.ala import export_ala
    return export_ala(bpy.context, arm, action, str(path))


def data_counts():
    """How many datablocks every collection of bpy.data holds."""
    out = {}
    for name in dir(bpy.data):
        value = getattr(bpy.data, name, None)
        if isinstance(value, bpy.types.bpy_prop_collection):
            out[name] = len(value)
    return out


def scene_state():
    """Every data collection's size and names, the selection, the active object, the mode,
    and the scene settings an import may change."""
    vl = bpy.context.view_layer
    scene = bpy.context.scene
    names = {c: sorted(i.name for i in getattr(bpy.data, c))
             for c in ("objects", "meshes", "materials", "armatures", "images", "actions",
                       "collections", "lights", "node_groups")}
    return {"counts": data_counts(), "names": names,
            "selected": sorted(o.name for o in vl.objects if o is not None and o.select_get()),
            "active": vl.objects.active.name if vl.objects.active else None,
            "mode": bpy.context.object.mode if bpy.context.object else None,
            "scene": (scene.render.fps, scene.render.fps_base, scene.frame_start,
                      scene.frame_end)}


def all_ids():
    out = set()
    for name in dir(bpy.data):
        value = getattr(bpy.data, name, None)
        if isinstance(value, bpy.types.bpy_prop_collection) and name != "window_managers":
            out.update(i for i in value if isinstance(i, bpy.types.ID))
    return out


def alive(idblock):
    try:
        idblock.name
        return True
    except ReferenceError:
        return False


def files_under(folder):
    """path -> sha256 of every file below ``folder``."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def temp_files(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.startswith(".io_alamo-")]


@pytest.fixture
def sample(tmp_path):
    """The sample tank and its animation on disk, the tank imported (with its animation)."""
    model = sample_model()
    folder = tmp_path / "sample"
    folder.mkdir()
    alo, ala = folder / "Tank.alo", folder / "Tank_Turn_00.ala"
    save(model, alo)
    save(sample_animation(model), ala)
    result = import_model(alo, import_animations=True)
    return alo, ala, result


# --- import: all or nothing -----------------------------------------------------------------

def corrupt_models():
    data = write_alo(sample_model())
    cases = [(f"truncated to {k}", data[:k]) for k in (0, 5, 8, 100, len(data) // 2,
                                                       len(data) - 1)]
    cases.append(("root size 2 GB", data[:4] + struct.pack("<I", 0xFFFFFFF0) + data[8:]))
    cases += [(name, bad) for name, bad in sb.malformed_cases()
              if sb.MALFORMED_EXPECT[name] == "error"]
    return cases


def corrupt_animations():
    data = write_ala(sample_animation(sample_model()))
    cases = [(f"truncated to {k}", data[:k]) for k in (0, 9, len(data) // 2, len(data) - 5)]
    cases.append(("container size past the end",
                  data[:4] + struct.pack("<I", 0x80000000 | len(data)) + data[8:]))
    return cases


@pytest.mark.parametrize("name, data", corrupt_models(), ids=[n for n, _ in corrupt_models()])
def test_corrupted_model_changes_nothing(blender, sample, tmp_path, name, data):
    path = tmp_path / "bad.alo"
    path.write_bytes(data)
    before = scene_state()
    with pytest.raises(AlamoFormatError, match="bad.alo"):
        import_model(path)
    assert scene_state() == before


@pytest.mark.parametrize("name, data", corrupt_animations(),
                         ids=[n for n, _ in corrupt_animations()])
def test_corrupted_animation_changes_nothing(blender, sample, tmp_path, name, data):
    arm = sample[2].armature
    path = tmp_path / "bad.ala"
    path.write_bytes(data)
    before = scene_state()
    modes = [pb.rotation_mode for pb in arm.pose.bones]
    with pytest.raises(AlamoFormatError, match="bad.ala"):
        import_anim(arm, path)
    assert scene_state() == before
    assert [pb.rotation_mode for pb in arm.pose.bones] == modes


def _model_stage(name):
    from io_alamo.blender.alamo.importer import alo, materials
    return {"armature": (alo._ModelBuilder, "_armature"),
            "materials": (materials.MaterialBuilder, "image"),
            "skinning": (alo._ModelBuilder, "_skin"),
            "lights": (alo._ModelBuilder, "_light"),
            "connections": (alo._ModelBuilder, "_connections"),
            "visibility": (alo._ModelBuilder, "_mesh_visibility")}[name]


@pytest.mark.parametrize("stage", ["armature", "materials", "skinning", "lights",
                                   "connections", "visibility", "animation keys"])
def test_failure_half_way_through_an_import_rolls_everything_back(
        blender, sample, monkeypatch, stage):
    from io_alamo.blender import compat
    alo, _, _ = sample
    bpy.ops.object.select_all(action="DESELECT")
    keep = next(o for o in bpy.data.objects if o.type == "MESH")
    keep.select_set(True)
    bpy.context.view_layer.objects.active = keep
    before = scene_state()

    def boom(*args, **kwargs):
        raise RuntimeError("injected failure")
    if stage == "animation keys":
        monkeypatch.setattr(compat, "set_keys", boom)     # inside the model's animation
    else:
        cls, method = _model_stage(stage)
        original = getattr(cls, method)

        def half(self, *args, **kwargs):
            if stage == "armature":
                original(self, *args, **kwargs)           # bones made, then it fails
            raise RuntimeError("injected failure")
        monkeypatch.setattr(cls, method, half)
    with pytest.raises(RuntimeError, match="injected"):
        import_model(alo, import_animations=True)
    assert scene_state() == before


def test_second_animation_failing_undoes_what_the_first_set(blender, tmp_path, monkeypatch):
    """The first animation beside a model sets the scene's rate and range; when a later one
    fails the whole import is undone, scene settings included."""
    from io_alamo.blender.alamo.importer import ala
    model = sample_model()
    save(model, tmp_path / "Tank.alo")
    save(sample_animation(model, frames=24, fps=15.0), tmp_path / "Tank_A_00.ala")
    save(sample_animation(model), tmp_path / "Tank_B_00.ala")
    before = scene_state()
    original, seen = ala._fill_action, []

    def second_fails(*args):
        seen.append(1)
        original(*args)
        if len(seen) == 2:
            raise RuntimeError("injected failure")
    monkeypatch.setattr(ala, "_fill_action", second_fails)
    with pytest.raises(RuntimeError, match="injected"):
        import_model(tmp_path / "Tank.alo", import_animations=True)
    assert len(seen) == 2 and scene_state() == before


def test_animation_failing_half_way_leaves_the_armature_as_it_was(blender, tmp_path,
                                                                   monkeypatch):
    from io_alamo.blender import compat
    model = sample_model()
    save(model, tmp_path / "m.alo")
    save(sample_animation(model), tmp_path / "a.ala")
    arm = import_model(tmp_path / "m.alo").armature
    for pb in arm.pose.bones:
        pb.rotation_mode = "XYZ"
    before = scene_state()
    calls = []
    original = compat.set_keys

    def fail_third(*args):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("injected failure")
        return original(*args)
    monkeypatch.setattr(compat, "set_keys", fail_third)
    with pytest.raises(RuntimeError, match="injected"):
        import_anim(arm, tmp_path / "a.ala")
    assert scene_state() == before
    assert {pb.rotation_mode for pb in arm.pose.bones} == {"XYZ"}
    assert arm.animation_data is None


@pytest.mark.game_refuses   # fuzzed input, written back as it was
def test_mutated_files_import_cleanly_or_change_nothing(blender, tmp_path):
    """Inputs from the fuzz harness, many of them readable but odd: an import either
    succeeds and only adds datablocks, or fails with AlamoFormatError and changes nothing."""
    model = sample_model()
    seeds = [write_alo(model), write_ala(sample_animation(model, frames=20))]
    save(model, tmp_path / "base.alo")
    arm = import_model(tmp_path / "base.alo").armature
    outcomes = {"imported": 0, "refused": 0}
    for k in range(60):
        data, steps = fuzz.mutate(seeds[k % 2], fuzz.RandomDraw(k))
        path = tmp_path / f"in{k}{'.alo' if k % 2 == 0 else '.ala'}"
        path.write_bytes(data)
        before, ids = scene_state(), all_ids()
        try:
            if k % 2 == 0:
                import_model(path)
            else:
                import_anim(arm, path)
        except AlamoFormatError:
            outcomes["refused"] += 1
            assert scene_state() == before, steps
            continue
        outcomes["imported"] += 1
        assert all(alive(i) for i in ids), steps            # it only added datablocks
        bpy.data.batch_remove(list(all_ids() - ids))
        assert scene_state()["counts"] == before["counts"], steps
    assert outcomes["imported"] and outcomes["refused"]


def saved_inputs():
    return [pytest.param(p, id=p.name) for p in sorted(fuzz.FIXTURE_DIR.glob("*.al[oa]"))]


@pytest.mark.game_refuses   # fuzzed input, written back as it was
@pytest.mark.parametrize("path", saved_inputs())
def test_saved_fuzz_inputs_import_or_change_nothing(blender, tmp_path, path):
    """Every input the fuzz harness ever saved (format layer or Blender run), imported: it
    is refused with AlamoFormatError and changes nothing, or it imports only new data that
    says what the file says, and exports again, unedited, byte for byte."""
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    save(sample_model(), tmp_path / "base.alo")
    arm = import_model(tmp_path / "base.alo").armature
    before, ids = scene_state(), all_ids()
    try:
        if path.suffix == ".alo":
            result = import_model(path)
        else:
            result = import_anim(arm, path)
    except AlamoFormatError:
        assert scene_state() == before
        return
    assert all(alive(i) for i in ids)                       # it only added datablocks
    out = tmp_path / ("out" + path.suffix)
    if path.suffix == ".alo":
        model = read_alo(path.read_bytes())
        assert result.armature not in ids
        assert (sorted(b.name for b in result.armature.data.bones)
                == sorted(b.name for b in model.bones))
        assert result.counts["meshes"] == len(model.meshes)
        export_model(out)
    else:
        anim = read_ala(path.read_bytes())
        assert result.action not in ids and result.action.alamo.frames == anim.num_frames
        assert result.bones + len(result.missing) == len(anim.bones)
        exported = export_ala(bpy.context, arm, result.action, str(out),
                              AlaExportOptions(format=anim.format))
        written, bones = out.read_bytes(), model_bones((tmp_path / "base.alo").read_bytes())
        if game_problem(path.read_bytes(), bones) is not None and written != path.read_bytes():
            # issue 39: an animation the game refuses with its model is written with the
            # model's bone indices, the game takes it, and the export says so
            assert game_problem(written, bones) is None
            assert any("the game refuses the imported file" in str(w)
                       for w in exported.warnings), exported.warnings
            return
    assert out.read_bytes() == path.read_bytes()


DEGENERATE_ROOT = "fixture_alo_dazzles_nested-3df2bb146c34.alo"


@pytest.mark.parametrize("what", ["dazzle", "light", "mesh"])
def test_nan_is_never_written_the_export_names_the_object(blender, tmp_path, what):
    """Issue 25: the saved fuzz model whose root bone matrix is degenerate (-4e37) exports
    back byte for byte unedited (above); an object of it placed at NaN, or a light or mesh
    holding NaN or infinity, would be written so: the export refuses, naming the object,
    and writes nothing."""
    from io_alamo.blender.alamo.exporter.alo import ExportError
    if what == "dazzle":
        result = import_model(fuzz.FIXTURE_DIR / DEGENERATE_ROOT)
    else:
        save(sample_model(), tmp_path / "Tank.alo")
        result = import_model(tmp_path / "Tank.alo")
    role = {"dazzle": "DAZZLE", "light": "LIGHT", "mesh": "MESH"}[what]
    obj = next(o for o in result.objects if o.alamo.role == role or
               (role == "LIGHT" and o.type == "LIGHT"))
    if what == "mesh":
        co = np.zeros(len(obj.data.vertices) * 3, np.float32)
        obj.data.vertices.foreach_get("co", co)
        co[0] = np.nan
        obj.data.vertices.foreach_set("co", co)
        obj.data.update()
    elif what == "light":
        obj.alamo.role = "LIGHT"
        obj.alamo.intensity = float("nan")
    else:
        obj.location = (float("nan"), 0.0, 0.0)
    out = tmp_path / "out.alo"
    with pytest.raises(ExportError, match=f"{what} {obj.name!r} would be written with NaN "
                                          "or infinite numbers") as info:
        export_model(out)
    assert obj in info.value.objects
    assert not out.exists() and not temp_files(tmp_path)


@pytest.mark.game_refuses   # fuzzed input, written back as it was
def test_hostile_counts_import_quickly_and_write_back(blender, tmp_path):
    """Header counts that disagree with the data (2^31 vertices, 4 billion bones) are kept
    for writing and reported by validation; nothing is allocated for them."""
    data = bytearray(write_alo(sample_model()))
    tree = fuzz.parse_tree(bytes(data))
    for node, _, _ in fuzz.all_nodes(tree):
        if node.type == 0x10001:
            node.data = struct.pack("<II", 0x7FFFFFFF, 0x80000000) + node.data[8:]
        elif node.type == 0x201:
            node.data = struct.pack("<I", 0xFFFFFFFF) + node.data[4:]
        elif node.type == 0x402:
            node.data = struct.pack("<I", 0x80000000) + node.data[4:]
        elif node.type in (0x601, 0x1201):            # object, proxy, node counts
            minis = fuzz.split_minis(node.data)
            for m in minis:
                if len(m[1]) == 4 and m[0] in (1, 2, 3, 4, 9):
                    m[1] = bytearray(struct.pack("<I", 0xFFFFFFFF))
            node.data = fuzz.join_minis(minis)
    hostile = fuzz.write_tree(tree)
    path = tmp_path / "hostile.alo"
    path.write_bytes(hostile)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = import_model(path)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
    assert grown_kb < 256 * 1024
    assert result.counts["meshes"] == 3
    export_model(tmp_path / "out.alo")
    assert (tmp_path / "out.alo").read_bytes() == hostile


# --- export: all or nothing -----------------------------------------------------------------

OLD = b"the previous file, which must survive"


def test_export_that_cannot_be_built_leaves_the_old_file(blender, sample, tmp_path):
    target = tmp_path / "out" / "Tank.alo"
    target.parent.mkdir()
    target.write_bytes(OLD)
    obj = next(o for o in bpy.data.objects if o.type == "MESH")
    obj.name = "\u65e5\u672c"                      # no cp1252 for these
    from io_alamo.blender.alamo.exporter.alo import ExportError
    with pytest.raises(ExportError, match="cannot store"):
        export_model(target)
    assert target.read_bytes() == OLD and not temp_files(target.parent)
    with pytest.raises(RuntimeError, match="cannot store"):
        bpy.ops.export_scene.alo(filepath=str(target))
    assert target.read_bytes() == OLD and not temp_files(target.parent)


def test_read_only_folder_is_reported_and_changes_nothing(blender, sample, tmp_path,
                                                           monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    target = folder / "Tank.alo"
    target.write_bytes(OLD)
    if os.geteuid() == 0:
        # root writes anywhere: make creating the temporary file fail as it would
        def denied(*args, **kwargs):
            raise PermissionError(errno.EACCES, "Permission denied", str(folder))
        monkeypatch.setattr(tempfile, "mkstemp", denied)
    else:
        folder.chmod(0o555)
    try:
        with pytest.raises(OSError, match="permission denied") as info:
            export_model(target, animations=True)
        assert str(target) in str(info.value) and "left as it was" in str(info.value)
        with pytest.raises(RuntimeError, match="permission denied"):
            bpy.ops.export_scene.alo(filepath=str(target))
    finally:
        folder.chmod(0o755)
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in folder.iterdir()) == ["Tank.alo"]


@pytest.mark.parametrize("how", ["function", "operator"])
def test_a_folder_as_export_target_is_refused_and_survives(blender, sample, tmp_path, how):
    """Issue 25: a folder given as the output path was moved aside to a hidden backup."""
    mod = tmp_path / "MyMod"
    (mod / "Data").mkdir(parents=True)
    (mod / "Data" / "keep.txt").write_bytes(b"all of it")
    before = files_under(tmp_path)
    if how == "function":
        with pytest.raises(OSError, match="it is a folder, not a file"):
            export_model(mod, animations=True)
        with pytest.raises(OSError, match="it is a folder, not a file"):
            export_anim(sample[2].armature, bpy.data.actions["Tank_Turn_00"], mod)
    else:
        with pytest.raises(RuntimeError, match="it is a folder, not a file"):
            bpy.ops.export_scene.alo(filepath=str(mod))
        arm = sample[2].armature
        bpy.context.view_layer.objects.active = arm
        arm.select_set(True)
        (arm.animation_data or arm.animation_data_create()).action = \
            bpy.data.actions["Tank_Turn_00"]
        with pytest.raises(RuntimeError, match="it is a folder, not a file"):
            bpy.ops.export_anim.alamo_ala(filepath=str(mod))
    assert files_under(tmp_path) == before and mod.is_dir()
    assert not [p for p in tmp_path.rglob(".io_alamo-*")]


def test_read_only_target_and_missing_folder_are_refused(blender, sample, tmp_path):
    target = tmp_path / "Tank.alo"
    target.write_bytes(OLD)
    target.chmod(0o444)
    with pytest.raises(RuntimeError, match="the file is read-only"):
        bpy.ops.export_scene.alo(filepath=str(target))
    assert target.read_bytes() == OLD and not temp_files(tmp_path)
    missing = tmp_path / "no" / "Tank.alo"
    with pytest.raises(RuntimeError, match="the folder does not exist"):
        bpy.ops.export_scene.alo(filepath=str(missing))
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("fail_at", ["model", "animation"])
def test_disk_full_is_reported_and_leaves_every_file_as_it_was(blender, sample, tmp_path,
                                                               monkeypatch, fail_at):
    """The model and its animations are written together: a full disk while writing any of
    them leaves all the old files and no partial or temporary file."""
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "Tank.alo"
    target.write_bytes(OLD)
    anim_target = folder / "Tank_Turn_00.ala"
    anim_target.write_bytes(OLD)
    real_write = os.write
    writes = []

    def full_disk(fd, data):                          # each file is one write: model first
        writes.append(fd)
        if len(writes) == (1 if fail_at == "model" else 2):
            real_write(fd, bytes(data[:10]))          # a little gets written, then no room
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="the disk is full") as info:
        export_model(target, animations=True)
    monkeypatch.undo()
    failed = target if fail_at == "model" else anim_target
    assert str(failed) in str(info.value) and "left as it was" in str(info.value)
    assert target.read_bytes() == OLD and anim_target.read_bytes() == OLD
    assert sorted(p.name for p in folder.iterdir()) == ["Tank.alo", "Tank_Turn_00.ala"]
    export_model(target, animations=True)             # with room, both are written
    assert read_alo(target.read_bytes()).bones and read_ala(anim_target.read_bytes()).bones


def test_animation_export_on_a_full_disk_keeps_the_old_file(blender, sample, tmp_path,
                                                            monkeypatch):
    arm = sample[2].armature
    target = tmp_path / "turn.ala"
    target.write_bytes(OLD)

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="the disk is full"):
        export_anim(arm, bpy.data.actions["Tank_Turn_00"], target)
    monkeypatch.undo()
    assert target.read_bytes() == OLD and not temp_files(tmp_path)


def test_new_files_get_normal_permissions(blender, sample, tmp_path):
    """Temporary files are private (0600); the file put in place gets the permissions a new
    file gets, or those of the file it replaces."""
    mask = os.umask(0o022)
    try:
        export_model(tmp_path / "new.alo")
        assert (tmp_path / "new.alo").stat().st_mode & 0o777 == 0o644
        (tmp_path / "new.alo").chmod(0o640)
        export_model(tmp_path / "new.alo")
        assert (tmp_path / "new.alo").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(mask)


# --- paths ----------------------------------------------------------------------------------

def textured_model(names):
    """One mesh per texture name, each with a BaseTexture parameter naming it."""
    v, t = box_vertices((0, 0, 0), (1, 1, 1))
    meshes = []
    for k, name in enumerate(names):
        mat = Material("MeshBumpColorize.fx",
                       [ShaderParam("BaseTexture", ParamType.TEXTURE, name)])
        meshes.append(Mesh(f"M{k}", [SubMesh(mat, "alD3dVertNU2U3U3", v, t)],
                           v["position"].min(0), v["position"].max(0)))
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    return Model(Skeleton(bones), meshes,
                 Connections([ObjectConnection(k, 0) for k in range(len(meshes))]))


def test_texture_paths_in_a_file_are_looked_up_only_in_the_search_folders(blender, tmp_path):
    game = tmp_path / "game" / "Data" / "Art"
    (game / "Models").mkdir(parents=True)
    (game / "Textures").mkdir()
    pixels = sample_textures()[0]
    write_tga(game / "Textures" / "inside.tga", pixels)
    decoys = [tmp_path / "decoy.tga", tmp_path / "outside" / "decoy.tga",
              game / "decoy.tga", game.parent / "decoy.tga", tmp_path / "game" / "decoy.tga"]
    for d in decoys:
        d.parent.mkdir(parents=True, exist_ok=True)
        write_tga(d, pixels)
    evil = ["..\\..\\..\\..\\decoy.tga", "../../../../outside/decoy.tga", str(decoys[1]),
            "C:\\decoy.tga", "C:decoy.tga", "\\\\server\\share\\decoy.tga", "..\\decoy.tga",
            "..\\..\\decoy.tga", "/decoy.tga", "file:///" + str(decoys[0]), "..", "C:\\",
            "..\\..\\..\\..\\outside\\..\\Art\\Textures\\..\\..\\inside.tga"]
    path = game / "Models" / "m.alo"
    save(textured_model(evil), path)
    before = files_under(tmp_path)
    result = import_model(path)
    assert files_under(tmp_path) == before                  # reading writes nothing
    folders = [str(game / "Models"), str(game / "Textures")]
    loaded = [os.path.abspath(bpy.path.abspath(i.filepath)) for i in bpy.data.images
              if i.source == "FILE"]
    assert loaded == [str(game / "Textures" / "inside.tga")]   # the last name's file name
    assert all(os.path.dirname(p) in folders for p in loaded)
    assert not any(str(d) in loaded for d in decoys)
    placeholders = [i for i in bpy.data.images if i.source == "GENERATED"]
    assert len(placeholders) >= 8
    assert sum("not found" in w for w in result.warnings) == len(placeholders)


def test_nothing_is_written_but_the_export_targets(blender, tmp_path):
    model = sample_model()
    src = tmp_path / "src"
    src.mkdir()
    save(model, src / "Tank.alo")
    save(sample_animation(model), src / "Tank_Turn_00.ala")
    arm = import_model(src / "Tank.alo", import_animations=True).armature
    for name in ("..\\..\\escape", "../../../x", "/tmp/escape", "C:\\escape", "a/b\\c:d"):
        action = bpy.data.actions["Tank_Turn_00"].copy()
        action.name = name
    before = files_under(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = export_model(out / "Tank.alo", animations=True)
    after = files_under(tmp_path)
    changed = {k for k in after if after[k] != before.get(k)}
    assert all(k.startswith("out" + os.sep) for k in changed)
    assert "out/Tank.alo".replace("/", os.sep) in changed
    assert len(changed) == 1 + len(result.animations) == 7
    assert all(os.path.dirname(p) == str(out) for p in result.animations)
    assert not temp_files(out)


def test_actions_that_would_share_a_file_stop_the_export(blender, sample, tmp_path):
    arm = sample[2].armature
    bpy.data.actions["Tank_Turn_00"].copy().name = "Tank_Turn/00"   # file Tank_Turn_00.ala too
    target = tmp_path / "out" / "Tank.alo"
    target.parent.mkdir()
    from io_alamo.blender.alamo.exporter.alo import ExportError
    with pytest.raises(ExportError, match="would both be written to Tank_Turn_00.ala"):
        export_model(target, animations=True)
    assert not list(target.parent.iterdir())


# --- limits ---------------------------------------------------------------------------------

def grid_submesh(nx, ny):
    ys, xs = np.mgrid[0:ny, 0:nx]
    v = np.zeros(nx * ny, VERTEX_DTYPE)
    v["position"][:, 0], v["position"][:, 1] = xs.ravel(), ys.ravel()
    v["normal"][:, 2] = 1
    v["uv"][:, 0, 0], v["uv"][:, 0, 1] = xs.ravel() / (nx - 1), ys.ravel() / (ny - 1)
    v["bone_weights"][:, 0] = 1
    q = (ys[:-1, :-1] * nx + xs[:-1, :-1]).ravel()
    t = np.concatenate([np.stack([q, q + 1, q + nx + 1], 1), np.stack([q, q + nx + 1, q + nx], 1)])
    return SubMesh(Material("alDefault.fx"), "alD3dVertNU2", v, t.astype("<u2"))


def rebuild_export(arm, path):
    """Export from Blender's data alone (no source file to reuse)."""
    del arm["alamo_source"]
    for o in bpy.data.objects:
        o.pop("alamo_fingerprint", None)
    return export_model(path)


def test_a_65535_vertex_submesh_imports_and_exports(blender, tmp_path):
    sub = grid_submesh(255, 257)
    assert len(sub.vertices) == 65535
    mesh = Mesh("Big", [sub], sub.vertices["position"].min(0), sub.vertices["position"].max(0))
    model = Model(Skeleton([Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]), [mesh],
                  Connections([ObjectConnection(0, 0)]))
    save(model, tmp_path / "big.alo")
    result = import_model(tmp_path / "big.alo")
    assert len(result.objects[1].data.vertices) == 65535
    export_model(tmp_path / "out.alo")
    assert (tmp_path / "out.alo").read_bytes() == (tmp_path / "big.alo").read_bytes()
    rebuild_export(result.armature, tmp_path / "rebuilt.alo")
    out = read_alo((tmp_path / "rebuilt.alo").read_bytes())
    assert [len(s.vertices) for s in out.meshes[0].submeshes] == [65535]
    assert len(out.meshes[0].submeshes[0].indices) == len(sub.indices)


def thousand_bone_model():
    rng = np.random.default_rng(7)
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))]
    for i in range(1, 1000):
        m = np.eye(3, 4, dtype="<f4")
        m[:, 3] = rng.normal(size=3)
        bones.append(Bone(f"B_{i:04d}", int(rng.integers(0, i)), m))
    v, t = box_vertices((0, 0, 0), (1, 1, 1))
    mesh = Mesh("Box", [SubMesh(Material("alDefault.fx"), "alD3dVertNU2", v, t)],
                v["position"].min(0), v["position"].max(0))
    return Model(Skeleton(bones), [mesh], Connections([ObjectConnection(0, 999)])), bones


def test_a_thousand_bones_import_and_export(blender, tmp_path):
    model, bones = thousand_bone_model()
    save(model, tmp_path / "bones.alo")
    result = import_model(tmp_path / "bones.alo")
    assert len(result.armature.data.bones) == 1000
    export_model(tmp_path / "out.alo")
    assert (tmp_path / "out.alo").read_bytes() == (tmp_path / "bones.alo").read_bytes()
    rebuild_export(result.armature, tmp_path / "rebuilt.alo")
    out = read_alo((tmp_path / "rebuilt.alo").read_bytes())
    assert [(b.name, b.parent) for b in out.bones] == [(b.name, b.parent) for b in bones]


NAMES = {                                   # raw cp1252 bytes, as a file holds them
    "bones": [b"Fl\xfcgel", b"Se\xf1or", b"\x81\x8d\x8f\x90\x9d undefined in cp1252",
              b"\xe9" * 300],               # bone names are chunks: no length limit
    "mesh": b"Gr\xf6\xdfe " + b"\xe0" * 100,
    "proxy": b"P_" + b"\xfc" * 252,         # mini-chunk strings: 254 bytes and the NUL
    "dazzle": b"\x90" + b"D" * 253,
    "param": b"\xc4" * 254,
    "texture": b"T\xe9xture" + b"_" * 243 + b".dds",
}


def names_model():
    text = {k: (v.decode("cp1252", "surrogateescape") if isinstance(v, bytes)
                else [b.decode("cp1252", "surrogateescape") for b in v])
            for k, v in NAMES.items()}
    assert len(NAMES["proxy"]) == len(NAMES["param"]) == len(NAMES["texture"]) == 254
    bones = [Bone("Root", -1, np.eye(3, 4, dtype="<f4"))] + [
        Bone(n, 0, np.eye(3, 4, dtype="<f4")) for n in text["bones"]]
    v, t = box_vertices((0, 0, 0), (1, 1, 1))
    mat = Material("MeshBumpColorize.fx", [
        ShaderParam(text["param"], ParamType.FLOAT, np.float32(1)),
        ShaderParam("BaseTexture", ParamType.TEXTURE, text["texture"])])
    mesh = Mesh(text["mesh"], [SubMesh(mat, "alD3dVertNU2U3U3", v, t)],
                v["position"].min(0), v["position"].max(0))
    conn = Connections([ObjectConnection(0, 1)], [Proxy(text["proxy"], 2)],
                       [Dazzle(text["dazzle"], 3, texture=text["texture"], tex_size=1)])
    return Model(Skeleton(bones), [mesh], conn)


def file_names(model):
    """Every name of a model, as the bytes the file holds."""
    enc = [b.name for b in model.bones] + [o.name for o in model.objects] + \
        [p.name for p in model.connections.proxies] + \
        [d.name for d in model.connections.dazzles] + \
        [d.texture for d in model.connections.dazzles] + \
        [str(p.name) + "=" + str(p.value) for m in model.meshes for s in m.submeshes
         for p in s.material.params]
    return [n.encode("cp1252", "surrogateescape") for n in enc]


def test_names_at_the_limits_and_in_cp1252_keep_their_bytes(blender, tmp_path):
    model = names_model()
    save(model, tmp_path / "names.alo")
    result = import_model(tmp_path / "names.alo")
    bones = {b.alamo.name for b in result.armature.data.bones}
    assert "Fl\xfcgel" in bones and "Se\xf1or" in bones
    export_model(tmp_path / "out.alo")
    assert (tmp_path / "out.alo").read_bytes() == (tmp_path / "names.alo").read_bytes()
    rebuild_export(result.armature, tmp_path / "rebuilt.alo")
    rebuilt = read_alo((tmp_path / "rebuilt.alo").read_bytes())
    assert file_names(rebuilt) == file_names(model)
    assert NAMES["proxy"] in file_names(rebuilt) and NAMES["bones"][2] in file_names(rebuilt)


def test_a_name_over_the_mini_chunk_limit_stops_the_export(blender, tmp_path):
    save(names_model(), tmp_path / "names.alo")
    import_model(tmp_path / "names.alo")
    target = tmp_path / "out.alo"
    target.write_bytes(OLD)
    mat = next(m for m in bpy.data.materials if m.alamo.params)
    mat.alamo.params[0].name = "x" * 255
    from io_alamo.blender.alamo.exporter.alo import ExportError
    with pytest.raises(ExportError, match="255 bytes long; the format allows 254"):
        export_model(target)
    assert target.read_bytes() == OLD and not temp_files(tmp_path)


def test_a_10000_frame_animation_imports_and_exports(blender, tmp_path):
    model = sample_model()
    save(model, tmp_path / "Tank.alo")
    anim = sample_animation(model, frames=10_000)
    save(anim, tmp_path / "Tank_Long_00.ala")
    arm = import_model(tmp_path / "Tank.alo").armature
    result = import_anim(arm, tmp_path / "Tank_Long_00.ala")
    assert result.action.alamo.frames == 10_000
    out = tmp_path / "out.ala"
    export_anim(arm, result.action, out)
    assert out.read_bytes() == (tmp_path / "Tank_Long_00.ala").read_bytes()
    del result.action["alamo_source"]                 # sampled from Blender, frame by frame
    export_anim(arm, result.action, out)
    again = read_ala(out.read_bytes())
    assert again.num_frames == 10_000


def test_a_thousand_bones_for_10000_frames_import_and_export(blender, tmp_path):
    """A big skeleton on a long animation where few bones move: 10 million bones x frames,
    most of them constants the file stores in a few bytes (as the game's files do)."""
    model, bones = thousand_bone_model()
    save(model, tmp_path / "Big.alo")
    frames, moving = 10_000, range(0, 1000, 50)
    angle = np.linspace(0, np.pi, frames)
    rot = np.zeros((frames, 4), np.int16)
    rot[:, 2] = np.round(np.sin(angle / 2) * 32767).astype(np.int16)
    rot[:, 3] = np.round(np.cos(angle / 2) * 32767).astype(np.int16)
    anim = Animation(2, frames, np.float32(30), [
        BoneAnimation(b.name, i, rotation=rot if i in moving else None,
                      default_rotation=None if i in moving else np.array([0, 0, 0, 32767],
                                                                         np.int16))
        for i, b in enumerate(bones)])
    save(anim, tmp_path / "Big_Long_00.ala")
    data = (tmp_path / "Big_Long_00.ala").read_bytes()
    with pytest.raises(AlamoFormatError, match="1,000 bones x 10,000 frames"):
        decode_animation(read_ala(data))            # the all-frames arrays would take 420 MB
    arm = import_model(tmp_path / "Big.alo").armature
    result = import_anim(arm, tmp_path / "Big_Long_00.ala")
    assert result.bones == 1000 and result.action.alamo.frames == 10_000
    from io_alamo.blender import compat
    keys = {}
    for fc in compat.action_fcurves(result.action):
        bone = fc.data_path.split('"')[1]
        keys[bone] = max(keys.get(bone, 0), len(fc.keyframe_points))
    assert keys["B_0050"] == 10_000 and keys["B_0051"] == 1
    arm.animation_data.action = result.action
    bpy.context.scene.frame_set(bpy.context.scene.frame_start + frames - 1)
    # the rest poses have no rotation: the last frame is half a turn about z
    assert np.allclose(arm.pose.bones["B_0050"].rotation_quaternion, (0, 0, 0, 1), atol=1e-4)
    assert np.allclose(arm.pose.bones["B_0051"].rotation_quaternion, (1, 0, 0, 0), atol=1e-4)
    out = tmp_path / "out.ala"
    export_anim(arm, result.action, out)
    assert out.read_bytes() == data


@pytest.mark.game_refuses   # fuzzed input, written back as it was
def test_a_small_file_claiming_many_frames_of_constant_bones_imports_quickly(blender, sample,
                                                                            tmp_path):
    """100,000 frames of 1,000 bones that store nothing per frame: 36 KB that would be 4 GB
    of per-frame arrays. The importer decodes a bone at a time, constants as one key."""
    arm = sample[2].armature
    names = [b.alamo.name or b.name for b in arm.data.bones]
    header = sb.mini(1, struct.pack("<I", 100_000)) + sb.mini(2, struct.pack("<f", 30)) + \
        sb.mini(3, struct.pack("<I", 1000))
    bones = [sb.container(0x1002, sb.chunk(0x1003, sb.mini(4, names[i % len(names)].encode()
                                                           + b"\0") + sb.mini(5, bytes(4))))
             for i in range(1000)]
    path = tmp_path / "Tank_Claims_00.ala"
    path.write_bytes(sb.container(0x1000, sb.chunk(0x1001, header), *bones))
    result = import_anim(arm, path)
    assert result.action.alamo.frames == 100_000
    from io_alamo.blender import compat
    curves = compat.action_fcurves(result.action)
    assert len(curves) and all(len(fc.keyframe_points) == 1 for fc in curves)
