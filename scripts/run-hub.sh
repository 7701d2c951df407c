#!/usr/bin/env bash
# run-hub.sh BIN: what `make run` starts. With a display (or on macOS) the
# tray app with its window, as the desktop launcher starts it; without one there is nobody to see a tray icon or a dialog, so
# the hub runs headless and this says how to decide waiting calls.
set -euo pipefail
bin=${1:?usage: run-hub.sh BIN}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "$(uname)" = Darwin ]; then
	exec "$bin" hub --window
fi
echo "No display: running the hub headless (no tray icon, no dialogs)."
echo "Approve a waiting call from another terminal: $bin hub runs --pending, then $bin hub approve RUNID"
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
	echo "No D-Bus session: secrets cannot reach the keychain; '$bin doctor' says how to start one."
fi
exec "$bin" hub --headless
