"""A bone's rest as import left it, so export can tell an untouched bone from an edited one.

Blender rebuilds a bone's rest matrix from head, tail and roll; where the bone's Y axis is
close to the world's +Y or -Y the roll is ill-conditioned and the rebuilt matrix is off the
file's by up to 1e-3, more than any tolerance that still notices an edit. Comparing with the
rest Blender itself made at import is exact instead.
"""

import numpy as np

REST_KEY = "alamo_rest"


def remember_rest(bone):
    bone[REST_KEY] = [float(x) for x in np.array(bone.matrix_local, np.float64).ravel()]


def rest_unedited(bone):
    """True when the bone's rest matrix is still the one import made (False if unknown)."""
    kept = bone.get(REST_KEY)
    if kept is None or len(kept) != 16:
        return False
    now = np.array(bone.matrix_local, np.float32).ravel()
    # a file's degenerate matrix may give Blender a NaN rest: still the one import made
    return bool(np.array_equal(now, np.array(kept, np.float32), equal_nan=True))
