package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
)

func demoCmd(g *globals) *cobra.Command {
	var query string
	var pages int
	var stateDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Serve the built-in Acme demo site on loopback and run one real tool call on it",
		Long: "demo starts the bundled Acme supplier site on a free loopback port, loads the demo workflows\n" +
			"(search_catalog, product_details, add_to_cart) and runs search_catalog on real Chromium:\n" +
			"sign in, search, read result pages. It prints the envelope the agent would get.\n" +
			"To serve the demo tools to an MCP client, use `toolwright serve --demo`.",
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := config.Load(g.config)
			if err != nil {
				return usageError{err}
			}
			if stateDir == "" {
				stateDir = app.DemoStateDir(base)
			}
			d, err := app.StartDemo(base, stateDir, "")
			if err != nil {
				return err
			}
			defer d.Close()
			log, err := g.logger(cmd, d.Config)
			if err != nil {
				return err
			}
			a, err := app.Open(d.Config, log)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			defer a.Close(context.WithoutCancel(ctx))
			fmt.Fprintf(cmd.ErrOrStderr(), "demo site: %s\ncalling search_catalog {query: %q, max_pages: %d} on real Chromium...\n", d.SiteURL, query, pages)
			raw := fmt.Sprintf(`{"query":%q,"max_pages":%d}`, query, pages)
			env, err := a.Engine.Call(ctx, run.Request{Tool: "search_catalog", Args: []byte(raw), Progress: func(done, total int, msg string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "  [%d/%d] %s\n", done, total, msg)
			}})
			if err != nil {
				return err
			}
			defer fmt.Fprintf(cmd.ErrOrStderr(), "\ntrace %s is stored under %s (toolwright traces --demo %s)\nserve these tools to an MCP client: toolwright serve --demo\n", env.TraceID, stateDir, env.TraceID)
			return printEnvelope(cmd, env)
		},
	}
	cmd.Flags().StringVar(&query, "query", "", "search words")
	cmd.Flags().IntVar(&pages, "pages", 3, "result pages to read (1-5)")
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "where the demo keeps its state (default: the demo's own state dir, which the --demo flag of other commands reads)")
	return cmd
}
