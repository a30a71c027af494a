package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

func sessionsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions list|clear|export|import",
		Short: "Saved sign-in state per purpose (sessions: in the config)",
		Long: `Saved sign-in state per purpose: the cookies and the local and session
storage of an environment, sealed with sessions.key in the store. export and
import use Playwright's storage-state JSON ({cookies: [...], origins:
[{origin, localStorage: [{name, value}]}]}); session storage goes under an
extra key of each origin, sessionStorage: [{name, value}], which Playwright
ignores.`,
	}
	cmd.AddCommand(sessionsListCmd(g), sessionsClearCmd(g), sessionsExportCmd(g), sessionsImportCmd(g))
	return cmd
}

// sessionsListCmd is `sessions list`.
func sessionsListCmd(g *globals) *cobra.Command {
	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "The saved sessions: purpose, saved, expires, by what, what they hold (never a value)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			key, _ := run.SessionKey(cfg) // without one, what a session holds is not known
			return g.withStore(func(st store.Store) error {
				rows, err := listSessions(cmd.Context(), st, key)
				if err != nil || format == "json" {
					if err == nil {
						err = printJSON(cmd.OutOrStdout(), rows)
					}
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "PURPOSE\tSAVED\tEXPIRES\tBY\tBYTES\tHOLDS")
				now := time.Now()
				for _, s := range rows {
					exp := s.Expires.Local().Format(time.DateTime)
					if !s.Expires.After(now) {
						exp += " (expired)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.Purpose, s.Saved.Local().Format(time.DateTime), exp, s.SavedBy, s.Bytes, s.Holds)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&format, "format", "text", "text or json")
	return list
}

// sessionRow is one line of `sessions list`: the stored session and what
// it holds, if the key opens it ("empty" for a session with nothing in it,
// which signs no call in; "?" when it cannot be opened).
type sessionRow struct {
	store.Session
	Holds string `json:"holds"`
}

// listSessions is every saved session, each opened with key (nil: sessions
// off) to say what it holds.
func listSessions(ctx context.Context, st store.Store, key *store.SessionKey) ([]sessionRow, error) {
	ss, err := st.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, 0, len(ss))
	for _, s := range ss {
		row := sessionRow{Session: s, Holds: "?"}
		if key != nil {
			if state, _, err := run.LoadSession(ctx, st, key, s.Purpose); err == nil {
				row.Holds = state.Summary()
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// sessionsClearCmd is `sessions clear`.
func sessionsClearCmd(g *globals) *cobra.Command {
	var purpose string
	var all bool
	clear := &cobra.Command{
		Use:   "clear --purpose P | --all",
		Short: "Delete the saved session of a purpose (or all): the next call signs in",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (purpose == "") == !all {
				return usagef("give --purpose P or --all")
			}
			return g.withStore(func(st store.Store) error {
				n, err := st.DeleteSessions(cmd.Context(), purpose)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "deleted %d session(s)\n", n)
				return nil
			})
		},
	}
	clear.Flags().StringVar(&purpose, "purpose", "", "the purpose whose session to delete")
	clear.Flags().BoolVar(&all, "all", false, "delete every saved session")
	return clear
}

// sessionsExportCmd is `sessions export`.
func sessionsExportCmd(g *globals) *cobra.Command {
	var purpose string
	var out string
	export := &cobra.Command{
		Use:   "export --purpose P [--out FILE]",
		Short: "Write a purpose's session as Playwright storage-state JSON (it holds sign-in cookies: keep it safe)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := purposeKey(g, purpose)
			if err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				state, _, err := run.LoadSession(cmd.Context(), st, key, purpose)
				if err != nil {
					return fmt.Errorf("session of purpose %q: %w", purpose, err)
				}
				if out != "" {
					return writePrivateJSON(out, state)
				}
				return printJSON(cmd.OutOrStdout(), state)
			})
		},
	}
	export.Flags().StringVar(&purpose, "purpose", "", "the purpose whose session to export")
	export.Flags().StringVar(&out, "out", "", "write to FILE (mode 0600) instead of stdout")
	return export
}

// writePrivateJSON writes v as JSON to path, mode 0600 whatever was
// there: a session holds sign-in cookies. It writes a new file (created
// 0600 by os.CreateTemp) beside path and renames it over path; opening an
// existing file with O_TRUNC kept its mode (0644: the cookies readable by
// every user) and followed a symlink placed at path.
func writePrivateJSON(path string, v any) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = printJSON(f, v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// sessionsImportCmd is `sessions import`.
func sessionsImportCmd(g *globals) *cobra.Command {
	var purpose string
	var in string
	imp := &cobra.Command{
		Use:   "import --purpose P FILE|-",
		Short: "Save Playwright storage-state JSON as a purpose's session (for sessions.ttl)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := purposeKey(g, purpose)
			if err != nil {
				return err
			}
			in = args[0]
			var b []byte
			if in == "-" {
				b, err = io.ReadAll(cmd.InOrStdin())
			} else {
				b, err = os.ReadFile(in)
			}
			if err != nil {
				return usagef("%v", err)
			}
			state, err := browser.ParseStorageState(b)
			if err != nil {
				return usagef("%s: %v", in, err)
			}
			if refused := state.CookieProblems(); len(refused) > 0 {
				// Saved, they would be left out at every restore while
				// import had said saved; nothing is saved instead.
				return usagef("%s: Chromium would refuse %d cookie(s), so nothing was saved; fix or remove each, then import again:\n  %s",
					in, len(refused), strings.Join(refused, "\n  "))
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				if err := run.SaveSession(cmd.Context(), st, key, purpose, state, cfg.Sessions.TTL, "import"); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "saved the session of purpose %q: %s\n", purpose, state.Summary())
				if state.Empty() {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: purpose %q: %s\n", purpose, run.EmptySession)
				}
				return nil
			})
		},
	}
	imp.Flags().StringVar(&purpose, "purpose", "", "the purpose to save the session for")
	return imp
}

// sessionKey is sessions.key; without one, export and import are a usage
// error.
func (g *globals) sessionKey() (*store.SessionKey, error) {
	cfg, err := g.load()
	if err != nil {
		return nil, err
	}
	key, err := run.SessionKey(cfg)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if key == nil {
		return nil, usagef("sessions are off: set sessions.key (by default from TOOLWRIGHT_SESSION_KEY)")
	}
	return key, nil
}

// purposeKey is what export and import both need first: the --purpose they
// act on (a usage error without it) and the sessions key.
func purposeKey(g *globals, purpose string) (*store.SessionKey, error) {
	if purpose == "" {
		return nil, usagef("--purpose is required")
	}
	return g.sessionKey()
}
