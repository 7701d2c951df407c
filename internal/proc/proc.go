// Package proc is what the hub needs from the OS about processes: a
// process group for each stdio child, so that closing a session also ends
// the servers the child started (an npx wrapper's node child, say), and
// whether a PID still names a live process, which decides whether a run's
// or a hub's owner is gone.
package proc
