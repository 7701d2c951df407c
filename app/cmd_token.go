package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/keychain"
)

func hubTokenCommand() *command {
	var rotate bool
	return &command{
		name: "token", args: "[--rotate]", summary: "Print the bearer token of the HTTP endpoint (hub --http), or replace it",
		long: `Prints the token that every request to 'capabilities hub --http :PORT' must
carry as "Authorization: Bearer TOKEN". It lives in this home's keychain
entry hub/http-token and is made on first use. Keep it like a password: any
local program that has it can use your tools. 'capabilities install CLIENT
--http :PORT' writes it into a client that connects over HTTP.

--rotate replaces it with a new token: a running hub's endpoint accepts only
the new one from then on, and the clients' files that carry the old one
(written by install --http) get the new one, after a backup. The new token
is not printed; 'capabilities hub token' prints it.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&rotate, "rotate", false, "replace the token with a new one everywhere it is used")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			if rotate {
				return rotateHTTPToken(ctx, e, kc)
			}
			tok, err := localapi.HTTPToken(kc)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.Stdout, tok)
			return nil
		},
	}
}

// rotateHTTPToken replaces the HTTP endpoint's token in the keychain, has a
// running hub take it, and rewrites the client files that carry the old one.
func rotateHTTPToken(ctx context.Context, e *env, kc keychain.Keychain) error {
	old, tok, err := localapi.RotateHTTPToken(kc)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, "Made a new token for the HTTP endpoint (keychain entry hub/http-token).")
	var failed []error
	switch c, err := e.client(ctx); {
	case err == nil:
		var res struct{ Serving bool }
		err := c.Do(ctx, "POST", "/v1/http-token/reload", struct{}{}, &res)
		c.Close()
		var apiErr *localapi.APIError
		switch {
		case errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound:
			failed = append(failed, withHint(errors.New("the running hub is an older binary and still takes the old token"), "restart it: capabilities hub stop, then capabilities hub --http :PORT"))
		case err != nil:
			failed = append(failed, fmt.Errorf("telling the running hub: %w", err))
		case res.Serving:
			fmt.Fprintln(e.Stdout, "The running hub's HTTP endpoint takes only the new token from now on.")
		default:
			fmt.Fprintln(e.Stdout, "The running hub serves no HTTP endpoint; it takes the new token when started with --http.")
		}
	case errors.Is(err, localapi.ErrNoHub):
		fmt.Fprintln(e.Stdout, "No hub runs; it takes the new token when it starts.")
	default:
		failed = append(failed, err)
	}
	now := time.Now()
	updated := 0
	for _, cc := range clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS) {
		if old == "" {
			break // there was no token to replace
		}
		res, err := clients.ReplaceHTTPToken(cc, old, tok, now)
		if err != nil {
			failed = append(failed, withHint(fmt.Errorf("%s: %w", cc.Client, err), fmt.Sprintf("install it again: capabilities install %s --http :PORT", cc.Client)))
			continue
		}
		if res.Changed {
			updated++
			fmt.Fprintf(e.Stdout, "%s now carries the new token (%s; backup %s). Restart %s to pick it up.\n", cc.Client, res.Path, res.Backup, cc.Client)
		}
	}
	if updated == 0 {
		fmt.Fprintln(e.Stdout, "No client's file carried the old token.")
	}
	// Each failure on its own line, then one error for the exit code.
	for _, err := range failed[min(1, len(failed)):] {
		printError(e.Stderr, "capabilities hub token", err)
	}
	if len(failed) > 0 {
		return failed[0]
	}
	return nil
}
