// Command toolwright serves YAML browser workflows as MCP tools.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Exit statuses (DESIGN.md "CLI"): 0 ok, 1 the work failed or found
// problems, 2 a usage or configuration error.
const (
	exitFailed = 1
	exitUsage  = 2
)

// exitCode is an error that only sets the process's exit status; what
// there was to say is already printed.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a bad flag, argument or config: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef makes a usage error.
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// globals holds the persistent flags.
type globals struct {
	config    string
	logLevel  string
	logFormat string
	demo      bool
}

func main() {
	root := newRoot(os.Stdout, os.Stderr)
	os.Exit(exitStatus(root, root.Execute(), os.Stderr))
}

// exitStatus is the process's exit status for what root.Execute returned;
// it prints an error that is not only a status on stderr. An error before
// the command ran (unknown command, wrong arguments, a bad or missing
// flag), a bad config and an engine's app.UsageError are usage errors.
func exitStatus(root *cobra.Command, err error, stderr io.Writer) int {
	var code exitCode
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintln(stderr, "toolwright:", err)
	var appUsage app.UsageError
	var cfgErr *config.Error
	if errors.As(err, &usage) || errors.As(err, &appUsage) || errors.As(err, &cfgErr) || root.Annotations["ran"] == "" {
		return exitUsage
	}
	return exitFailed
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "toolwright",
		Short:         "Serve YAML browser workflows as MCP tools",
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.config, "config", "", "config file (default ./toolwright.yaml when present)")
	pf.StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	pf.StringVar(&g.logFormat, "log-format", "text", "log format: text or json (logs go to stderr)")
	pf.BoolVar(&g.demo, "demo", false, "use the built-in Acme demo: its tools, its site and its own state dir")
	_ = root.RegisterFlagCompletionFunc("log-level", fixed("debug", "info", "warn", "error"))
	_ = root.RegisterFlagCompletionFunc("log-format", fixed("text", "json"))
	root.AddCommand(
		validateCmd(g), toolsCmd(g), schemaCmd(g), docsCmd(g), runCmd(g), selectorsCmd(g),
		serveCmd(g), demoCmd(g), tracesCmd(g), replayCmd(g), auditCmd(g), grantCmd(g), grantsCmd(g), revokeCmd(g),
		testCmd(g), initCmd(), uiCmd(g), gcCmd(g), clientsCmd(g), recordCmd(g), sessionsCmd(g),
	)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	markUsage(root)
	return root
}

// markUsage makes every error cobra finds before a command runs (unknown
// command, wrong number of arguments, missing required flag) a usage error.
func markUsage(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			cmd.Root().Annotations = map[string]string{"ran": "1"}
			return run(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		markUsage(sub)
	}
}

// load reads the config named by --config, or the defaults (with the
// built-in workflows when there is no ./workflows folder). With --demo it
// is the demo's config (the site is not started: see startDemo). A config
// that cannot be read is a usage error.
func (g *globals) load() (*config.Config, error) {
	cfg, err := config.Load(g.config)
	if err != nil {
		return nil, usageError{err}
	}
	if g.demo {
		cfg, err = app.DemoConfig(cfg, app.DemoStateDir(cfg))
		if err != nil {
			return nil, err
		}
		return cfg, nil
	}
	if _, err := app.WithDefaults(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// loadRunnable is load for a command that runs calls: with --demo it also
// serves the demo site on loopback (stop closes it) and points the demo's
// workflows at it.
func (g *globals) loadRunnable(cmd *cobra.Command) (cfg *config.Config, stop func(), err error) {
	if !g.demo {
		cfg, err = g.load()
		if err == nil {
			adjustBrowser(cmd, cfg)
		}
		return cfg, func() {}, err
	}
	base, err := config.Load(g.config)
	if err != nil {
		return nil, nil, usageError{err}
	}
	adjustBrowser(cmd, base)
	d, err := app.StartDemo(base, app.DemoStateDir(base), "")
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "toolwright demo: the Acme site is at %s, state in %s\n", d.SiteURL, d.Config.StateDir)
	return d.Config, func() { _ = d.Close() }, nil
}

// browserAdjuster is the context key of a func(*config.Config) that
// adjusts the browser config of a command that opens browsers, before it
// opens any. main sets none; this package's tests, which run the commands
// in-process, set one that opens their environments in the one Chromium
// the test binary shares (internal/testbrowser), as the engine's test
// packages do, instead of a Chromium launched per command.
type browserAdjuster struct{}

func adjustBrowser(cmd *cobra.Command, cfg *config.Config) {
	if f, ok := cmd.Context().Value(browserAdjuster{}).(func(*config.Config)); ok {
		f(cfg)
	}
}

// logger makes the stderr logger for cmd.
func (g *globals) logger(cmd *cobra.Command, cfg *config.Config) (*slog.Logger, error) {
	log, err := app.Logger(cmd.ErrOrStderr(), g.logLevel, g.logFormat, cfg)
	if err != nil {
		return nil, usageError{err}
	}
	if cfg != nil && cfg.StateDirNote != "" {
		log.Warn(cfg.StateDirNote) // an unwritable home: state in the temp dir
	}
	return log, nil
}

// fixed completes a flag from a fixed list of values.
func fixed(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// loadSet loads the config and a clean workflow set.
func (g *globals) loadSet() (*workflow.Set, error) {
	cfg, err := g.load()
	if err != nil {
		return nil, err
	}
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		return nil, usagef("the workflows have problems (run toolwright validate):\n%w", ps.Err())
	}
	return set, nil
}

// withStore opens the state store for an operator command.
func (g *globals) withStore(fn func(st store.Store) error) error {
	cfg, err := g.load()
	if err != nil {
		return err
	}
	st, err := app.OpenStore(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}
