#!/usr/bin/env bash
# with-session.sh CMD...: run CMD under a virtual display (Xvfb) and a private
# D-Bus session with an unlocked gnome-keyring, so keychain and UI tests use
# real services. An existing display is reused only when asked
# (CAPABILITIES_USE_DISPLAY=1); tests never touch the person's own keyring.
set -euo pipefail
inner='
	set -e
	# A fresh keyring in a throwaway home-like folder.
	export XDG_DATA_HOME="$(mktemp -d)"
	echo -n test-keyring-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
	exec "$@"
'
if [ "${CAPABILITIES_USE_DISPLAY:-}" = 1 ] && [ -n "${DISPLAY:-}" ]; then
	exec dbus-run-session -- bash -c "$inner" bash "$@"
fi
exec xvfb-run -a -s "-screen 0 1280x1024x24" dbus-run-session -- bash -c "$inner" bash "$@"
