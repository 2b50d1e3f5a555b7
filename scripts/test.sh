#!/usr/bin/env bash
# Run the whole test suite. On first use it creates the environments it needs:
#   .venv          numpy 1.26 (as Blender bundles): the format layer, the command line
#   .venv-np2      numpy 2.x: the format layer again
#   .venvs/bpyNN   the bpy wheel of Blender 4.2, 4.5 and 5.0: the Blender layer, in real
#                  headless Blender (about 1 GB each)
# Set ALAMO_BLENDER_VERSIONS="4.5" (say) to run the Blender tests on fewer versions.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
.venv/bin/python -m pytest -q "$@"
if [ ! -x .venv-np2/bin/python ]; then
  "$PY" -m venv .venv-np2
  .venv-np2/bin/python -m pip install -q "numpy>=2" pytest hypothesis
fi
echo "--- format layer under numpy $(.venv-np2/bin/python -c 'import numpy; print(numpy.__version__)')"
.venv-np2/bin/python -m pytest -q tests "$@"
for v in ${ALAMO_BLENDER_VERSIONS:-4.2 4.5 5.0}; do
  venv=.venvs/bpy${v/./}
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import bpy" 2>/dev/null; then
    "$PY" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q "bpy==$v.*" "numpy<2" pytest hypothesis
  fi
  echo "--- Blender layer in bpy $("$venv/bin/python" -c 'import sys; sys.argv=["x"]; import bpy; print(bpy.app.version_string)' 2>/dev/null | tail -1)"
  "$venv/bin/python" -m pytest -q tests/blender "$@"
done
