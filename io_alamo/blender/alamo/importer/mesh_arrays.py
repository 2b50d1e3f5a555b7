"""An imported mesh's data as whole arrays: the sub-meshes as one set of vertex arrays
(vertex groups are filled by :func:`io_alamo.blender.mesh_data.add_vertex_groups`)."""

import numpy as np

from ....formats.alamo.naming import format_has_colors, format_has_tangents


class MeshArrays:
    """A mesh's sub-meshes as one set of vertex arrays (float32) and triangles."""

    def __init__(self, subs):
        counts = [len(s.vertices) for s in subs]
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

        def cat(name, shape):
            parts = [s.vertices[name] for s in subs]
            return (np.concatenate(parts, dtype=np.float32) if parts
                    else np.zeros((0,) + shape, np.float32))

        self.position = cat("position", (3,))
        self.normal = cat("normal", (3,))
        self.uv = cat("uv", (4, 2))
        self.tangent = cat("tangent", (3,))
        self.binormal = cat("binormal", (3,))
        self.color = cat("color", (4,))
        self.bone_indices = (np.concatenate([s.vertices["bone_indices"] for s in subs])
                             if subs else np.zeros((0, 4), np.uint32))
        self.bone_weights = (np.concatenate([s.vertices["bone_weights"] for s in subs])
                             if subs else np.zeros((0, 4), np.float32))
        tris = [s.indices.astype(np.int64) + self.offsets[k] for k, s in enumerate(subs)]
        self.triangles = np.concatenate(tris) if tris else np.zeros((0, 3), np.int64)
        self.material_index = np.repeat(np.arange(len(subs)), [len(s.indices) for s in subs])
        self.has_colors = any(format_has_colors(s.vertex_format) for s in subs)
        self.has_tangents = any(format_has_tangents(s.vertex_format) for s in subs)
        for name in ("position", "normal", "uv", "tangent", "binormal", "color"):
            arr = getattr(self, name)
            # a float64 sum is finite unless something is not: one pass, no mask
            if not np.isfinite(arr.sum(dtype=np.float64)):
                arr[~np.isfinite(arr)] = 0.0

    def transform(self, k, world):
        """Move sub-mesh ``k`` by ``world`` (positions; normals and tangents by its linear part)."""
        sl = slice(self.offsets[k], self.offsets[k + 1])
        lin = world[:3, :3]
        self.position[sl] = self.position[sl].astype(np.float64) @ lin.T + world[:3, 3]
        try:
            nrm = np.linalg.inv(lin).T
        except np.linalg.LinAlgError:
            nrm = lin
        for name, m in (("normal", nrm), ("tangent", lin), ("binormal", lin)):
            arr = getattr(self, name)
            v = arr[sl].astype(np.float64) @ m.T
            length = np.linalg.norm(v, axis=1, keepdims=True)
            arr[sl] = np.divide(v, length, out=v, where=length > 0)

    def uv_sets(self):
        """The UV sets that hold data (set 0 always, so there is something to texture)."""
        # rows first (one contiguous pass), then the 4 x 2 columns
        used = ((self.uv != 0).reshape(len(self.uv), 8).any(axis=0).reshape(4, 2).any(axis=1)
                if len(self.uv) else np.zeros(4, bool))
        return [k for k in range(4) if k == 0 or used[k]]

    def merge_key(self):
        """Map each vertex to the first vertex with the same position and skinning."""
        key = np.concatenate([self.position.view(np.uint32),
                              self.bone_indices.astype(np.uint32),
                              self.bone_weights.astype(np.float32).view(np.uint32)], axis=1)
        key = np.ascontiguousarray(key)
        row = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).ravel()
        _, first, inverse = np.unique(row, return_index=True, return_inverse=True)
        order = np.argsort(first)                     # keep the file's vertex order
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return rank[inverse.ravel()], self.position[first[order]]
