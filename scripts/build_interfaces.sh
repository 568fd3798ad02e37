#!/usr/bin/env bash
# Build the ROS interface package (interfaces/llm_interaction_interfaces) into the venv prefix.
# Usage: scripts/build_interfaces.sh VENV
# The ROS wheels' exported CMake files name the include dirs of the machine that built the
# wheels; they are pointed at this venv's Python and numpy first (idempotent).
set -euo pipefail
V=$(cd "${1:-.venv}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PKG=$ROOT/interfaces/llm_interaction_interfaces
BUILD=$ROOT/build/interfaces
mkdir -p "$ROOT/build"
PYINC=$("$V/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPINC=$("$V/bin/python" -c "import numpy; print(numpy.get_include())")
{ grep -rl /opt/python/cp311-cp311/ "$V"/share/*/cmake 2>/dev/null || true; } | xargs -r sed -i \
  -e "s#/opt/python/cp311-cp311/include/python3.11#$PYINC#g" \
  -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$NPINC#g"
export AMENT_PREFIX_PATH=$V CMAKE_PREFIX_PATH=$V
cmake -S "$PKG" -B "$BUILD" -DCMAKE_INSTALL_PREFIX="$V" -DPython3_EXECUTABLE="$V/bin/python" \
  -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release --log-level=WARNING > "$BUILD.log" 2>&1 \
  || { cat "$BUILD.log"; exit 1; }
cmake --build "$BUILD" -j2 >> "$BUILD.log" 2>&1 || { tail -50 "$BUILD.log"; exit 1; }
cmake --install "$BUILD" >> "$BUILD.log" 2>&1 || { tail -50 "$BUILD.log"; exit 1; }
"$V/bin/python" -c "from llm_interaction_interfaces.action import Instruct, MoveTo; from llm_interaction_interfaces.msg import Scene" \
  || { echo "interfaces built but do not import; see $BUILD.log"; exit 1; }
echo "built llm_interaction_interfaces into $V"
