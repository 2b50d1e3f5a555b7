#!/usr/bin/env bash
# Run the whole test suite: creates .venv (numpy 1.26, as Blender bundles) on first use, runs
# pytest there, then runs the format-layer tests again under numpy 2.x in .venv-np2.
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
