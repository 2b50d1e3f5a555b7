"""Collision trees: the builder, the checker, and both against the game's own files."""

import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from io_alamo.formats.alamo.collision import (FILE_NODE_DTYPE, NODE_DTYPE, CollisionTree,
                                              build_collision_tree, check_collision_tree)

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"


# ---------------------------------------------------------------------------------------
# meshes
# ---------------------------------------------------------------------------------------

def soup(seed, ntri, nvert):
    """Random triangles over shared random vertices (big, overlapping triangles)."""
    rng = np.random.default_rng(seed)
    pos = (rng.random((nvert, 3)) * 100 - 50).astype(np.float32)
    return pos, rng.integers(0, nvert, (ntri, 3))


def scattered(seed, ntri, size=0.5):
    """Small separate triangles scattered in a box."""
    rng = np.random.default_rng(seed)
    centres = rng.random((ntri, 1, 3)) * 100
    pos = (centres + rng.normal(0, size, (ntri, 3, 3))).reshape(-1, 3).astype(np.float32)
    return pos, np.arange(3 * ntri).reshape(ntri, 3)


def grid(nx, ny, z=0.0):
    """A flat grid (zero extent on z), two triangles per cell."""
    xs, ys = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    pos = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, z)], 1).astype(np.float32)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij"))
    v = lambda a, b: a * (ny + 1) + b  # noqa: E731
    return pos, np.concatenate([np.stack([v(i, j), v(i + 1, j), v(i + 1, j + 1)], 1),
                                np.stack([v(i, j), v(i + 1, j + 1), v(i, j + 1)], 1)])


def box_mesh():
    """An axis-aligned box: 12 triangles, the shape of most real collision meshes."""
    c = np.array([[x, y, z] for x in (-2, 3) for y in (-1, 4) for z in (0, 2)], np.float32)
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = [t for a, b, c_, d in faces for t in ((a, b, c_), (a, c_, d))]
    return c, np.array(tris)


MESHES = {
    "soup-300": soup(1, 300, 200),
    "soup-3000": soup(2, 3000, 1500),
    "scattered-1000": scattered(3, 1000),
    "grid-flat": grid(30, 20),
    "box": box_mesh(),
    "strip-line": (np.array([[i, 0, 0] for i in range(50)], np.float32),
                   np.array([[i, i + 1, i + 2] for i in range(48)])),
}


# ---------------------------------------------------------------------------------------
# independent readings of a tree
# ---------------------------------------------------------------------------------------

def walk(tree):
    """Pre-order list of (node, parent, float box) with boxes dequantised independently."""
    nodes = tree.nodes
    out = []
    stack = [(0, -1, np.float64(tree.box_min), np.float64(tree.box_max))]
    while stack:
        i, parent, lo, hi = stack.pop()
        out.append((i, parent, lo, hi))
        if nodes["count"][i] == 0:
            link = int(nodes["link"][i])
            for c in (link + 1, link):                 # pop the first child first
                b0 = nodes["min"][c].astype(np.float64)
                b1 = nodes["max"][c].astype(np.float64)
                stack.append((c, i, lo + b0 / 255 * (hi - lo), lo + b1 / 255 * (hi - lo)))
    return out


def leaf_triangles(tree):
    """{leaf node: its triangle ids}."""
    n = tree.nodes
    return {int(i): tree.triangles[n["link"][i]:n["link"][i] + n["count"][i]].astype(int)
            for i in np.flatnonzero(n["count"] > 0)}


def subtree_triangles(tree, i):
    n = tree.nodes
    if n["count"][i]:
        return list(tree.triangles[n["link"][i]:n["link"][i] + n["count"][i]])
    return subtree_triangles(tree, n["link"][i]) + subtree_triangles(tree, n["link"][i] + 1)


def assert_valid(tree, pos, idx, leaf_size=2):
    problems = check_collision_tree(tree, pos, idx, rounded_boxes=False)
    assert problems == []
    assert tree.nodes.dtype == NODE_DTYPE
    assert tree.triangles.dtype == np.uint32
    assert tree.box_min.dtype == np.float32 and tree.box_max.dtype == np.float32
    counts = tree.nodes["count"]
    assert counts.max() <= leaf_size
    assert len(tree.nodes) == 2 * np.count_nonzero(counts == 0) + 1


# ---------------------------------------------------------------------------------------
# builder
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MESHES))
def test_built_trees_pass_the_strict_checker(name):
    pos, idx = MESHES[name]
    assert_valid(build_collision_tree(pos, idx), pos, idx)


@pytest.mark.parametrize("leaf_size", [1, 2, 5])
def test_leaf_size_is_respected(leaf_size):
    pos, idx = soup(4, 500, 300)
    tree = build_collision_tree(pos, idx, leaf_size=leaf_size)
    assert_valid(tree, pos, idx, leaf_size)
    inner = tree.nodes["count"] == 0
    # an inner node is only made for more than leaf_size triangles
    for i in np.flatnonzero(inner):
        assert len(subtree_triangles(tree, i)) > leaf_size
    with pytest.raises(ValueError):
        build_collision_tree(pos, idx, leaf_size=0)


@pytest.mark.parametrize("name", sorted(MESHES))
def test_every_triangle_in_exactly_one_leaf_in_depth_first_leaf_order(name):
    pos, idx = MESHES[name]
    tree = build_collision_tree(pos, idx)
    leaves = leaf_triangles(tree)
    every = np.concatenate(list(leaves.values()))
    assert sorted(every.tolist()) == list(range(len(idx)))
    # the triangle list is the leaves' triangles in pre-order, each leaf's ids ascending
    preorder = [i for i, *_ in walk(tree) if tree.nodes["count"][i] > 0]
    assert np.array_equal(np.concatenate([leaves[i] for i in preorder]), tree.triangles)
    for ids in leaves.values():
        assert np.all(np.diff(ids) > 0)


@pytest.mark.parametrize("name", sorted(MESHES))
def test_depth_first_pair_layout(name):
    """Root 0; x's children are link, link + 1; first child's descendants take the ids
    right after the pair, the second child's descendants the ids right after those."""
    pos, idx = MESHES[name]
    tree = build_collision_tree(pos, idx)
    nodes = tree.nodes
    size = {}

    def subtree_size(i):
        if i not in size:
            size[i] = 1 if nodes["count"][i] else \
                1 + subtree_size(int(nodes["link"][i])) + subtree_size(int(nodes["link"][i]) + 1)
        return size[i]

    def descendants(i):
        if nodes["count"][i]:
            return []
        link = int(nodes["link"][i])
        return [link, link + 1] + descendants(link) + descendants(link + 1)

    assert subtree_size(0) == len(nodes)
    if nodes["count"][0] == 0:
        assert nodes["link"][0] == 1
    for i in np.flatnonzero(nodes["count"] == 0):
        a = int(nodes["link"][i])
        b = a + 1
        first = descendants(a)
        second = descendants(b)
        assert sorted(first) == list(range(a + 2, a + 2 + len(first)))
        assert sorted(second) == list(range(a + 2 + len(first), a + 2 + len(first) + len(second)))
        if nodes["count"][a] == 0:
            assert nodes["link"][a] == a + 2
        if nodes["count"][b] == 0:
            assert nodes["link"][b] == a + 2 + len(first)


@pytest.mark.parametrize("name", sorted(MESHES))
def test_boxes_are_quantised_outward_and_tight(name):
    pos, idx = MESHES[name]
    tree = build_collision_tree(pos, idx)
    tri = pos.astype(np.float64)[idx]
    boxes = {i: (lo, hi) for i, _, lo, hi in walk(tree)}
    assert (tree.nodes["min"][0] == 0).all() and (tree.nodes["max"][0] == 255).all()
    for i, parent, lo, hi in walk(tree):
        pts = tri[subtree_triangles(tree, i)].reshape(-1, 3)
        tlo, thi = pts.min(0), pts.max(0)
        # every triangle of the subtree lies inside the node's dequantised box, exactly
        assert (lo <= tlo).all() and (thi <= hi).all(), (i, lo, tlo, thi, hi)
        if parent >= 0:
            # and the box is the outward rounding: less than a byte step (plus one for the
            # float guard) beyond the tight box
            plo, phi = boxes[parent]
            step = (phi - plo) / 255
            assert (tlo - lo <= 2 * step + 1e-9).all() and (hi - thi <= 2 * step + 1e-9).all()


def test_root_box_is_the_exporters():
    pos, idx = box_mesh()
    tree = build_collision_tree(pos, idx)
    lo, hi = pos.min(0), pos.max(0)
    centre = (lo + hi) / np.float32(2)
    half = (hi - lo) / np.float32(2) * np.float32(1.01)
    assert np.array_equal(tree.box_min, centre - half)
    assert np.array_equal(tree.box_max, centre + half)
    np.testing.assert_allclose(tree.box_min, [-2.025, -1.025, -0.01], rtol=1e-6)
    np.testing.assert_allclose(tree.box_max, [3.025, 4.025, 2.01], rtol=1e-6)
    # unused vertices do not count: the box is around the triangles
    far = np.vstack([pos, [[1000, 1000, 1000]]]).astype(np.float32)
    tree2 = build_collision_tree(far, idx)
    assert np.array_equal(tree2.box_min, tree.box_min)


def test_box_mesh_peels_faces_like_the_exporter():
    """A box's faces have zero volume: the exporter peels them off two triangles at a
    time (real files: 11 nodes, six leaves of two)."""
    pos, idx = box_mesh()
    tree = build_collision_tree(pos, idx)
    assert len(tree.nodes) == 11
    assert sorted(Counter(tree.nodes["count"][tree.nodes["count"] > 0].tolist()).items()) == [(2, 6)]
    for ids in leaf_triangles(tree).values():
        assert ids[1] == ids[0] + 1 and ids[0] % 2 == 0        # the two halves of one face


def test_one_triangle():
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    tree = build_collision_tree(pos, [[0, 1, 2]])
    assert len(tree.nodes) == 1
    node = tree.nodes[0]
    assert node["count"] == 1 and node["link"] == 0
    assert node["min"].tolist() == [0, 0, 0] and node["max"].tolist() == [255, 255, 255]
    assert tree.triangles.tolist() == [0]
    assert check_collision_tree(tree, pos, [[0, 1, 2]], rounded_boxes=False) == []


def test_no_triangles():
    pos = np.zeros((4, 3), np.float32)
    for idx in (np.zeros((0, 3), np.int64), []):
        tree = build_collision_tree(pos, idx)
        assert len(tree.nodes) == 0 and len(tree.triangles) == 0
        assert tree.box_min.tolist() == [0, 0, 0] and tree.box_max.tolist() == [0, 0, 0]
        assert check_collision_tree(tree, pos, idx) == []
    # but an empty tree is wrong for a mesh that has triangles
    problems = check_collision_tree(tree, pos, [[0, 1, 2]])
    assert any("no nodes" in p for p in problems)


@pytest.mark.parametrize("n", [3, 17, 1000, 20000])
def test_identical_triangles_are_halved(n):
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    idx = np.tile([0, 1, 2], (n, 1))
    tree = build_collision_tree(pos, idx)
    assert_valid(tree, pos, idx)
    depths = {0: 0}
    for i, parent, *_ in walk(tree):
        if parent >= 0:
            depths[i] = depths[parent] + 1
    assert max(depths.values()) <= int(np.ceil(np.log2(n))) + 1


def test_points_and_flat_axes():
    # every triangle collapsed to one point, then a mesh flat on two axes
    pos = np.full((3, 3), 7.5, np.float32)
    idx = np.tile([0, 1, 2], (10, 1))
    tree = build_collision_tree(pos, idx)
    assert_valid(tree, pos, idx)
    assert tree.box_min.tolist() == [7.5] * 3 == tree.box_max.tolist()
    pos = np.array([[x, 2, 3] for x in range(40)], np.float32)
    idx = np.array([[i, i + 1, i + 1] for i in range(39)])
    assert_valid(build_collision_tree(pos, idx), pos, idx)
    pos, idx = grid(10, 10, z=5.0)
    tree = build_collision_tree(pos, idx)
    assert tree.box_min[2] == tree.box_max[2] == 5.0
    assert_valid(tree, pos, idx)


def test_large_trees_are_built_past_the_16_bit_limits():
    pos, idx = scattered(5, 70000, size=0.05)
    tree = build_collision_tree(pos, idx)
    assert len(tree.nodes) > 65535 and tree.nodes["link"].max() > 65535
    assert check_collision_tree(tree, pos, idx, rounded_boxes=False) == []


def test_bad_input_is_refused():
    pos = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError):
        build_collision_tree(pos, [[0, 1, 3]])
    with pytest.raises(ValueError):
        build_collision_tree(pos, [[0, 1]])
    with pytest.raises(ValueError):
        build_collision_tree(np.array([[0, 0, 0], [1, 0, 0], [np.nan, 0, 0]]), [[0, 1, 2]])


# ---------------------------------------------------------------------------------------
# the split rule, against a plain recursive statement of it
# ---------------------------------------------------------------------------------------

def reference_tree(pos, idx, leaf_size=2):
    """(count, link) per node and the triangle list, built one node at a time."""
    tri = pos.astype(np.float64)[np.asarray(idx)]
    cen, tmin, tmax = tri.sum(1), tri.min(1), tri.max(1)
    nodes, out = [None], []

    def split(t):
        t = np.sort(t)
        n = len(t)
        binned = n > 64
        lo_s = max(1, -(-n // (4 if binned else 8)))
        cuts = [-(-k * n // 16) for k in range(1, 16)] if binned else range(1, n)
        cuts = [c for c in cuts if lo_s <= c <= n - lo_s]
        ext = np.maximum(tmax[t].max(0) - tmin[t].min(0), 0)
        pad = 1e-3 * ext.max() if ext.max() > 0 else 1.0
        options = []
        for axis in range(3):
            o = t[np.argsort(cen[t, axis], kind="stable")]
            for c in cuts:
                left, right = o[:c], o[c:]
                vl = np.prod(tmax[left].max(0) - tmin[left].min(0) + pad)
                vr = np.prod(tmax[right].max(0) - tmin[right].min(0) + pad)
                options.append((vl * c + vr * (n - c), axis, c, o))
        best = min(o[0] for o in options)
        _, axis, c, o = min((o for o in options if o[0] <= best * (1 + 1e-9)),
                            key=lambda o: (abs(2 * o[2] - n), o[1], o[2]))
        return o[:c], o[c:]

    def build(i, t):
        if len(t) <= leaf_size:
            nodes[i] = (len(t), len(out))
            out.extend(sorted(t.tolist()))
            return
        left, right = split(t)
        link = len(nodes)
        nodes.extend([None, None])
        nodes[i] = (0, link)
        build(link, left)
        build(link + 1, right)

    build(0, np.arange(len(idx)))
    return nodes, out


@pytest.mark.parametrize("seed", range(12))
def test_builder_matches_the_reference_rule(seed):
    rng = np.random.default_rng(100 + seed)
    ntri = int(rng.integers(1, 300))
    kind = seed % 3
    if kind == 0:
        pos, idx = soup(seed, ntri, int(rng.integers(3, 200)))
    elif kind == 1:
        pos, idx = scattered(seed, ntri)
    else:   # integer grid points on a plane: many exact ties and degenerate triangles
        nv = int(rng.integers(3, 100))
        pos = np.round(rng.random((nv, 3)) * 4).astype(np.float32)
        pos[:, 2] = 0
        idx = rng.integers(0, nv, (ntri, 3))
    tree = build_collision_tree(pos, idx)
    nodes, out = reference_tree(pos, idx)
    assert [(int(c), int(lk)) for c, lk in zip(tree.nodes["count"], tree.nodes["link"])] == nodes
    assert tree.triangles.tolist() == out


# ---------------------------------------------------------------------------------------
# checker
# ---------------------------------------------------------------------------------------

def broken(tree, **changes):
    """A copy of ``tree`` with changed nodes (``nodes=fn(nodes)``) or other fields."""
    nodes = tree.nodes.copy()
    if "nodes" in changes:
        nodes = changes.pop("nodes")(nodes)
    fields = dict(box_min=tree.box_min.copy(), box_max=tree.box_max.copy(), nodes=nodes,
                  triangles=tree.triangles.copy())
    fields.update(changes)
    return CollisionTree(**fields)


def inner_nodes(tree):
    return np.flatnonzero(tree.nodes["count"] == 0)


def leaf_nodes(tree):
    return np.flatnonzero(tree.nodes["count"] > 0)


@pytest.fixture(scope="module")
def built():
    pos, idx = scattered(7, 200)
    return build_collision_tree(pos, idx), pos, idx


def has(problems, text):
    assert problems, "the checker found nothing"
    assert any(text in p for p in problems), problems


def set_field(field, node, value):
    def change(nodes):
        nodes[field][node] = value
        return nodes
    return change


def test_checker_catches_a_cycle(built):
    tree, pos, idx = built
    inner = inner_nodes(tree)[-1]
    has(check_collision_tree(broken(tree, nodes=set_field("link", inner, 0)), pos, idx),
        "reached more than once")


def test_checker_catches_a_shared_child(built):
    tree, pos, idx = built
    a, b = inner_nodes(tree)[-2:]
    bad = broken(tree, nodes=set_field("link", a, tree.nodes["link"][b]))
    problems = check_collision_tree(bad, pos, idx)
    has(problems, "reached more than once")
    has(problems, "not reachable")


def test_checker_catches_links_out_of_range(built):
    tree, pos, idx = built
    n = len(tree.nodes)
    for link in (n - 1, n, 10 ** 9):
        bad = broken(tree, nodes=set_field("link", 0, link))
        has(check_collision_tree(bad, pos, idx), "outside the")


def test_checker_catches_a_triangle_outside_its_box(built):
    tree, pos, idx = built
    moved = pos.copy()
    moved[idx[5, 1]] += np.float32(3.0)
    has(check_collision_tree(tree, moved, idx), "poke out of their leaf's box")
    # a tiny move stays within the tolerance, a bigger one does not
    nudged = pos.copy()
    leaf = leaf_nodes(tree)[0]
    tri = tree.triangles[tree.nodes["link"][leaf]]
    nudged[idx[tri]] = nudged[idx[tri]] * np.float32(1.0000001)
    assert check_collision_tree(tree, nudged, idx) == []


def test_checker_catches_a_missing_and_a_doubled_triangle(built):
    tree, pos, idx = built
    tris = tree.triangles.copy()
    tris[0] = tris[1]
    problems = check_collision_tree(broken(tree, triangles=tris), pos, idx)
    has(problems, "in no leaf")
    has(problems, "in more than one leaf")


def test_checker_catches_a_leaf_range_past_the_end(built):
    tree, pos, idx = built
    leaf = leaf_nodes(tree)[-1]
    bad = broken(tree, nodes=set_field("count", leaf, tree.nodes["count"][leaf] + 100))
    has(check_collision_tree(bad, pos, idx), "past the")
    short = broken(tree, triangles=tree.triangles[:-1])
    has(check_collision_tree(short, pos, idx), "past the")


def test_checker_catches_overlaps_ids_and_leftovers(built):
    tree, pos, idx = built
    a, b = leaf_nodes(tree)[:2]
    bad = broken(tree, nodes=set_field("link", b, tree.nodes["link"][a]))
    has(check_collision_tree(bad, pos, idx), "overlap")
    tris = tree.triangles.copy()
    tris[3] = len(idx) + 7
    has(check_collision_tree(broken(tree, triangles=tris), pos, idx), "not below")
    longer = broken(tree, triangles=np.r_[tree.triangles, [0]].astype(np.uint32))
    has(check_collision_tree(longer, pos, idx), "belong to no leaf")


def test_checker_catches_bad_root_and_boxes(built):
    tree, pos, idx = built
    has(check_collision_tree(broken(tree, nodes=set_field("max", 0, [255, 200, 255])), pos, idx),
        "not 0..255")
    child = int(tree.nodes["link"][0])
    bad = broken(tree, nodes=set_field("min", child, [250, 250, 250]))
    has(check_collision_tree(bad, pos, idx), "min above max")
    has(check_collision_tree(broken(tree, box_max=np.full(3, np.nan, np.float32)), pos, idx),
        "not finite")
    shrunk = broken(tree, box_max=(tree.box_max - 1).astype(np.float32))
    has(check_collision_tree(shrunk, pos, idx), "poke out")
    extra = broken(tree, nodes=lambda n: np.concatenate([n, n[:3]]))
    has(check_collision_tree(extra, pos, idx), "not reachable")


def test_checker_strictness_about_rounded_boxes(built):
    """Rounding a leaf's byte box to nearest can cut half a step into its triangles:
    accepted by default (community files do it), refused with rounded_boxes=False."""
    tree, pos, idx = built
    boxes = {i: (lo, hi) for i, _, lo, hi in walk(tree)}
    parents = {i: p for i, p, *_ in walk(tree)}
    tri = pos.astype(np.float64)[idx]
    nodes = tree.nodes.copy()
    changed = 0
    for leaf in leaf_nodes(tree):
        plo, phi = boxes[parents[leaf]]
        pts = tri[tree.triangles[nodes["link"][leaf]:nodes["link"][leaf] + nodes["count"][leaf]]]
        pts = pts.reshape(-1, 3)
        with np.errstate(divide="ignore", invalid="ignore"):
            lo = np.round(np.nan_to_num((pts.min(0) - plo) / (phi - plo) * 255))
        new = np.clip(lo, 0, 255).astype(np.uint8)
        changed += int((new != nodes["min"][leaf]).any())
        nodes["min"][leaf] = new
    assert changed
    rounded = broken(tree, nodes=lambda _: nodes)
    assert check_collision_tree(rounded, pos, idx) == []
    has(check_collision_tree(rounded, pos, idx, rounded_boxes=False), "poke out")


def test_checker_accepts_file_dtype_nodes(built):
    tree, pos, idx = built
    nodes = np.zeros(len(tree.nodes), FILE_NODE_DTYPE)
    for f in FILE_NODE_DTYPE.names:
        nodes[f] = tree.nodes[f]
    same = broken(tree, nodes=lambda _: nodes, triangles=tree.triangles.astype(np.uint16))
    assert check_collision_tree(same, pos, idx, rounded_boxes=False) == []


def test_checker_never_raises_or_hangs_on_garbage(built):
    tree, pos, idx = built
    rng = np.random.default_rng(11)
    for trial in range(200):
        n = int(rng.integers(1, 60))
        raw = rng.integers(0, 256, n * FILE_NODE_DTYPE.itemsize, dtype=np.uint8)
        nodes = raw.view(FILE_NODE_DTYPE).copy()
        if trial % 2:           # mostly small numbers, so that links and counts often hit
            nodes["link"] %= n + 2
            nodes["count"] %= 4
        tris = rng.integers(0, len(idx) + 3, int(rng.integers(0, 50))).astype(np.uint16)
        garbage = CollisionTree(rng.normal(0, 50, 3).astype(np.float32),
                                rng.normal(0, 50, 3).astype(np.float32), nodes, tris)
        assert isinstance(check_collision_tree(garbage, pos, idx), list)
    # a long chain with a cycle at the end still finishes
    chain = np.zeros(3001, NODE_DTYPE)
    chain["count"][0::2] = 0
    chain["link"][0::2] = np.arange(1, 3002, 2)
    chain["count"][1::2] = 1
    chain["link"][-1] = 0
    chain["count"][-1] = 0
    problems = check_collision_tree(broken(tree, nodes=lambda _: chain), pos, idx)
    assert problems
    for junk in (None, 5, "x", CollisionTree(None, None, None, None),
                 broken(tree, triangles=np.array([1.5])), broken(tree, box_min=np.zeros(2))):
        assert check_collision_tree(junk, pos, idx)
    assert check_collision_tree(tree, pos[:3], idx)          # indices past the vertices
    assert check_collision_tree(tree, pos, idx[:, :2])


# ---------------------------------------------------------------------------------------
# the game's own files
# ---------------------------------------------------------------------------------------

def _chunks(data, start, end):
    while start + 8 <= end:
        kind, size = struct.unpack_from("<II", data, start)
        yield kind, bool(size & 0x80000000), start + 8, start + 8 + (size & 0x7FFFFFFF)
        start += 8 + (size & 0x7FFFFFFF)


def _minis(body):
    i = 0
    while i + 2 <= len(body):
        yield body[i], body[i + 2:i + 2 + body[i + 1]]
        i += 2 + body[i + 1]


def corpus_trees():
    """(name, tree, positions, indices) of every sub-mesh with a collision tree."""
    found = []
    for path in sorted(CORPUS.glob("*")):
        if path.suffix.lower() != ".alo":
            continue
        data = path.read_bytes()
        stack = [(0, len(data))]
        while stack:
            begin, end = stack.pop()
            for kind, container, body, stop in _chunks(data, begin, end):
                if kind == 0x10000 and container:
                    sub = {k: (b, s) for k, _, b, s in _chunks(data, body, stop)}
                    if 0x1200 in sub:
                        found.append((f"{path.name}@{body}", _read_submesh(data, sub)))
                elif container:
                    stack.append((body, stop))
    return [(name, *parts) for name, parts in found]


def _read_submesh(data, sub):
    nvert = struct.unpack_from("<I", data, sub[0x10001][0])[0]
    b, s = sub[0x10007]
    stride = (s - b) // nvert
    verts = np.frombuffer(data[b:s], np.uint8).reshape(nvert, stride)
    pos = verts[:, :12].copy().view("<f4").reshape(nvert, 3)
    b, s = sub[0x10004]
    idx = np.frombuffer(data[b:s], "<u2").reshape(-1, 3).astype(np.int64)
    parts = {k: data[b:s] for k, _, b, s in _chunks(data, *sub[0x1200])}
    header = dict(_minis(parts[0x1201]))
    tree = CollisionTree(np.frombuffer(header[0], "<f4").copy(),
                         np.frombuffer(header[1], "<f4").copy(),
                         np.frombuffer(parts[0x1202], FILE_NODE_DTYPE).copy(),
                         np.frombuffer(parts[0x1203], "<u2").copy())
    return tree, pos, idx


@pytest.fixture(scope="module")
def corpus():
    if not CORPUS.is_dir():
        pytest.skip(f"no shared corpus at {CORPUS}: real-file collision tests skipped")
    trees = corpus_trees()
    if not trees:
        pytest.skip(f"no collision trees in {CORPUS}")
    return trees


def _petroglyph(tree, pos, idx):
    """Trees from Petroglyph's exporter have a root box larger than the triangles'."""
    pts = pos[idx].reshape(-1, 3)
    return bool((tree.box_min < pts.min(0)).any())


def test_every_real_tree_passes_the_checker(corpus):
    for name, tree, pos, idx in corpus:
        assert check_collision_tree(tree, pos, idx) == [], name
        if _petroglyph(tree, pos, idx):
            # Petroglyph's exporter quantises outward: no rounding slack needed
            assert check_collision_tree(tree, pos, idx, rounded_boxes=False) == [], name


def test_real_trees_have_every_triangle_once(corpus):
    for name, tree, pos, idx in corpus:
        assert sorted(tree.triangles.tolist()) == list(range(len(idx))), name


def test_our_trees_for_the_real_meshes_look_like_the_real_ones(corpus):
    assert any(_petroglyph(*parts) for _, *parts in corpus)
    for name, real, pos, idx in corpus:
        ours = build_collision_tree(pos, idx)
        assert check_collision_tree(ours, pos, idx, rounded_boxes=False) == [], name
        if not _petroglyph(real, pos, idx):
            continue
        assert np.array_equal(ours.box_min, real.box_min), name
        assert np.array_equal(ours.box_max, real.box_max), name
        assert real.nodes["count"].max() <= 2
        assert 0.9 <= len(ours.nodes) / len(idx) <= 1.3, name
        assert abs(len(ours.nodes) - len(real.nodes)) <= 0.2 * len(real.nodes) + 4, name
