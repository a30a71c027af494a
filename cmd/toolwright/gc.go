package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

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
