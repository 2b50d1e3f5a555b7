"""Issue 40: validate says what the game's loaders say, with severities. It agrees with the
viewer's loaders (alo_check, particle_check) on every corpus file and on broken files built
here; false alarms are notes; the newcomer's cases get one clear line each."""

import json

import numpy as np
import pytest
from corpus import CORPUS

import alo_viewer
import particle_build as pb
from io_alamo.cli import main
from io_alamo.formats import registry
from io_alamo.formats.alamo import write_alo
from io_alamo.formats.alamo.particles.game_rules import particle_refusal, viewer_refuses
from io_alamo.formats.problems import Problem
from io_alamo.formats.alamo.sample import sample_model

PARTICLES = CORPUS.parent / "corpus-particles"


def _validate(data, name):
    return [p for p in registry.identify(data).validate(data, name)]


def _errors(found):
    return [p for p in found if p.severity == "error"]


def _corpus(folder, suffixes):
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in suffixes)


def _particle(path):
    return alo_viewer.is_particle(path)


@pytest.mark.parametrize("path", _corpus(CORPUS, (".alo", ".ala")) +
                         _corpus(PARTICLES, (".alo",)), ids=lambda p: p.name)
def test_validate_errors_exactly_where_the_loaders_refuse(path):
    """An error on a file the loaders refuse, none on a file they take (particle effects: the
    editors' chunks the viewer refuses are notes, as the game skips them)."""
    data = path.read_bytes()
    found = _validate(data, str(path))
    if _particle(path):
        if alo_viewer.particle_viewer() is None:
            pytest.skip(alo_viewer.reason("particle_check"))
        ok, line = alo_viewer.check_particles([path])[str(path)]
        assert viewer_refuses(data) == (not ok), line
        assert bool(_errors(found)) == (particle_refusal(data)[0] is not None)
        return
    if alo_viewer.viewer() is None:
        pytest.skip(alo_viewer.reason())
    if path.suffix.lower() == ".ala" and not alo_viewer.checkable([path]):
        pytest.skip("no model beside the animation")
    ok, line = alo_viewer.check([path])[str(path)]
    assert bool(_errors(found)) == (not ok), (line, [str(p) for p in found])


def _property_system(mini, body):
    """A good system whose emitter's property list gains mini ``mini`` holding ``body``."""
    data, _ = pb.particle_system()
    from io_alamo.formats.alamo.chunks import Chunk, read_chunks, read_minis, write_chunks, \
        write_minis, Mini

    def copy(c):
        if c.is_container:
            return Chunk(c.type, children=[copy(k) for k in c.children])
        return Chunk(c.type, data=bytes(c.data))
    roots = [copy(c) for c in read_chunks(data)]
    props = roots[0].children[2].children[0].children[0]
    props.data = write_minis([Mini(m.type, bytes(m.data)) for m in read_minis(props)]
                             + [Mini(mini, body)])
    return write_chunks(roots)


@pytest.mark.parametrize("case", ["good", "unknown property", "short property", "uaw order",
                                  "editor chunk"])
def test_spec_built_particles_agree_with_the_loader(case, tmp_path):
    data = {"good": lambda: pb.particle_system()[0],
            "unknown property": lambda: _property_system(0x4A, b"\0\0\0\0"),
            "short property": lambda: _property_system(0x0F, b"\0\0"),
            "uaw order": lambda: pb.uaw_system()[0],
            "editor chunk": lambda: pb.linked_system()[0]}[case]()
    if alo_viewer.particle_viewer() is None:
        pytest.skip(alo_viewer.reason("particle_check"))
    path = tmp_path / "p_test.alo"
    path.write_bytes(data)
    ok, line = alo_viewer.check_particles([path])[str(path)]
    assert viewer_refuses(data) == (not ok), line
    found = _validate(data, str(path))
    if case in ("unknown property", "short property"):
        assert _errors(found) and "properties" in _errors(found)[0].message
    if case == "editor chunk":
        assert not _errors(found) and any(p.severity == "note" and "0x100" in p.message
                                          for p in found)


def test_false_alarms_are_notes():
    """A mesh connected to no bone and one without sub-meshes load: notes, not errors."""
    model = sample_model()
    found = _validate(write_alo(model), "m.alo")
    assert not _errors(found)
    conn = model.connections
    conn.objects = conn.objects[1:]
    found = [p for p in _validate(write_alo(model), "m.alo") if "connected to no bone" in p]
    assert found and all(p.severity == "note" for p in found)


def test_nan_normal_and_model_named_ala_are_warnings(tmp_path, capsys):
    model = sample_model()
    sub = model.meshes[0].submeshes[0]
    sub.vertices["normal"][0, 0] = np.nan
    data = write_alo(model)
    found = _validate(data, "tank.alo")
    nan = [p for p in found if "NaN" in p]
    assert nan and nan[0].severity == "warning" and "normal" in nan[0].message
    named = _validate(write_alo(sample_model()), "tank.ala")
    assert [p.severity for p in named if ".ala" in p] == ["warning"]
    path = tmp_path / "tank.alo"
    path.write_bytes(data)
    assert main(["validate", str(path)]) == 0           # warnings: exit 0
    assert main(["validate", "--strict", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: warning: " in out and "1 with 1 problem (1 warning)" in out


def test_trailing_bytes_are_named_as_such(tmp_path, capsys):
    path = tmp_path / "tank.alo"
    good = write_alo(sample_model())
    path.write_bytes(good + b"\x01\x02\x03\x04\x05\x06\x07\x08")
    assert main(["validate", "--json", str(path)]) == 0
    got = json.loads(capsys.readouterr().out)[0]["problems"]
    assert got == [{"severity": "warning", "where": f"offset 0x{len(good):x}",
                    "message": got[0]["message"]}]
    assert "8 bytes of trailing data after the last chunk" in got[0]["message"]


def test_json_gives_severity_message_where(tmp_path, capsys):
    data, _ = pb.linked_system()
    path = tmp_path / "p_linked.alo"
    path.write_bytes(data)
    main(["validate", "--json", str(path)])
    problems = json.loads(capsys.readouterr().out)[0]["problems"]
    assert problems and all(set(p) == {"severity", "message", "where"} for p in problems)
    assert {p["severity"] for p in problems} <= {"error", "warning", "note"}


def test_an_animation_refusal_names_its_model(tmp_path, capsys):
    from io_alamo.formats.alamo import convert_animation, write_ala
    from io_alamo.formats.alamo.sample import sample_animation
    model = sample_model()
    (tmp_path / "Tank.alo").write_bytes(write_alo(model))
    anim = convert_animation(sample_animation(model), 2)
    anim.bones[0].index = 99
    path = tmp_path / "Tank_Idle.ala"
    path.write_bytes(write_ala(anim))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "error: " in out and "checked against the model Tank.alo" in out


def test_problem_is_data_and_text():
    p = Problem("warning", "is odd", "mesh 'x'")
    assert p == "mesh 'x': is odd" and p.as_dict() == {"severity": "warning",
                                                      "message": "is odd", "where": "mesh 'x'"}
    with pytest.raises(ValueError):
        Problem("fatal", "x")


def test_validate_jobs_gives_the_same_results(tmp_path, capsys):
    for k in range(70):
        (tmp_path / f"m{k}.alo").write_bytes(write_alo(sample_model()))
    (tmp_path / "m3.alo").write_bytes(b"\0" * 10)
    assert main(["validate", "--json", str(tmp_path)]) == 1
    one = json.loads(capsys.readouterr().out)
    assert main(["validate", "--json", "--jobs", "2", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out) == one


# --- the newcomer's messages (issue 40, point 4) ------------------------------------------

def test_roundtrip_of_a_nan_normal_says_so(tmp_path, capsys):
    model = sample_model()
    model.meshes[0].submeshes[0].vertices["normal"][0, 0] = np.nan
    path = tmp_path / "tank.alo"
    path.write_bytes(write_alo(model))
    assert main(["roundtrip", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: identical"
    assert out[1].startswith(f"{path}: warning: ") and "normal has NaN" in out[1]


def test_convert_ala_refuses_an_alo_output(tmp_path, capsys):
    from io_alamo.formats.alamo import convert_animation, write_ala
    from io_alamo.formats.alamo.sample import sample_animation
    src = tmp_path / "Tank_Idle.ala"
    src.write_bytes(write_ala(convert_animation(sample_animation(sample_model()), 2)))
    out = tmp_path / "Tank_Idle_eaw.alo"
    assert main(["convert-ala", str(src), str(out), "--format", "1"]) == 1
    assert not out.exists() and "name the output .ala" in capsys.readouterr().err


def test_info_json_counts_models_and_animations(tmp_path, capsys):
    from io_alamo.formats.alamo import convert_animation, write_ala
    from io_alamo.formats.alamo.sample import sample_animation
    model = sample_model()
    (tmp_path / "Tank.alo").write_bytes(write_alo(model))
    anim = convert_animation(sample_animation(model), 2)
    (tmp_path / "Tank_Idle.ala").write_bytes(write_ala(anim))
    assert main(["info", "--json", str(tmp_path)]) == 0
    got = {r["file"].rsplit("/", 1)[-1]: r for r in json.loads(capsys.readouterr().out)}
    m, a = got["Tank.alo"], got["Tank_Idle.ala"]
    assert (m["kind"], m["bones"], m["meshes"], m["proxies"]) == (
        "model", len(model.bones), len(model.meshes), len(model.connections.proxies))
    assert {"materials", "lights", "dazzles", "vertices", "triangles"} <= set(m)
    assert (a["kind"], a["animation_format"], a["frames"], a["bones_animated"]) == (
        "animation", 2, anim.num_frames, len(anim.bones))
    assert a["fps"] == pytest.approx(float(anim.fps))


def test_meg_without_a_verb_lists_its_verbs(capsys):
    assert main(["meg"]) == 2
    out = capsys.readouterr().out
    assert all(verb in out for verb in ("list", "extract", "create"))


def test_batch_without_a_verb_lists_its_verbs(capsys):
    assert main(["batch"]) == 2
    out = capsys.readouterr().out
    assert all(verb in out for verb in ("import", "export", "roundtrip"))


def test_roundtrip_of_an_archive_points_to_meg_create(tmp_path, capsys):
    from megbuild import write_meg
    path = tmp_path / "Models.meg"
    write_meg(path, {"DATA\\ART\\MODELS\\M.ALO": write_alo(sample_model())})
    main(["roundtrip", str(path)])
    assert "io-alamo meg create" in capsys.readouterr().out


def test_a_folder_of_p3d_and_one_p3d_agree(tmp_path, capsys):
    from p3d_build import build_odol, grid_lod
    one = tmp_path / "tank.p3d"
    one.write_bytes(build_odol(47, [grid_lod(1.0, 4, 4)]))
    single = main(["roundtrip", str(one)])
    out_one = capsys.readouterr().out
    folder = main(["roundtrip", str(tmp_path)])
    out_folder = capsys.readouterr().out
    assert single == folder == 0 and out_one == out_folder
    assert "1 not written" in out_folder


def test_info_of_a_blend_says_it_is_one(tmp_path, capsys):
    path = tmp_path / "scene.blend"
    path.write_bytes(b"BLENDER-v405REND" + bytes(40))
    assert main(["info", str(path)]) == 1
    assert "is a Blender file (.blend)" in capsys.readouterr().err


def _unit(folder, model_name, anim_name, model_bytes):
    from io_alamo.formats.alamo import convert_animation, write_ala
    from io_alamo.formats.alamo.sample import sample_animation
    (folder / model_name).write_bytes(model_bytes)
    path = folder / anim_name
    path.write_bytes(write_ala(convert_animation(sample_animation(sample_model()), 2)))
    return path


@pytest.mark.parametrize("case", ["shorter model takes it", "its model is refused"])
def test_animations_are_paired_as_the_viewer_pairs_them(case, tmp_path):
    """The viewer tries every <dir>/<B>.alo whose B_ starts the animation's name, longest
    first; a model it refuses takes no animation. validate agrees with it on both."""
    other = sample_model()
    other.bones[1].name = "SOMETHING_ELSE"
    if case == "shorter model takes it":
        (tmp_path / "Tank.alo").write_bytes(write_alo(sample_model()))
        path = _unit(tmp_path, "Tank_Blue.alo", "Tank_Blue_Idle.ala", write_alo(other))
    else:
        path = _unit(tmp_path, "Tank.alo", "Tank_Idle.ala", write_alo(sample_model())[:-20])
    found = _errors(_validate(path.read_bytes(), str(path)))
    assert bool(found) == (case == "its model is refused")
    if found:
        assert "its model Tank.alo is refused" in found[0].message
    if alo_viewer.viewer() is None:
        pytest.skip(alo_viewer.reason())
    ok, line = alo_viewer.check([path])[str(path)]
    assert ok == (not found), line
