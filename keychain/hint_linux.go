package keychain

const hint = "start a Secret Service (gnome-keyring or KeePassXC) in your desktop session; " +
	"headless: dbus-run-session -- sh -c 'echo pw | gnome-keyring-daemon --unlock --components=secrets; capabilities ...'"
