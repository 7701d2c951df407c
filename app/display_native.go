//go:build darwin || windows

package main

// runtimeHasNativeDisplay: a logged-in macOS or Windows session always has
// one.
const runtimeHasNativeDisplay = true
