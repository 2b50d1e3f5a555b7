#!/usr/bin/env bash
# Set everything up and run the demo: a .venv with the bpy wheel (Blender 4.5 LTS), numpy
# and the test tools; then build the extension, generate a sample model and animation with
# io_alamo's own code, import them headless, export them back, render a preview PNG, and
# print where the results are (out/demo/).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
.venv/bin/python scripts/demo.py "$@"
