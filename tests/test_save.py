"""save_all: a failed replacement puts back the targets already replaced."""

import errno
import os

import pytest

from io_alamo.formats.alamo import read_ala, read_alo, write_ala, write_alo
from io_alamo.formats.alamo.files import SaveError, save_all
from io_alamo.sample import sample_animation, sample_model


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
    assert str(info.value) == (f"cannot write {targets[2]}: Input/output error; it was left "
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
    assert message.startswith(f"cannot write {targets[2]}: Input/output error; it was left as "
                              f"it was; {targets[0]} could not be put back: Input/output error "
                              "(its old bytes are in ")
    backups = [p for p in targets[0].parent.iterdir() if p.name.endswith(".bak")]
    assert len(backups) == 1 and backups[0].read_bytes() == b"old model"
    assert str(backups[0]) in message
    assert not targets[1].exists() and targets[2].read_bytes() == b"old turn"
