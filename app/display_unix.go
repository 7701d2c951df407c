//go:build !darwin && !windows

package main

// runtimeHasNativeDisplay: on Linux and BSD a display is there only when
// DISPLAY or WAYLAND_DISPLAY says so.
const runtimeHasNativeDisplay = false
