#!/usr/bin/env bash
# Run the whole test suite. On first use it creates the environments it needs:
#   .venv          bpy 4.5 + numpy 1.26 (as Blender bundles): the format layer, the command
#                  line, and the Blender layer in Blender 4.5
#   .venv-np2      numpy 2.x: the format layer again
#   .venvs/bpyNN   the bpy wheels of Blender 4.2 and 5.0 (about 1 GB each)
# ALAMO_BLENDER_VERSIONS="4.5" (say) runs the Blender tests on fewer versions; "" on none.
# Extra arguments go to every pytest run (e.g. -x, -k name).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
echo "--- format layer under numpy $(.venv/bin/python -c 'import numpy; print(numpy.__version__)')"
.venv/bin/python -m pytest -q tests --ignore=tests/blender "$@"
if [ ! -x .venv-np2/bin/python ]; then
  "$PY" -m venv .venv-np2
  .venv-np2/bin/python -m pip install -q "numpy>=2" pytest hypothesis
fi
# the compiled codecs (issue 35), also into environments made before they were required
for venv in .venv .venv-np2; do
  "$venv/bin/python" -c "import imagecodecs, etcpak" 2>/dev/null ||
    "$venv/bin/python" -m pip install -q "imagecodecs==2025.3.30" "etcpak==0.9.15"
done
echo "--- format layer under numpy $(.venv-np2/bin/python -c 'import numpy; print(numpy.__version__)')"
.venv-np2/bin/python -m pytest -q tests --ignore=tests/blender "$@"
for v in ${ALAMO_BLENDER_VERSIONS-4.2 4.5 5.0}; do
  if [ "$v" = "4.5" ]; then
    venv=.venv
  else
    venv=.venvs/bpy${v/./}
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import bpy" 2>/dev/null; then
      "$PY" -m venv "$venv"
      "$venv/bin/python" -m pip install -q --upgrade pip
      "$venv/bin/python" -m pip install -q "bpy==$v.*" "numpy<2" pytest hypothesis
    fi
    "$venv/bin/python" -c "import imagecodecs, etcpak" 2>/dev/null ||
      "$venv/bin/python" -m pip install -q "imagecodecs==2025.3.30" "etcpak==0.9.15"
  fi
  echo "--- Blender layer in bpy $("$venv/bin/python" -c 'import sys; sys.argv=["x"]; import bpy; print(bpy.app.version_string)' 2>/dev/null | tail -1)"
  "$venv/bin/python" -m pytest -q tests/blender "$@"
done
