#!/usr/bin/env bash
# need-debs.sh PKG...: install the Debian packages that are missing.
# As root it runs apt-get; otherwise sudo when it may; otherwise it prints
# the one command to run and fails. On other systems it says what to install.
set -euo pipefail
if ! command -v dpkg-query >/dev/null 2>&1; then
	case "$(uname -s)" in
	Darwin) echo "macOS: install the Xcode command line tools (xcode-select --install); nothing else is needed to build." ;;
	*) echo "Not a Debian system: install a C compiler, pkg-config, OpenGL and X11 development headers, Xvfb, D-Bus and gnome-keyring with your package manager ($*)." ;;
	esac
	exit 0
fi
missing=()
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
echo "Installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	echo "Missing Debian packages. Run this once, then try again:"
	echo "  sudo sh -c '$cmd'"
	exit 1
fi
