package main

import (
	"context"
	"flag"
	"fmt"

	"capabilities.sh/capabilities/hub"
)

func hubTokenCommand() *command {
	return &command{
		name: "token", args: "", summary: "Print the bearer token of the HTTP endpoint (hub --http)",
		long: `Prints the token that every request to 'capabilities hub --http :PORT' must
carry as "Authorization: Bearer TOKEN". It lives in this home's keychain
entry hub/http-token and is made on first use. Keep it like a password: any
local program that has it can use your tools. 'capabilities install CLIENT
--http :PORT' writes it into a client that connects over HTTP.`,
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			tok, err := hub.HTTPToken(kc)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.Stdout, tok)
			return nil
		},
	}
}
