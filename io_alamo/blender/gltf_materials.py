"""Node-tree walks for the batch's .glb (issue 44).

The batch hands Blender's glTF exporter the preview materials as they are. Pruning them to
the nodes the exporter reads (copies under the same names in the exported objects' slots,
put back afterwards; 44b) made the exporter about 0.17 s faster over the 17 corpus models,
but the copies, the node removals, the renames and the slot swaps, and the dependency-graph
evaluations they cause before the export and again before the next file's reset, cost about
0.25 s: a net loss (44x measured both in one process, alternating, five pairs)."""

__all__ = ["nodes_upstream"]


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
