package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"capabilities.sh/capabilities/internal/editdist"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one node of the command tree.
type command struct {
	name    string
	args    string // e.g. "NAME [-- COMMAND ARGS...]"
	summary string
	long    string
	flags   func(fs *flag.FlagSet) // registers flags
	run     func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error
	subs    []*command
	hidden  bool
	// protocol says stdout carries a protocol (mcp, the sandbox worker):
	// it is written as is, not through termSafe.
	protocol bool
}

// usageError is bad usage: exit code 2.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// hinted is an error with a hint for the person.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// hintOf finds a hint anywhere in err's chain.
func hintOf(err error) string {
	var h *hinted
	if errors.As(err, &h) {
		return h.hint
	}
	var hh interface{ Hint() string }
	if errors.As(err, &hh) {
		return hh.Hint()
	}
	return ""
}

func run(ctx context.Context, e *env) int {
	root := rootCommand()
	return root.execute(ctx, e, "capabilities", e.Args)
}

func (c *command) execute(ctx context.Context, e *env, path string, args []string) int {
	if _, ok := e.Stderr.(termSafe); !ok {
		safe := *e
		safe.Stderr = termSafe{e.Stderr}
		e = &safe
	}
	// A command with subcommands and its own run (hub) runs itself when no
	// subcommand is named.
	if len(c.subs) > 0 && c.run != nil && (len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelp(args[0]))) {
		return c.invoke(ctx, e, path, args)
	}
	if len(c.subs) > 0 {
		if len(args) == 0 {
			c.printHelp(e.Stderr, path)
			return exitUsage
		}
		// capabilities --version is the version command, as people expect
		// of any command line program.
		if path == "capabilities" && (args[0] == "--version" || args[0] == "-version") {
			if sub := c.find("version"); sub != nil {
				return sub.invoke(ctx, e, path+" version", args[1:])
			}
		}
		switch args[0] {
		case "-h", "--help", "-help", "help":
			if args[0] == "help" && len(args) > 1 {
				if sub := c.find(args[1]); sub != nil {
					sub.printHelp(e.Stdout, path+" "+sub.name)
					return exitOK
				}
			}
			c.printHelp(e.Stdout, path)
			return exitOK
		}
		sub := c.find(args[0])
		if sub == nil {
			msg := fmt.Sprintf("%s: unknown command %q", path, args[0])
			if near := closest(args[0], c.visibleNames()); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			fmt.Fprintf(e.Stderr, "%s\nhint: run '%s --help' for the commands\n", msg, path)
			return exitUsage
		}
		if sub.run != nil && len(sub.subs) == 0 {
			return sub.invoke(ctx, e, path+" "+sub.name, args[1:])
		}
		return sub.execute(ctx, e, path+" "+sub.name, args[1:])
	}
	return c.invoke(ctx, e, path, args)
}

func (c *command) invoke(ctx context.Context, e *env, path string, args []string) int {
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(e.Stdout, path)
		return exitOK
	}
	if err != nil {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			if near := closest(strings.TrimLeft(name, "-"), names); near != "" {
				msg += fmt.Sprintf(" (did you mean --%s?)", near)
			}
		}
		fmt.Fprintf(e.Stderr, "%s: %s\nhint: run '%s --help' for usage\n", path, msg, path)
		return exitUsage
	}
	if _, ok := e.Stdout.(termSafe); !ok && !c.protocol {
		safe := *e
		safe.Stdout = termSafe{e.Stdout}
		e = &safe
	}
	err = c.run(ctx, e, fs, rest)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.Stderr, "%s: %s\nhint: usage: %s %s\n", path, ue.msg, path, c.args)
		return exitUsage
	}
	var silent *exitError
	if errors.As(err, &silent) {
		return silent.code
	}
	printError(e.Stderr, path, err)
	return exitFailure
}

// printError writes a failed command's error on one line after the
// command's path, and its hint on the next. An error that says its hint in
// its own words (the keychain's) has it on the hint line only.
func printError(w io.Writer, path string, err error) {
	msg, h := oneLine(err.Error()), hintOf(err)
	msg = strings.Replace(msg, " (hint: "+h+")", "", 1)
	fmt.Fprintf(w, "%s: %s\n", path, msg)
	if h != "" {
		fmt.Fprintf(w, "hint: %s\n", h)
	}
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// exitError ends a command with a code after it printed its own output.
type exitError struct{ code int }

func (x *exitError) Error() string { return fmt.Sprintf("exit %d", x.code) }

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.ReplaceAll(s, "\n", "; ")
}

// parseInterspersed parses flags anywhere among the arguments; "--" ends
// flag parsing and everything after it is positional, verbatim.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	if tail != nil {
		rest = append(rest, tail...)
	}
	return rest, nil
}

func (c *command) find(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (c *command) visibleNames() []string {
	var out []string
	for _, s := range c.subs {
		if !s.hidden {
			out = append(out, s.name)
		}
	}
	return out
}

func (c *command) printHelp(w io.Writer, path string) {
	if c.summary != "" {
		fmt.Fprintf(w, "%s\n\n", c.summary)
	}
	if len(c.subs) > 0 {
		fmt.Fprintf(w, "Usage: %s COMMAND\n\nCommands:\n", path)
		width := 0
		for _, s := range c.subs {
			if !s.hidden && len(s.name) > width {
				width = len(s.name)
			}
		}
		for _, s := range c.subs {
			if !s.hidden {
				fmt.Fprintf(w, "  %-*s  %s\n", width, s.name, s.summary)
			}
		}
		fmt.Fprintf(w, "\nRun '%s COMMAND --help' for a command's usage.\n", path)
	} else {
		fmt.Fprintf(w, "Usage: %s %s\n", path, c.args)
	}
	if c.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.long))
	}
	if c.flags != nil {
		fs := flag.NewFlagSet(path, flag.ContinueOnError)
		c.flags(fs)
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if len(names) > 0 {
			sort.Strings(names)
			fmt.Fprintf(w, "\nFlags:\n")
			for _, n := range names {
				f := fs.Lookup(n)
				typ, usage := flag.UnquoteUsage(f)
				dash := "--"
				fmt.Fprintf(w, "  %s%s %s\n      %s", dash, n, typ, usage)
				if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
					fmt.Fprintf(w, " (default %s)", f.DefValue)
				}
				fmt.Fprintln(w)
			}
		}
	}
}

// closest returns the candidate nearest to s by edit distance, if close.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editdist.Levenshtein(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }
