"""save_all: a failed replacement puts back the targets already replaced."""

import errno
import os

import pytest

from io_alamo.formats.alamo import read_ala, read_alo, write_ala, write_alo
from io_alamo.formats.alamo.files import save_all
from io_alamo.formats.saving import SaveError, write_all
from io_alamo.formats.alamo.sample import sample_animation, sample_model


@pytest.fixture
def three_targets(tmp_path):
    """An old model, a target that does not exist yet, an old animation."""
    targets = [tmp_path / "m.alo", tmp_path / "m_Idle.ala", tmp_path / "m_Turn.ala"]
    targets[0].write_bytes(b"old model")
    targets[2].write_bytes(b"old turn")
    model = sample_model()
    items = [(model, targets[0]), (sample_animation(model), targets[1]),
             (sample_animation(model), targets[2])]
    return targets, items


def _fail_renaming_onto(target, monkeypatch, also_fail=()):
    """os.replace fails when a temporary file is renamed onto ``target`` (and for any rename
    whose source is in ``also_fail``); returns the list of renames made."""
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append((os.fspath(src), os.fspath(dst)))
        if (os.fspath(dst) == os.fspath(target) and os.fspath(src).endswith(".tmp")) \
                or os.fspath(src).endswith(tuple(also_fail)):
            raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    return calls


def _no_hard_links(monkeypatch):
    def link(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(os, "link", link)


@pytest.mark.parametrize("hard_links", [True, False], ids=["hard-link backups", "moved aside"])
def test_a_failed_rename_puts_back_the_targets_already_replaced(three_targets, monkeypatch,
                                                                hard_links):
    targets, items = three_targets
    if not hard_links:
        _no_hard_links(monkeypatch)
    calls = _fail_renaming_onto(targets[2], monkeypatch)
    with pytest.raises(SaveError) as info:
        save_all(items)
    # the first two were replaced before the third failed, then put back
    assert [dst for src, dst in calls if src.endswith(".tmp")] == [str(t) for t in targets]
    assert targets[0].read_bytes() == b"old model"
    assert not targets[1].exists()                     # it did not exist before
    assert targets[2].read_bytes() == b"old turn"
    assert sorted(p.name for p in targets[0].parent.iterdir()) == ["m.alo", "m_Turn.ala"]
    assert str(info.value) == (f"{targets[2]}: cannot be written: Input/output error; it was left "
                               "as it was; the files replaced before it were put back")


@pytest.mark.parametrize("hard_links", [True, False], ids=["hard-link backups", "moved aside"])
def test_when_all_renames_succeed_no_backup_is_left(three_targets, monkeypatch, hard_links):
    targets, items = three_targets
    if not hard_links:
        _no_hard_links(monkeypatch)
    os.chmod(targets[0], 0o640)
    save_all(items)
    assert read_alo(targets[0].read_bytes()).bones[0].name == items[0][0].bones[0].name
    assert targets[1].read_bytes() == write_ala(items[1][0])
    assert read_ala(targets[2].read_bytes()).num_frames == items[2][0].num_frames
    assert targets[0].read_bytes() == write_alo(items[0][0])
    assert os.stat(targets[0]).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in targets[0].parent.iterdir()) == [
        "m.alo", "m_Idle.ala", "m_Turn.ala"]


def test_a_target_that_cannot_be_put_back_is_named_with_where_its_old_bytes_are(
        three_targets, monkeypatch):
    targets, items = three_targets
    _fail_renaming_onto(targets[2], monkeypatch, also_fail=(".bak",))
    with pytest.raises(SaveError) as info:
        save_all(items)
    message = str(info.value)
    assert message.startswith(f"{targets[2]}: cannot be written: Input/output error; it was "
                              f"left as it was; {targets[0]} could not be put back: "
                              "Input/output error "
                              "(its old bytes are in ")
    backups = [p for p in targets[0].parent.iterdir() if p.name.endswith(".bak")]
    assert len(backups) == 1 and backups[0].read_bytes() == b"old model"
    assert str(backups[0]) in message
    assert not targets[1].exists() and targets[2].read_bytes() == b"old turn"


# --- targets that must not be replaced (issue 25) -------------------------------------------

def _tree(folder):
    return sorted((str(p.relative_to(folder)), p.read_bytes() if p.is_file() else None)
                  for p in folder.rglob("*"))


def test_a_folder_as_target_is_refused_and_survives(tmp_path):
    mod = tmp_path / "MyMod"
    (mod / "Data").mkdir(parents=True)
    (mod / "Data" / "keep.txt").write_bytes(b"everything in it")
    before = _tree(tmp_path)
    with pytest.raises(SaveError) as info:
        save_all([(sample_model(), mod)])
    assert str(info.value) == (f"{mod}: cannot be written: it is a folder, not a file (give a file "
                               "name); it was left as it was")
    assert _tree(tmp_path) == before              # no backup, no temporary file


def test_a_folder_among_several_targets_stops_before_any_is_written(three_targets):
    targets, items = three_targets
    folder = targets[0].parent / "m_Folder.ala"
    folder.mkdir()
    before = _tree(targets[0].parent)
    with pytest.raises(SaveError, match="it is a folder"):
        save_all(items + [(items[1][0], folder)])
    assert _tree(targets[0].parent) == before


def test_a_read_only_target_is_refused_and_kept(tmp_path):
    target = tmp_path / "m.alo"
    target.write_bytes(b"old model")
    os.chmod(target, 0o444)
    with pytest.raises(SaveError) as info:
        save_all([(sample_model(), target)])
    assert str(info.value) == (f"{target}: cannot be written: the file is read-only (clear its "
                               "read-only flag to replace it); it was left as it was")
    assert target.read_bytes() == b"old model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.alo"]


def test_a_target_in_a_missing_folder_is_refused(tmp_path):
    target = tmp_path / "no" / "such" / "m.alo"
    with pytest.raises(SaveError) as info:
        save_all([(sample_model(), target)])
    assert str(info.value) == f"{target}: cannot be written: the folder does not exist; nothing " \
                              "was written"
    assert list(tmp_path.iterdir()) == []


def test_convert_ala_onto_a_folder_is_refused(tmp_path, capsys):
    from io_alamo.cli import main
    from io_alamo.formats.alamo import save
    src = tmp_path / "X.ALA"
    save(sample_animation(sample_model()), src)
    mod = tmp_path / "MyMod"
    mod.mkdir()
    (mod / "keep.txt").write_bytes(b"x")
    before = _tree(tmp_path)
    assert main(["convert-ala", str(src), str(mod), "--format", "1"]) != 0
    assert "it is a folder" in capsys.readouterr().err
    assert _tree(tmp_path) == before


# --- a file of one kind is never replaced by another kind unconfirmed (issue 39, point 8) ----

def test_a_model_never_replaces_a_particle_effect_unless_confirmed(tmp_path):
    import particle_build as pb

    from io_alamo.formats.alamo import sniff  # noqa: F401  (registers the Alamo kinds)
    from io_alamo.formats.saving import replacing_other_kinds
    effect, _ = pb.particle_system("p_fx", [pb.emitter("glow")])
    model = (0x200).to_bytes(4, "little") + b"\x00" * 12        # a skeleton root chunk
    target = tmp_path / "p_fx.alo"
    target.write_bytes(effect)
    with pytest.raises(SaveError, match="holds a particle effect, and a model would replace"):
        write_all([(model, target)])
    assert target.read_bytes() == effect and os.listdir(tmp_path) == ["p_fx.alo"]
    write_all([(effect + b"", target)])                  # the same kind: replaced as ever
    with replacing_other_kinds():
        write_all([(model, target)])
    assert target.read_bytes() == model
    with pytest.raises(SaveError, match="holds a model, and a particle effect"):
        write_all([(effect, target)])
