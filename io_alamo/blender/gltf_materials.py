"""Materials for Blender's glTF exporter without the nodes it never reads.

The exporter looks for each socket it writes (base colour, metallic, roughness, normal, every
KHR_materials extension: a dozen per material) by listing every node of the material's
tree, so its time per material grows with nodes it then throws away. It reads only what
leads to the active Material Output (a Principled BSDF linked to it, and upstream of that)
and its own "glTF Material Output" node group, which sits unlinked. While
:func:`reachable_materials` is active, the exported objects' slots hold copies of their
materials, under the same names, whose trees keep just that: the nodes upstream of a
Material Output and the node groups (with what feeds them). The .glb is the same (tested
byte for byte); the imported preview materials lose about two thirds of their nodes
(specular, team colour mixing, the baked-over base colour chain; issue 44). When nothing
follows the export (the batch saved the scene before and throws it away after), the
materials themselves are pruned instead: no copies, nothing to put back.
"""

from contextlib import contextmanager

import bpy

from .compat import uses_nodes

__all__ = ["kept_nodes", "nodes_upstream", "reachable_materials"]

_TEMPORARY = "\u2060io_alamo glTF original {}"


def kept_nodes(tree):
    """Names of the nodes of ``tree`` the glTF exporter may read: every Material Output and
    node group, and every node a link path leads from into one of them."""
    return nodes_upstream(tree, ("OUTPUT_MATERIAL", "GROUP"))


def nodes_upstream(tree, types):
    """Names of the nodes of ``tree`` of ``types`` and of every node from which links lead
    to one of them."""
    into = {}
    for link in tree.links:
        into.setdefault(link.to_node.name, []).append(link.from_node.name)
    todo = [n.name for n in tree.nodes if n.type in types]
    seen = set(todo)
    while todo:
        new = set(into.get(todo.pop(), ())) - seen
        seen |= new
        todo += new
    return seen


def _pruned_copy(mat, number):
    """A copy of ``mat`` named as it is (``mat`` renamed meanwhile) with only
    :func:`kept_nodes`, or None when there is nothing to leave out or it cannot be
    renamed (a linked material)."""
    if not _own(mat):
        return None
    kept = kept_nodes(mat.node_tree)
    if len(kept) == len(mat.node_tree.nodes):
        return None
    name = mat.name
    copy = mat.copy()
    mat.name = _TEMPORARY.format(number)
    copy.name = name
    if copy.name != name:                 # the name is taken after all: leave it alone
        bpy.data.materials.remove(copy)
        mat.name = name
        return None
    _keep_only(copy.node_tree, kept)
    return copy


def _own(mat):
    """Whether ``mat`` is the scene's own node material (not linked from a library)."""
    return mat.library is None and getattr(mat, "override_library", None) is None \
        and uses_nodes(mat)


def _prune(mat):
    """Remove the nodes of ``mat`` the exporter never reads (where it is the scene's own)."""
    if _own(mat):
        _keep_only(mat.node_tree, kept_nodes(mat.node_tree))


def _keep_only(tree, kept):
    nodes = tree.nodes
    for node in [n for n in nodes if n.name not in kept]:
        nodes.remove(node)


@contextmanager
def reachable_materials(objects, put_back=True):
    """While inside, the material slots of ``objects`` hold pruned copies of their
    materials under the same names (see the module's note); everything is put back
    afterwards. Without ``put_back`` (the scene is thrown away after), the materials
    themselves are pruned and stay so."""
    if not put_back:
        for mat in {s.material for obj in objects for s in obj.material_slots} - {None}:
            _prune(mat)
        yield
        return
    copies, slots, made = {}, [], set()
    try:
        for obj in objects:
            for slot in obj.material_slots:
                mat = slot.material
                if mat is None:
                    continue
                key = mat.as_pointer()
                if key in made:           # a mesh shared with an object done before
                    continue
                if key not in copies:
                    copies[key] = (mat, _pruned_copy(mat, len(copies)))
                copy = copies[key][1]
                if copy is not None:
                    made.add(copy.as_pointer())
                    slots.append((slot, mat))
                    slot.material = copy
        yield
    finally:
        _put_back(slots, copies.values())


def _put_back(slots, copies):
    """Each slot its material again; the copies removed, their names given back."""
    for slot, mat in reversed(slots):
        slot.material = mat
    for mat, copy in copies:
        if copy is not None:
            name = copy.name
            bpy.data.materials.remove(copy)
            mat.name = name
