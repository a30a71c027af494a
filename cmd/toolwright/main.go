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
)

// exitCode is an error that only sets the process's exit status; what
// there was to say is already printed.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// globals holds the persistent flags.
type globals struct {
	config   string
	logLevel string
}

func main() {
	err := newRoot(os.Stdout, os.Stderr).Execute()
	var code exitCode
	switch {
	case err == nil:
	case errors.As(err, &code):
		os.Exit(int(code))
	default:
		fmt.Fprintln(os.Stderr, "toolwright:", err)
		os.Exit(1)
	}
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "toolwright",
		Short:         "Serve YAML browser workflows as MCP tools",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.config, "config", "", "config file (default ./toolwright.yaml when present)")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	root.AddCommand(
		validateCmd(g), toolsCmd(g), schemaCmd(), docsCmd(g), runCmd(g), selectorsCmd(g),
		serveCmd(g), demoCmd(g), tracesCmd(g), replayCmd(g), auditCmd(g), grantCmd(g), grantsCmd(g), revokeCmd(g),
		testCmd(g),
	)
	return root
}

// load reads the config named by --config, or the defaults (with the
// built-in workflows when there is no ./workflows folder).
func (g *globals) load() (*config.Config, error) {
	cfg, err := config.Load(g.config)
	if err != nil {
		return nil, err
	}
	if _, err := app.WithDefaults(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// logger makes the stderr logger for cmd.
func (g *globals) logger(cmd *cobra.Command, cfg *config.Config) (*slog.Logger, error) {
	return app.Logger(cmd.ErrOrStderr(), g.logLevel, cfg)
}
