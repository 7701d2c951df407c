package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func rootCommand() *command {
	return &command{
		name:    "capabilities",
		summary: "capabilities: a local code-mode MCP hub. Every MCP client sees three tools (search, describe, execute) over all of your MCP servers, REST APIs (OpenAPI) and skills.",
		subs: []*command{
			searchCommand(),
			describeCommand(),
			executeCommand(),
			mcpCommand(),
			hubCommand(),
			installCommand(),
			setupCommand(),
			uninstallCommand(),
			doctorCommand(),
			sourceCommand(),
			connectionCommand(),
			policyCommand(),
			profileCommand(),
			versionCommand(),
			workerCmd(),
			openapiCmd(),
		},
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		args:    "",
		summary: "Print the version",
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			rev := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						rev = " (" + s.Value[:12] + ")"
					}
				}
			}
			fmt.Fprintf(e.Stdout, "capabilities %s%s %s %s/%s\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
