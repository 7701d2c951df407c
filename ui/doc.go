//go:build !headless

// Package ui is the desktop face of capabilities: the system tray icon and
// menu, the approval dialog that asks about tool calls (and takes a missing
// secret or sign-in), and the main window with approvals, runs, sources,
// policy and clients. It is built on Fyne.
//
// The UI knows the hub only through the Hub interface (hub.go), defined here,
// at the consumer: pending approvals, decisions, status, runs, the audit
// trail, policy, secrets and changed tools. The hub adapts to it.
//
// Threading: Run owns the Fyne main goroutine and one controller goroutine.
// Hub events arrive on hub goroutines and are queued without blocking; the
// controller goroutine calls the hub and hands results to widgets with
// fyne.Do. No widget callback calls the hub directly.
//
// Every decision the UI takes (which tray icon, the menu and its labels, the
// queue order and which call is shown after a decision, how a preview is
// folded, how a plan, a request and a changed definition's diff are laid
// out, which buttons are enabled, which keys decide) is a pure function in
// logic.go, tabslogic.go (the Sources, Runs and Clients tabs) and tray.go,
// tested by tables; the widgets only show the results.
//
// Screenshots of the real windows and of the tray menu as xfce4-panel shows
// it: make screenshots (it writes them into docs/). The tray itself is
// tested on a real StatusNotifierWatcher under scripts/with-session.sh.
package ui
