package main

import (
	"fmt"
	"os"
	"os/signal"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/testrun"
)

func testCmd(g *globals) *cobra.Command {
	var runRE, format string
	cmd := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run YAML test cases against fixture pages served locally (exit 0 when all pass)",
		Long: "Run the cases of YAML test files or folders (default: the tests folder next to the config).\n" +
			"Each case calls a tool with arguments and compares envelope fields, on real Chromium,\n" +
			"against a folder the file serves on loopback, with a fresh state dir. Prints a line per case\n" +
			"and `N passed, M failed`; exit 0 when none failed, 1 otherwise. A case whose tool reads a\n" +
			"secret that cannot be read is skipped (SKIP, naming it), not failed. Engine logs go to stderr at\n" +
			"level error unless --log-level is given. The format is described in examples/demo/tests/README.md.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format: want text or json, got %q", format)
			}
			var filter *regexp.Regexp
			if runRE != "" {
				re, err := regexp.Compile(runRE)
				if err != nil {
					return usagef("--run: %v", err)
				}
				filter = re
			}
			// Not g.load: the built-in workflows, when needed, go into the
			// run's temporary state dir, not the config's.
			cfg, err := config.Load(g.config)
			if err != nil {
				return usageError{err}
			}
			adjustBrowser(cmd, cfg)
			level := g.logLevel
			if !cmd.Flags().Changed("log-level") {
				level = "error" // the case lines say what happened
			}
			log, err := app.Logger(cmd.ErrOrStderr(), level, g.logFormat, cfg)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{testrun.DefaultDir(cfg)}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			out := cmd.OutOrStdout()
			opts := testrun.Options{Config: cfg, Filter: filter, Logger: log}
			if format == "text" {
				opts.Out = out
			}
			rep, err := testrun.Run(ctx, args, opts)
			if err != nil && rep == nil {
				return err
			}
			if format == "json" {
				if err := printJSON(out, rep); err != nil {
					return err
				}
			} else {
				for _, p := range rep.Problems {
					fmt.Fprintln(out, p)
				}
				fmt.Fprintln(out, rep.Summary())
			}
			if err != nil {
				return err
			}
			if !rep.OK() {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&runRE, "run", "", "run only the cases whose name matches this regular expression (and the cases they use)")
	formatFlag(cmd, &format)
	return cmd
}
