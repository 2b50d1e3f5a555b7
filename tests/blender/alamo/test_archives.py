"""The games' archives in Blender: textures found inside a Data folder's .meg files (in
MegaFiles.xml order, after the loose folders) are shown and packed into the .blend; a model
imported from the archives, with its animations, exports back byte for byte."""

import shutil

import pytest
from corpus import CORPUS
from megbuild import write_meg

bpy = pytest.importorskip("bpy")

TEXTURES = CORPUS / "Textures"
needs_corpus = pytest.mark.skipif(not TEXTURES.is_dir(),
                                  reason=f"no shared corpus at {CORPUS}: skipped")
MODELS = ("NV_IPV1.ALO", "heavy_missile_platform_ldl_l.alo")


def texture_members():
    return {f"DATA\\ART\\TEXTURES\\{p.name.upper()}": p.read_bytes()
            for p in sorted(TEXTURES.iterdir())}


def do_import(path, **kw):
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    return import_alo(bpy.context, str(path), AloImportOptions(import_animations=False, **kw))


def shown_images():
    """The images of every preview texture node of every material in the scene."""
    out = []
    for mat in bpy.data.materials:
        for node in mat.node_tree.nodes:
            if node.type == "TEX_IMAGE":
                out.append(node.image)
    return out


@needs_corpus
@pytest.mark.parametrize("name", MODELS)
def test_textures_inside_the_mods_data_archive_are_shown_and_packed(blender, tmp_path, name):
    models = tmp_path / "MyMod" / "Data" / "Art" / "Models"
    models.mkdir(parents=True)
    shutil.copy(CORPUS / name, models / name)
    write_meg(tmp_path / "MyMod" / "Data" / "Textures.meg", texture_members())
    result = do_import(models / name)
    assert not [w for w in result.warnings if "texture" in w], result.warnings
    images = shown_images()
    assert images
    for img in images:
        assert img.source == "FILE" and img.packed_file is not None
        assert img.size[0] >= 4 and img.size[1] >= 4 and img.has_data     # size loads it
        assert any(v > 0 for v in img.pixels[:4096])       # pixels, not a magenta placeholder
        member = img["alamo_archive_member"].partition(".meg:")[2]
        assert img.filepath_raw == str(tmp_path / "MyMod" / member.replace("\\", "/"))
    blend = tmp_path / "saved.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    shutil.rmtree(tmp_path / "MyMod")                        # packed: no file needed any more
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    again = shown_images()
    assert again and all(i.packed_file is not None and i.size[0] >= 4 for i in again)


@needs_corpus
def test_loose_textures_come_first_then_archives_the_last_listed_first(blender, tmp_path):
    data = tmp_path / "Game" / "Data"
    models = data / "Art" / "Models"
    models.mkdir(parents=True)
    shutil.copy(CORPUS / "NV_IPV1.ALO", models)
    members = texture_members()
    base = "DATA\\ART\\TEXTURES\\NV_IPV1.DDS"
    other = members["DATA\\ART\\TEXTURES\\HEAVY_MISSILE_PLATFORM_CM.DDS"]
    write_meg(data / "Z_Listed_First.meg", members)
    write_meg(data / "A_Listed_Last.meg", {base: other})
    (data / "MegaFiles.xml").write_text("<Mega_Files>\n <File>Data\\Z_Listed_First.meg</File>\n"
                                        " <File>Data\\A_Listed_Last.meg</File>\n</Mega_Files>\n")
    do_import(models / "NV_IPV1.ALO")
    img = next(i for i in shown_images() if i.filepath_raw.upper().endswith("NV_IPV1.DDS"))
    assert img.packed_file.size == len(other)       # the last archive listed overrides the first
    assert "A_Listed_Last.meg" in img["alamo_archive_member"]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    loose = data / "Art" / "Textures"
    loose.mkdir()
    (loose / "nv_ipv1.dds").write_bytes(members[base])
    do_import(models / "NV_IPV1.ALO")
    img = next(i for i in shown_images() if i.filepath.lower().endswith("nv_ipv1.dds"))
    assert img.packed_file is None and img.filepath == str(loose / "nv_ipv1.dds")


@needs_corpus
def test_a_preference_folder_may_name_a_meg_or_a_games_data_folder(blender, tmp_path):
    shutil.copy(CORPUS / "NV_IPV1.ALO", tmp_path / "NV_IPV1.ALO")
    meg = write_meg(tmp_path / "lib" / "Stuff.meg", texture_members())
    result = do_import(tmp_path / "NV_IPV1.ALO", texture_folders=[str(meg)])
    assert not [w for w in result.warnings if "texture" in w]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    write_meg(tmp_path / "Game" / "Data" / "Textures.meg", texture_members())
    result = do_import(tmp_path / "NV_IPV1.ALO", texture_folders=[str(tmp_path / "Game")])
    assert not [w for w in result.warnings if "texture" in w]


@needs_corpus
def test_model_from_game_archives_with_animations_exports_byte_identical(blender, tmp_path,
                                                                         monkeypatch):
    from io_alamo.blender.alamo import archive_import
    from io_alamo.blender.alamo.exporter.ala import AlaExportOptions, export_ala
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    names = ["EI_VADER.ALO", "EI_VADER_BLOCK_BLASTER_00.ALA", "EI_VADER_IDLE_00.ALA",
             "EI_VADER_SPINMOVE_00.ALA", "W_Grenade.alo", "W_Grenade_Idle_00.ala"]
    files = {f"DATA\\ART\\MODELS\\{n.upper()}": (CORPUS / n).read_bytes() for n in names}
    # a model of the same folder whose longer name claims this animation (left to it)
    files["DATA\\ART\\MODELS\\EI_VADER_BLOCK.ALO"] = files["DATA\\ART\\MODELS\\W_GRENADE.ALO"]
    game = tmp_path / "GameData"
    write_meg(game / "Data" / "Models.meg", files)
    write_meg(game / "Data" / "Textures.meg", texture_members())
    monkeypatch.setattr(archive_import, "game_folders", lambda context: {"EAW": str(game)})
    items = archive_import.model_items(None, bpy.context)
    assert [i[1] for i in items] == ["EI_VADER.ALO (Empire at War)",
                                     "EI_VADER_BLOCK.ALO (Empire at War)",
                                     "W_GRENADE.ALO (Empire at War)"]
    result = archive_import.import_from_archives(
        bpy.context, "EAW", "data/art/models/ei_vader.alo", {"EAW": str(game)})
    assert result.left_animations == {"EI_VADER_BLOCK_BLASTER_00.ALA": "EI_VADER_BLOCK.ALO"}
    assert result.counts["animations"] == 2
    bpy.ops.wm.read_factory_settings(use_empty=True)
    del files["DATA\\ART\\MODELS\\EI_VADER_BLOCK.ALO"]
    write_meg(game / "Data" / "Models.meg", files)
    assert len(archive_import.model_items(None, bpy.context)) == 2     # the list follows
    before = set(bpy.data.objects)
    assert bpy.ops.import_scene.alamo_from_archives(
        model="EAW|DATA\\ART\\MODELS\\EI_VADER.ALO") == {"FINISHED"}
    arm = next(o for o in bpy.data.objects if o not in before and o.type == "ARMATURE")
    actions = sorted(a.name for a in bpy.data.actions)
    assert actions == ["EI_VADER_BLOCK_BLASTER_00", "EI_VADER_IDLE_00", "EI_VADER_SPINMOVE_00"]
    out = tmp_path / "out"
    out.mkdir()
    export_alo(bpy.context, str(out / "EI_VADER.ALO"), AloExportOptions(scope="ARMATURE"))
    assert (out / "EI_VADER.ALO").read_bytes() == files["DATA\\ART\\MODELS\\EI_VADER.ALO"]
    action = bpy.data.actions["EI_VADER_IDLE_00"]
    export_ala(bpy.context, arm, action, str(out / "IDLE.ALA"), AlaExportOptions())
    assert (out / "IDLE.ALA").read_bytes() == files["DATA\\ART\\MODELS\\EI_VADER_IDLE_00.ALA"]


def test_a_game_folder_without_archives_offers_nothing_and_says_why(blender, tmp_path,
                                                                    monkeypatch):
    from io_alamo.blender.alamo import archive_import
    (tmp_path / "Game" / "Data" / "Art" / "Models").mkdir(parents=True)
    monkeypatch.setattr(archive_import, "game_folders",
                        lambda context: {"FOC": str(tmp_path / "Game")})
    assert archive_import.model_items(None, bpy.context) == []
    assert "no archives (.meg)" in archive_import._cache["empty"][0]
    problem, warnings = archive_import.why_no_models(bpy.context)     # what invoke reports
    assert problem == "No models found in the games' archives"
    assert warnings == [f"Forces of Corruption: no archives (.meg) in {tmp_path / 'Game'} "
                        "(a game folder or its Data folder is expected)"]
    with pytest.raises(RuntimeError, match="No model chosen"):
        bpy.ops.import_scene.alamo_from_archives()


def test_the_preferences_hold_the_game_folders(addon):
    from io_alamo.blender.prefs import AlamoPreferences
    props = AlamoPreferences.bl_rna.properties
    assert props["eaw_folder"].subtype == "DIR_PATH" and "foc_folder" in props


def test_batch_textures_option_takes_a_meg(blender, tmp_path, capsys):
    from io_alamo.blender import batch
    from io_alamo.formats.alamo.sample import write_sample
    write_sample(tmp_path / "models")
    names = ("Sample_Tank.tga", "Sample_Tank_B.tga")
    members = {}
    for name in names:
        members[f"DATA\\ART\\TEXTURES\\{name.upper()}"] = (tmp_path / "models" / name).read_bytes()
        (tmp_path / "models" / name).unlink()
    meg = write_meg(tmp_path / "lib" / "Textures.meg", members)
    status = batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o"),
                        "--textures", str(meg)], "test")
    out = capsys.readouterr().out
    assert status == 0 and "not found" not in out, out
    packed = sorted(bpy.path.basename(i.filepath) for i in bpy.data.images if i.packed_file)
    assert packed == sorted(n.upper() for n in names)
    assert batch.run(["import", str(tmp_path / "models"), "--out", str(tmp_path / "o2"),
                      "--textures", str(tmp_path / "lib" / "nope.meg")], "test") == 2


def test_texture_names_in_archives_any_case_folders_and_stand_ins(tmp_path):
    from io_alamo.blender.texture_lookup import ArchiveTexture, TextureFinder
    meg = write_meg(tmp_path / "Data" / "Textures.meg",
                    {"DATA\\ART\\TEXTURES\\UNITS\\X.DDS": b"x", "DATA\\ART\\TEXTURES\\Y.DDS": b"y",
                     "DATA\\ART\\Y.TGA": b"elsewhere"})
    finder = TextureFinder([str(tmp_path / "nothing here")], [str(meg)])
    found = finder.find("units/x.tga")
    assert isinstance(found, ArchiveTexture) and found.read() == b"x"
    for name in ("y.tga", "..\\..\\Y.dds", "C:\\Art\\y.dds", "Units\\y.dds"):
        assert finder.find(name).name == "DATA\\ART\\TEXTURES\\Y.DDS", name
    assert finder.find("x.dds") is None                    # not in DATA\ART\TEXTURES itself
    assert finder.searched == f"folder {tmp_path / 'nothing here'} and archive {meg}"
    assert found.loose_path == str(tmp_path / "DATA" / "ART" / "TEXTURES" / "UNITS" / "X.DDS")
    (tmp_path / "Data" / "Broken.meg").write_bytes(b"\xff\xff\xff\xff\xa4\x70\x7d\x3f")
    finder = TextureFinder([], [str(tmp_path / "Data" / "Broken.meg"), str(meg)])
    assert finder.find("y.dds").name == "DATA\\ART\\TEXTURES\\Y.DDS"
    assert "1 archives could not be read" in finder.searched
    assert "MEG v2/v3" in finder.searched and "Broken.meg" in finder.searched
