package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/run"
)

const serveLong = `Serve the workflows as MCP tools.

Without --http, MCP runs on stdin and stdout (logs go to stderr). With
--http ADDR it serves Streamable HTTP at http://ADDR/mcp; --http= (empty)
takes http.addr from the config. Off loopback a token is required
(http.token, by default from TOOLWRIGHT_TOKEN) and every request must send
"Authorization: Bearer TOKEN".

Workflow files and the selector map are watched: a change that loads
cleanly replaces the tools (clients get notifications/tools/list_changed);
one with problems is logged and the previous tools stay.

A secret that cannot be read (its environment variable is not set, its
file is missing) does not stop the server: it is logged, and the tools that
need it answer a config_error envelope naming it while the others work.

--demo serves the built-in Acme demo instead: its site on a free loopback
port and its tools (search_catalog, product_details, add_to_cart), with its
own state dir; grant its write tools with toolwright grant --demo.

--record adds the tools an agent records a workflow with: page_open,
page_snapshot, page_click, page_fill, page_select, page_press, page_extract
and save_workflow, which drafts workflows/drafts/NAME.yaml (never served
until a person moves it). They follow the same grants, allowed hosts,
redaction and audit as every call. Each MCP session records in its own
environment, closed when the session ends or after browser.idle_timeout
without a call.`

func serveCmd(g *globals) *cobra.Command {
	s := &serveRun{g: g}
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR] [--record]",
		Short: "Serve the workflows as MCP tools over stdio (default) or Streamable HTTP at /mcp",
		Long:  serveLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return s.run(cmd) },
	}
	cmd.Flags().BoolVar(&s.recording, "record", false, "add the tools an agent records a workflow with (page_open, page_snapshot, page_click, ..., save_workflow)")
	cmd.Flags().StringVar(&s.httpAddr, "http", "", "serve Streamable HTTP at http://ADDR/mcp instead of stdio (--http= uses http.addr)")
	return cmd
}

// serveRun is one `toolwright serve`: its flags and what it runs.
type serveRun struct {
	g         *globals
	httpAddr  string
	recording bool
}

// run serves until the client leaves or a signal comes, then closes the
// engine (pruning stopped first).
func (s *serveRun) run(cmd *cobra.Command) error {
	cfg, stopDemo, err := s.g.loadRunnable(cmd)
	if err != nil {
		return err
	}
	defer stopDemo()
	log, err := s.g.logger(cmd, cfg)
	if err != nil {
		return err
	}
	useHTTP := cmd.Flags().Changed("http")
	addr, token, err := s.listen(useHTTP, cfg)
	if err != nil {
		return err
	}
	metrics, err := mcpserver.NewMetrics(nil)
	if err != nil {
		return err
	}
	a, err := app.OpenServer(cfg, log, metrics.Store)
	if err != nil {
		if le := (*lint.Error)(nil); errors.As(err, &le) {
			err = usageError{err}
		}
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		if err := a.Close(cctx); err != nil {
			log.Warn("shutdown", "err", err)
		}
	}()
	// Retention: prune old traces and artifacts now and hourly,
	// stopped before the store closes.
	pctx, stopPruning := context.WithCancel(ctx)
	pruning := make(chan struct{})
	go func() { defer close(pruning); a.Engine.KeepPruning(pctx, run.RetentionEvery) }()
	defer func() { stopPruning(); <-pruning }()
	// Handoffs a server before this one left open: finished as
	// expired or lost now and every HandoffSweepEvery.
	sweeping := make(chan struct{})
	go func() { defer close(sweeping); a.Engine.KeepHandoffs(pctx, run.HandoffSweepEvery) }()
	defer func() { stopPruning(); <-sweeping }()
	srv, err := mcpserver.New(a.Engine, mcpserver.Options{
		Name: "toolwright", Version: buildVersion(), Logger: log, Metrics: metrics,
		ShutdownGrace: cfg.ShutdownGrace,
		MaxSessions:   cfg.HTTP.MaxSessions, SessionIdleTimeout: cfg.HTTP.SessionIdleTimeout,
		Stateless: cfg.HTTP.Stateless,
	})
	if err != nil {
		return err
	}
	if s.recording {
		if err := srv.EnableRecording(cfg); err != nil {
			return err
		}
	}
	if err := srv.Watch(ctx, cfg); err != nil {
		log.Warn("hot reload is off", "err", err)
	}
	if useHTTP {
		return srv.ServeHTTP(ctx, addr, token)
	}
	// stdout is the protocol: nothing else may write to it (logs go to stderr)
	return srv.ServeIO(ctx, os.Stdin, os.Stdout)
}

// listen is the address and token of Streamable HTTP (with --http; the
// config's http.addr for --http=), checked: off loopback a token is needed.
func (s *serveRun) listen(useHTTP bool, cfg *config.Config) (addr, token string, err error) {
	if !useHTTP {
		return s.httpAddr, "", nil
	}
	addr = s.httpAddr
	if addr == "" {
		addr = cfg.HTTP.Addr
	}
	if token, err = httpToken(cfg); err != nil {
		return "", "", usageError{err}
	}
	if err := mcpserver.CheckHTTP(addr, token); err != nil {
		return "", "", usageError{err}
	}
	return addr, token, nil
}

// httpToken reads http.token. A token from an environment variable that is
// not set is no token (CheckHTTP then refuses a non-loopback address); a
// token file that cannot be read is an error.
func httpToken(cfg *config.Config) (string, error) {
	tok, err := cfg.HTTP.Token.Read()
	if err != nil && cfg.HTTP.Token.File != "" {
		return "", fmt.Errorf("http.token: %v", err)
	}
	return tok, nil
}
