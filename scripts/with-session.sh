#!/usr/bin/env bash
# with-session.sh CMD...: run CMD under a virtual display (Xvfb) and a private
# D-Bus session with an unlocked gnome-keyring, so keychain and UI tests use
# real services. When xfce4-panel is installed it runs too, as the desktop's
# tray host: it owns org.kde.StatusNotifierWatcher, so tray icons register
# the way they do on a person's desktop (CAPABILITIES_NO_TRAY_HOST=1 leaves
# it out). An existing display is reused only when asked
# (CAPABILITIES_USE_DISPLAY=1); tests never touch the person's own keyring
# or panel configuration.
set -euo pipefail
inner='
	set -e
	# A fresh keyring in a throwaway home-like folder.
	export XDG_DATA_HOME="$(mktemp -d)"
	keyring_log="$XDG_DATA_HOME/gnome-keyring.log"
	echo -n test-keyring-password | gnome-keyring-daemon --unlock --components=secrets >"$keyring_log" 2>&1 || true
	# The unlocked keyring must own the Secret Service: one the bus starts
	# on demand instead is locked, and every keychain test fails with
	# "failed to unlock". Say why here (often: no inotify instance left,
	# fs.inotify.max_user_instances, held by daemons left running).
	if command -v gdbus >/dev/null && ! gdbus wait --session --timeout 10 org.freedesktop.secrets; then
		echo "with-session.sh: gnome-keyring-daemon did not take the Secret Service; its output:" >&2
		cat "$keyring_log" >&2
		exit 1
	fi
	if [ "${CAPABILITIES_NO_TRAY_HOST:-}" != 1 ] && command -v xfce4-panel >/dev/null; then
		# The panel keeps its configuration in throwaway folders too.
		panel_home="$(mktemp -d)"
		XDG_CONFIG_HOME="$panel_home/config" XDG_CACHE_HOME="$panel_home/cache" \
			xfce4-panel --disable-wm-check >"$panel_home/panel.log" 2>&1 &
		panel=$!
		trap "kill $panel 2>/dev/null || true" EXIT
		if ! gdbus wait --session --timeout 30 org.kde.StatusNotifierWatcher; then
			echo "with-session.sh: xfce4-panel did not start its tray (log: $panel_home/panel.log)" >&2
			exit 1
		fi
		"$@"
		exit
	fi
	exec "$@"
'
if [ "${CAPABILITIES_USE_DISPLAY:-}" = 1 ] && [ -n "${DISPLAY:-}" ]; then
	exec dbus-run-session -- bash -c "$inner" bash "$@"
fi
exec xvfb-run -a -s "-screen 0 1280x1024x24" dbus-run-session -- bash -c "$inner" bash "$@"
