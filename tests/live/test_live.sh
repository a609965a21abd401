#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Runs tests/live/test_live.py OUT [camera]: `fovea live` in headless Chromium. Skips (77)
# when fovea has no live view or no WebAssembly decoder, or Chromium or
# python3-websockets is absent.
set -u
here=$(dirname "$0")
FOVEA_CLI=${FOVEA_CLI:-./fovea}
export FOVEA_CLI
if ! "$FOVEA_CLI" info --json | grep -q '"live_wasm":[[:space:]]*true'; then
    echo "SKIP: fovea built without the live view or its WebAssembly decoder"
    exit 77
fi
if ! command -v chromium >/dev/null 2>&1; then
    echo "SKIP: chromium not installed (Debian: chromium)"
    exit 77
fi
py=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import websockets' 2>/dev/null; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    echo "SKIP: python3-websockets not installed"
    exit 77
fi
[ $# -gt 0 ] || set -- live-test
PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" exec "$py" "$here/test_live.py" "$@"
