//go:build !linux

package keychain

const hint = "unlock the login keychain of this user account"
