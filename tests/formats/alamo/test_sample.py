"""The generated sample: every part the demo promises is in the files."""

import numpy as np

from io_alamo.formats.alamo import LightType, decode_animation, load_ala, load_alo
from io_alamo.formats.alamo.validate import validate
from io_alamo.formats.alamo.sample import write_sample


def test_sample_has_every_part_and_is_valid(tmp_path):
    alo, ala = write_sample(tmp_path)
    model, anim = load_alo(alo), load_ala(ala)
    assert validate(model) == [] and validate(anim) == []
    names = [m.name for m in model.meshes]
    assert names == ["Tank_Hull", "Tank_Turret", "Tank_COLLISION"]
    turret = model.meshes[1].submeshes[0]
    assert turret.is_skinned and set(turret.vertices["bone_indices"][:, 0]) == {0, 1}
    coll = model.meshes[2]
    assert coll.collision and coll.hidden and coll.submeshes[0].collision_tree is not None
    assert model.lights[0].type == LightType.SPOT
    assert model.connections.proxies[0].name == "p_smoke_small_thin"
    assert model.connections.dazzles[0].name == "FC_Beacon"
    assert (tmp_path / "Sample_Tank.tga").stat().st_size == 18 + 64 * 64 * 4
    dec = decode_animation(anim)
    assert anim.num_frames == 60 and dec.has_visibility.tolist() == [False, False, True]
    # the turret turns: its rotation at the middle frame is a half turn about Z
    assert np.allclose(np.abs(dec.rotation[1, 30]), [0, 0, 1, 0], atol=1e-3)
