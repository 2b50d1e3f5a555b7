"""Where a proxied part of an Arma model goes (issue 43): the binariser stores a model with
autocenter on as its points minus its bounding centre; ``uncentre`` moves them (and its frames
and proxies) back, so the part's own origin is what sits at the proxy, as in the game."""

import numpy as np
import pytest
from corpus import P3D_CORPUS
from p3d_build import build_odol
from p3d_vehicle import FRAME_CENTRE, boxes_lod

from io_alamo.formats.arma import proxy_marker_faces, read_p3d
from io_alamo.formats.arma.placement import place, uncentre


def _centred_part():
    lod = boxes_lod(1.0, [((0.0, 0.0, 0.0), (0.9, 0.15, 3.0))], [("\\x\\hub", (0.3, 0.1, 0.0))])
    return read_p3d(build_odol(73, [lod], centre=FRAME_CENTRE))


def test_bounding_centre_is_read():
    model = _centred_part()
    np.testing.assert_allclose(model.info.bounding_center, FRAME_CENTRE, atol=1e-6)
    assert model.info.values["auto_center"] is True


def test_uncentre_moves_points_frames_and_proxies_back_by_the_centre():
    model = _centred_part()
    lod = model.lods[0]
    before = lod.vertices.copy()
    proxy_before = np.array(lod.proxies[0].matrix, np.float64)
    uncentre(model)
    np.testing.assert_allclose(lod.vertices - before, np.tile(FRAME_CENTRE, (len(before), 1)),
                               atol=1e-6)
    # the box, modelled at the centre in its own file, is back there
    box = lod.vertices[:8]
    np.testing.assert_allclose((box.min(0) + box.max(0)) / 2, FRAME_CENTRE, atol=1e-6)
    moved = np.array(lod.proxies[0].matrix, np.float64)
    np.testing.assert_allclose(moved[:3, 3], proxy_before[:3, 3] + FRAME_CENTRE, atol=1e-6)
    np.testing.assert_array_equal(moved[:3, :3], proxy_before[:3, :3])
    assert proxy_marker_faces(lod).sum() == 1          # the marker still meets its proxy
    # and scaling after it keeps the marker too
    place(model, 5.0, 1.0)
    assert proxy_marker_faces(lod).sum() == 1


def test_a_model_without_centre_is_left_as_it_is():
    lod = boxes_lod(1.0, [((0.0, 1.0, 0.0), (0.5, 0.5, 0.5))])
    model = read_p3d(build_odol(73, [lod]))
    before = model.lods[0].vertices.copy()
    uncentre(model)
    np.testing.assert_array_equal(model.lods[0].vertices, before)


@pytest.mark.skipif(not P3D_CORPUS.is_dir(), reason=f"no Arma samples at {P3D_CORPUS}")
def test_corpus_models_with_autocenter_off_store_a_zero_centre():
    """The GPL samples all say autocenter=0 in their LODs' named properties: their header
    flag is off, their bounding centre zero, and their points stay off the centre of their
    box (the cigarettes lie 0.6 m up), as the binariser leaves an uncentred model."""
    paths = sorted(P3D_CORPUS.rglob("*.p3d"))
    assert paths
    for path in paths:
        with open(path, "rb") as f:
            model = read_p3d(f.read())
        props = {k.lower(): v for lod in model.lods for k, v in lod.properties}
        assert props.get("autocenter") == "0"
        assert model.info.values["auto_center"] is False
        assert not np.asarray(model.info.bounding_center).any()
        pts = np.concatenate([lod.vertices for lod in model.lods if lod.vertices is not None
                              and len(lod.vertices)])
        assert np.abs((pts.min(0) + pts.max(0)) / 2).max() > 0.1
