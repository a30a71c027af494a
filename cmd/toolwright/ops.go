package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

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

func tracesCmd(g *globals) *cobra.Command {
	var failed bool
	var since time.Duration
	var limit int
	var tool, format string
	cmd := &cobra.Command{
		Use:               "traces [TRACE_ID]",
		Short:             "List recent calls (newest first), or show one trace with its steps (JSON)",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completeTraceIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				out := cmd.OutOrStdout()
				if len(args) == 1 {
					t, err := st.GetTrace(cmd.Context(), args[0])
					if err != nil {
						return fmt.Errorf("trace %s: %w", args[0], err)
					}
					return printJSON(out, t)
				}
				f := store.TraceFilter{FailedOnly: failed, Tool: tool, Limit: limit}
				if since > 0 {
					f.Since = time.Now().Add(-since)
				}
				list, err := st.ListTraces(cmd.Context(), f)
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(out, list)
				}
				tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "TRACE\tSTART\tTOOL\tTASK\tCODE\tMS\tSTEPS")
				for _, t := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", t.ID, t.Start.Local().Format(time.DateTime), t.Tool, t.TaskID, t.Code, t.DurationMS, len(t.Steps))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&failed, "failed", false, "only calls that did not end ok")
	cmd.Flags().DurationVar(&since, "since", 0, "only calls started within this long (e.g. 1h)")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many")
	cmd.Flags().StringVar(&tool, "tool", "", "only this tool")
	_ = cmd.RegisterFlagCompletionFunc("tool", g.completeTools(false))
	formatFlag(cmd, &format)
	jsonAlias(cmd, &format)
	return cmd
}

func replayCmd(g *globals) *cobra.Command {
	var taskID string
	cmd := &cobra.Command{
		Use:   "replay TRACE_ID",
		Short: "Run a recorded call again with the same arguments and print the new envelope",
		Long: `Run a recorded call again with the same arguments and print the new envelope.

A call whose task_id already has a stored result (a success, or a failure
that is not retryable) is answered from that record, as idempotency
requires, and nothing runs; replay says so on stderr. Give --task-id to run
it again under another task_id (a write tool needs a grant for that one).`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeTraceIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, ctx, done, err := g.openApp(cmd, "")
			if err != nil {
				return err
			}
			defer done()
			t, err := a.Store.GetTrace(ctx, args[0])
			if err != nil {
				return fmt.Errorf("trace %s: %w", args[0], err)
			}
			raw, err := run.ReplayArgs(t)
			if err != nil {
				return err
			}
			if taskID != "" {
				if raw, err = withTaskID(raw, taskID); err != nil {
					return fmt.Errorf("trace %s: %w", t.ID, err)
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "replaying %s (%s) with %s\n", t.ID, t.Tool, raw)
			start := time.Now().Truncate(time.Millisecond) // traces keep milliseconds
			env, err := a.Engine.Call(ctx, run.Request{Tool: t.Tool, Args: raw})
			if err != nil {
				return err
			}
			if prev, err := a.Store.GetTrace(ctx, env.TraceID); err == nil && prev.Start.Before(start) {
				fmt.Fprintf(cmd.ErrOrStderr(), "nothing ran: task_id %q already has a stored result (trace %s); use --task-id to run the call again\n", env.TaskID, env.TraceID)
			}
			return printEnvelope(cmd, env)
		},
	}
	cmd.Flags().StringVar(&taskID, "task-id", "", "run under this task_id instead of the recorded one")
	return cmd
}

// withTaskID replaces the task_id in recorded arguments.
func withTaskID(raw json.RawMessage, taskID string) (json.RawMessage, error) {
	args := map[string]any{}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("recorded arguments: %w", err)
	}
	args["task_id"] = taskID
	return json.Marshal(args)
}

func auditCmd(g *globals) *cobra.Command {
	audit := &cobra.Command{Use: "audit", Short: "Export and verify the hash-chained audit log"}
	var since, until, format string
	export := &cobra.Command{
		Use:   "export",
		Short: "Export audit records as jsonl or csv",
		RunE: func(cmd *cobra.Command, args []string) error {
			from, err := parseWhen(since)
			if err != nil {
				return usagef("--since: %w", err)
			}
			to, err := parseWhen(until)
			if err != nil {
				return usagef("--until: %w", err)
			}
			if format == "json" {
				format = "jsonl" // one JSON object a line
			}
			if format != "jsonl" && format != "csv" {
				return usagef("--format: want jsonl (json) or csv, got %q", format)
			}
			return g.withStore(func(st store.Store) error {
				recs, err := st.ExportAudit(cmd.Context(), from, to)
				if err != nil {
					return err
				}
				return store.WriteAudit(cmd.OutOrStdout(), recs, format)
			})
		},
	}
	export.Flags().StringVar(&since, "since", "", "from this time (RFC 3339 or a duration ago, e.g. 24h)")
	export.Flags().StringVar(&until, "until", "", "up to this time (RFC 3339 or a duration ago)")
	export.Flags().StringVar(&format, "format", "jsonl", "jsonl (or json: the same) or csv")
	_ = export.RegisterFlagCompletionFunc("format", fixed("jsonl", "json", "csv"))
	var verifyFormat, headFlag string
	var allowEmpty bool
	verify := &cobra.Command{
		Use:   "verify [--head SEQ:HASH] [--allow-empty]",
		Short: "Check the audit chain; exit 1 and print the first bad record on tampering",
		Long: `Check the audit chain: seqs without gaps, every link, every hash (with
audit.key, every HMAC), and the head row. Exit 1 and print the first bad
record on tampering; exit 2 when there is no database. It never writes: no
database or schema is made, nothing is migrated.

A chain with no records fails too ("no records": a database emptied,
truncated or replaced by an empty one looks exactly like that), unless
--allow-empty says a new, unused store is expected; with audit.key set an
empty chain always fails.

--head SEQ:HASH (as printed earlier by "toolwright audit head" and kept
somewhere the database's writers cannot reach) also requires that record to
be there unchanged: a whole-chain rewrite or a cut tail is caught even
without audit.key.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(verifyFormat); err != nil {
				return err
			}
			var anchor *store.AuditAnchor
			if headFlag != "" {
				a, err := store.ParseAuditAnchor(headFlag)
				if err != nil {
					return usagef("--head: %w", err)
				}
				anchor = &a
			}
			out := cmd.OutOrStdout()
			fail := func(problem string, rec *store.AuditRecord) error {
				if verifyFormat == "json" {
					if err := printJSON(out, map[string]any{"ok": false, "problem": problem, "record": rec}); err != nil {
						return err
					}
					return exitCode(exitFailed)
				}
				fmt.Fprintln(out, problem)
				if rec != nil {
					b, _ := json.Marshal(rec)
					fmt.Fprintf(out, "first bad record: %s\n", b)
				}
				return exitCode(exitFailed)
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			key, err := cfg.AuditKey()
			if err != nil {
				return err
			}
			st, err := app.OpenStoreReadOnly(cfg)
			if errors.Is(err, store.ErrNoDatabase) {
				return noDatabase(cfg.StateDir, "verify", err)
			}
			if errors.Is(err, store.ErrNoSchema) {
				return fail(fmt.Sprintf("no audit chain: %v", err), nil)
			}
			if err != nil {
				return err
			}
			defer st.Close()
			var p *store.AuditProblem
			if anchor != nil {
				p, err = st.CheckAuditAnchor(cmd.Context(), *anchor)
			} else {
				p, err = st.CheckAudit(cmd.Context())
			}
			if err != nil {
				return err
			}
			if p != nil {
				return fail(p.String(), p.Record)
			}
			seq, hash, err := st.AuditHead(cmd.Context())
			if err != nil {
				return err
			}
			switch {
			case seq == 0 && len(key) > 0:
				return fail("no records: the audit chain is empty although audit.key is set (wiped, or replaced by an empty database)", nil)
			case seq == 0 && !allowEmpty:
				return fail("no records: the audit chain is empty (wiped, or replaced by an empty database); --allow-empty accepts a new, unused store", nil)
			}
			if verifyFormat == "json" {
				return printJSON(out, map[string]any{"ok": true, "records": seq, "head": hash, "anchored": anchor != nil})
			}
			fmt.Fprintf(out, "ok: %d records, head %s\n", seq, hash)
			if anchor != nil {
				fmt.Fprintf(out, "the anchored head %s is in the chain unchanged\n", anchor)
			}
			return nil
		},
	}
	formatFlag(verify, &verifyFormat)
	verify.Flags().StringVar(&headFlag, "head", "", "SEQ:HASH printed earlier by `toolwright audit head`: that record must still be in the chain, unchanged")
	verify.Flags().BoolVar(&allowEmpty, "allow-empty", false, "accept a chain with no records (a new, unused store without audit.key)")
	var headFormat string
	head := &cobra.Command{
		Use:   "head",
		Short: "Print the audit chain's head as SEQ:HASH, to keep elsewhere and check with audit verify --head",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(headFormat); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			st, err := app.OpenStoreReadOnly(cfg) // reading the head writes nothing
			if errors.Is(err, store.ErrNoDatabase) {
				return noDatabase(cfg.StateDir, "head", err)
			}
			if err != nil {
				return err
			}
			defer st.Close()
			seq, hash, err := st.AuditHead(cmd.Context())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if headFormat == "json" {
				return printJSON(out, map[string]any{"seq": seq, "hash": hash, "keyed": strings.HasPrefix(hash, store.KeyedPrefix)})
			}
			if seq == 0 {
				return usagef("the audit log is empty: no head to print yet")
			}
			fmt.Fprintln(out, store.AuditAnchor{Seq: seq, Hash: hash})
			return nil
		},
	}
	formatFlag(head, &headFormat)
	audit.AddCommand(export, verify, head)
	return audit
}

// noDatabase is an audit command's answer when the store it reads is not
// there (exit 2): reading the audit log never creates a database.
func noDatabase(stateDir, what string, err error) error {
	return usageError{fmt.Errorf("no audit database (state_dir %s): nothing to %s: %w", stateDir, what, err)}
}

// parseWhen reads an RFC 3339 time or a duration before now; "" is zero.
func parseWhen(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return time.Now().Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("want RFC 3339 (2026-11-30T10:00:00Z), a date (2026-11-30) or a duration ago (24h), got %q", s)
}

func grantCmd(g *globals) *cobra.Command {
	var tool, task, reason, format string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "grant --tool T --task ID --ttl 15m --reason \"...\"",
		Short: "Allow a write or destructive tool for one task_id, for a while",
		Long: `Allow a write or destructive tool for one task_id, for a while.

The grant goes into the state dir of the config (--config), or of the demo
with --demo: use the command a not_granted message prints.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			set, _ := workflow.Load(cfg) // a grant names a tool; other problems do not matter here
			w, ok := set.Tool(tool)
			switch {
			case !ok:
				return usagef("unknown tool %q (see toolwright tools)", tool)
			case !w.Writes():
				return usagef("tool %q is risk: read and needs no grant", tool)
			case ttl <= 0 || ttl > store.MaxGrantTTL:
				return usagef("--ttl must be more than 0 and at most %s, got %s", store.MaxGrantTTL, ttl)
			}
			// The store checks again; checked here, a bad --task or --reason
			// is a usage error (exit 2) before any database is opened. The
			// task_id is not trimmed: one with a space or a newline is
			// refused, never turned into another id.
			if err := store.CheckGrant(tool, task, ttl, strings.TrimSpace(reason)); err != nil {
				return usagef("%v", err)
			}
			// A reason is kept and printed: a secret typed into it is
			// redacted like every other string toolwright keeps.
			reason = policy.NewRedactor(cfg.RedactedValues()).Redact(reason)
			return g.withStore(func(st store.Store) error {
				gr, err := st.AddGrant(cmd.Context(), tool, task, ttl, reason, operator())
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(cmd.OutOrStdout(), gr)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s may run for task %s until %s\n", gr.ID, gr.Tool, gr.TaskID, gr.Expires.Local().Format(time.DateTime))
				return nil
			})
		},
	}
	formatFlag(cmd, &format)
	cmd.Flags().StringVar(&tool, "tool", "", "the tool to allow")
	_ = cmd.RegisterFlagCompletionFunc("tool", g.completeTools(true))
	cmd.Flags().StringVar(&task, "task", "", "the task_id the agent will call it with (1 to 128 of A-Z a-z 0-9 . _ : -)")
	cmd.Flags().DurationVar(&ttl, "ttl", 15*time.Minute, "how long the grant lives (at most 24h)")
	cmd.Flags().StringVar(&reason, "reason", "", fmt.Sprintf("why (kept in the audit trail; at most %d characters)", store.MaxGrantReason))
	for _, f := range []string{"tool", "task", "reason"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func operator() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

func grantsCmd(g *globals) *cobra.Command {
	var all bool
	var format string
	cmd := &cobra.Command{
		Use:   "grants",
		Short: "List live grants (--all: expired and revoked too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				list, err := st.ListGrants(cmd.Context(), all)
				if err != nil {
					return err
				}
				if format == "json" {
					if list == nil {
						list = []store.Grant{}
					}
					return printJSON(cmd.OutOrStdout(), list)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "GRANT\tTOOL\tTASK\tEXPIRES\tSTATE\tREASON")
				now := time.Now()
				for _, gr := range list {
					state := "live"
					switch {
					case gr.Revoked:
						state = "revoked"
					case !gr.Live(now):
						state = "expired"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", gr.ID, gr.Tool, gr.TaskID, gr.Expires.Local().Format(time.DateTime), state, gr.Reason)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "include expired and revoked grants")
	formatFlag(cmd, &format)
	return cmd
}

func revokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke GRANT_ID",
		Short: "Revoke a grant at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(func(st store.Store) error {
				if err := st.Revoke(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
				return nil
			})
		},
	}
}

func gcCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Apply retention now: delete traces and call artifacts older than retention.traces / retention.artifacts",
		Long: `Apply retention now, as serve does every hour: traces that started more
than retention.traces ago (default 30d) are deleted from the store, with
expired idempotency records, and each call's folder of files (screenshots,
page.html, downloads) older than retention.artifacts (default 7d) is removed.
The audit log and grants are never pruned. A retention of 0 keeps that kind.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				p, err := run.Prune(cmd.Context(), cfg, st, time.Now())
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if format == "json" {
					return printJSON(out, p)
				}
				fmt.Fprintf(out, "pruned %d traces (older than %s), %d idempotency records, %d call folders of artifacts (%d bytes, older than %s)\n",
					p.Traces, retentionText(cfg.Retention.Traces), p.IdempotencyRecords, p.ArtifactDirs, p.ArtifactBytes, retentionText(cfg.Retention.Artifacts))
				return nil
			})
		},
	}
	formatFlag(cmd, &format)
	return cmd
}

// retentionText writes a retention as the config does (30d), or "never" for 0.
func retentionText(d time.Duration) string {
	switch {
	case d == 0:
		return "never"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}
