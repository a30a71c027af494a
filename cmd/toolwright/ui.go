package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/run"
)

// DefaultUIAddr is where `toolwright ui` listens by default (loopback).
const DefaultUIAddr = "127.0.0.1:7077"

func uiCmd(g *globals) *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "ui [--http ADDR]",
		Short: "Serve a local web page of recent calls and their traces",
		Long: `Serve a web page of the recent calls in the state store: filter by tool,
code and time; open a call for its step timeline, envelope, arguments,
and, for a failure, the screenshot and the page's HTML (shown sandboxed,
scripts off). Its repairs page shows each pending repair proposal as a
diff of the selector map; apply writes it (comments kept, the old
locators as fallbacks), audited with who applied it.

It listens on loopback (` + DefaultUIAddr + `) unless --http names another
address. A configured token (http.token, by default from TOOLWRIGHT_TOKEN)
is required on every address, loopback too; off loopback one must be
configured. Open the printed address with ?token=TOKEN once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usagef("--http %q: want HOST:PORT such as %s", addr, DefaultUIAddr)
			}
			token, err := uiToken(cfg, addr)
			if err != nil {
				return err
			}
			st, err := app.OpenStore(cfg)
			if err != nil {
				return err
			}
			defer st.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			host, _, _ := net.SplitHostPort(addr)
			key, err := run.SessionKey(cfg)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "toolwright ui: sessions are off: %v\n", err)
			}
			if missing := cfg.MissingSecrets(); len(missing) > 0 {
				// Not silent: what the live views can still mask without them.
				fmt.Fprintf(cmd.ErrOrStderr(), "toolwright ui: secrets %s cannot be read here: live views still mask every element the engine typed a secret into (it marks them in the page) and every password field, but not other text showing those values; set them as the server does to mask that too\n", strings.Join(missing, ", "))
			}
			envs := &app.LiveEnvs{Store: st, Key: key, TTL: cfg.Sessions.TTL}
			ui := &htmlview.UI{Store: st, ArtifactsDir: cfg.Artifacts(), Token: token, Hosts: []string{host}, Envs: envs,
				Secrets: slices.Collect(maps.Values(cfg.SecretValues())), Repairs: &app.RepairDesk{Store: st, File: cfg.Selectors}}
			defer ui.Close()
			if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
				ui.Hosts = []string{"*"} // every interface: the token guards
			}
			srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			u := "http://" + ln.Addr().String() + "/"
			if token != "" {
				u += "?token=TOKEN"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "toolwright ui: %s (state in %s; Ctrl-C stops)\n", u, cfg.StateDir)
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "http", DefaultUIAddr, "listen on this address (loopback by default; a token is required off loopback)")
	return cmd
}

// uiToken is the token the ui requires: http.token whenever one is
// configured, on loopback too. The take-over drives a signed-in browser and
// its done overwrites a purpose's saved session, so an operator who set a
// token means every other local user and process to be refused as well;
// before, a loopback ui served /envs and the take-over input without it.
// Off loopback a token must be configured.
func uiToken(cfg *config.Config, addr string) (string, error) {
	token, err := httpToken(cfg)
	if err != nil {
		return "", usagef("%v: the ui requires the configured token, so it cannot start without reading it", err)
	}
	if token == "" && !config.IsLoopback(addr) {
		return "", usagef("--http %s is not loopback: set a token (http.token, by default from the TOOLWRIGHT_TOKEN environment variable)", addr)
	}
	return token, nil
}
