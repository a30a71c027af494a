package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
)

func auditCmd(g *globals) *cobra.Command {
	audit := &cobra.Command{Use: "audit", Short: "Export and verify the hash-chained audit log"}
	audit.AddCommand(auditExportCmd(g), auditVerifyCmd(g), auditHeadCmd(g), rotateKeyCmd(g))
	return audit
}

// auditExportCmd is `toolwright audit export`.
func auditExportCmd(g *globals) *cobra.Command {
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
	return export
}

// auditVerify is `toolwright audit verify` and its flags.
type auditVerify struct {
	format, head string
	allowEmpty   bool
	oldKeyEnvs   []string
}

func auditVerifyCmd(g *globals) *cobra.Command {
	v := &auditVerify{}
	cmd := &cobra.Command{
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
without audit.key.

Across key rotations (toolwright audit rotate-key) audit.key alone checks
the whole chain: each rotation record is sealed by the new key and carries
the digest of every record before it. --old-key-env VAR (repeatable) gives
a retired key as well, to check its records' HMACs and the old key's seal
of its rotation too.`,
		RunE: func(cmd *cobra.Command, args []string) error { return v.run(cmd, g) },
	}
	formatFlag(cmd, &v.format)
	cmd.Flags().StringVar(&v.head, "head", "", "SEQ:HASH printed earlier by `toolwright audit head`: that record must still be in the chain, unchanged")
	cmd.Flags().BoolVar(&v.allowEmpty, "allow-empty", false, "accept a chain with no records (a new, unused store without audit.key)")
	cmd.Flags().StringArrayVar(&v.oldKeyEnvs, "old-key-env", nil, "an environment variable holding a retired audit key (before a rotation): its records' HMACs are checked too (repeatable)")
	return cmd
}

func (v *auditVerify) run(cmd *cobra.Command, g *globals) error {
	if err := checkFormat(v.format); err != nil {
		return err
	}
	var anchor *store.AuditAnchor
	if v.head != "" {
		a, err := store.ParseAuditAnchor(v.head)
		if err != nil {
			return usagef("--head: %w", err)
		}
		anchor = &a
	}
	out := cmd.OutOrStdout()
	fail := func(problem string, rec *store.AuditRecord) error { return v.fail(out, problem, rec) }
	cfg, err := g.load()
	if err != nil {
		return err
	}
	key, err := cfg.AuditKey()
	if err != nil {
		return err
	}
	oldKeys, err := readOldKeys(v.oldKeyEnvs)
	if err != nil {
		return err
	}
	st, err := app.OpenStoreReadOnly(cfg, oldKeys...)
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
	case seq == 0 && !v.allowEmpty:
		return fail("no records: the audit chain is empty (wiped, or replaced by an empty database); --allow-empty accepts a new, unused store", nil)
	}
	if v.format == "json" {
		return printJSON(out, map[string]any{"ok": true, "records": seq, "head": hash, "anchored": anchor != nil})
	}
	fmt.Fprintf(out, "ok: %d records, head %s\n", seq, hash)
	if anchor != nil {
		fmt.Fprintf(out, "the anchored head %s is in the chain unchanged\n", anchor)
	}
	return nil
}

// fail prints the problem verify found (and the first bad record) and
// makes the exit status 1.
func (v *auditVerify) fail(out io.Writer, problem string, rec *store.AuditRecord) error {
	if v.format == "json" {
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

// readOldKeys reads the retired audit keys --old-key-env names.
func readOldKeys(envs []string) ([][]byte, error) {
	var keys [][]byte
	for _, env := range envs {
		k, err := readKey(config.Secret{Env: env}, "--old-key-env")
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// auditHeadCmd is `toolwright audit head`.
func auditHeadCmd(g *globals) *cobra.Command {
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
	return head
}

// rotateKeyCmd is `toolwright audit rotate-key`.
func rotateKeyCmd(g *globals) *cobra.Command {
	var newEnv, newFile, format string
	cmd := &cobra.Command{
		Use:   "rotate-key (--new-key-env VAR | --new-key-file PATH)",
		Short: "Move the audit chain to a new audit.key, with a record sealed by the old key and the new",
		Long: `Move the audit chain from audit.key (the current key, from the config) to
a new key. The whole chain is checked with the current key first; a chain
that does not verify is not rotated. Then one rotation record is appended
(tool "audit rotate-key"): sealed by the new key, with the old key's seal
of it in grant_id and the digest of every record before it in trace_id.
Every keyed record names its key (hash hmac-sha256:KEYID:...).

Afterwards audit.key must be the new key: a server still holding the old
one records no more calls (store_unavailable) until it is restarted with
the new key, so rotate first, then restart every server with the new key.
"toolwright audit verify" with the new key checks the whole chain, the
records before the rotation through its digest; with --old-key-env it
checks their HMACs under the old key too, and an export of them still
verifies with the old key. A rotation forged without both keys fails
verify.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			var src config.Secret
			switch {
			case (newEnv == "") == (newFile == ""):
				return usagef("give the new key with exactly one of --new-key-env VAR or --new-key-file PATH")
			case newEnv != "":
				src = config.Secret{Env: newEnv}
			default:
				src = config.Secret{File: newFile}
			}
			newKey, err := readKey(src, "the new key")
			if err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			old, err := cfg.AuditKey()
			if err != nil {
				return err
			}
			if len(old) == 0 {
				return usagef("audit.key is not set: there is no key to rotate from (set audit.key, or %s, to the current key)", config.DefaultAuditKeyEnv)
			}
			// a store that is not there is not made
			probe, err := app.OpenStoreReadOnly(cfg)
			if errors.Is(err, store.ErrNoDatabase) || errors.Is(err, store.ErrNoSchema) {
				return noDatabase(cfg.StateDir, "rotate", err)
			}
			if err != nil {
				return err
			}
			probe.Close()
			return g.withStore(func(st store.Store) error {
				rec, err := st.RotateAuditKey(cmd.Context(), newKey)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if format == "json" {
					return printJSON(out, map[string]any{"seq": rec.Seq, "from": store.KeyID(old), "to": store.KeyID(newKey), "head": rec.Hash})
				}
				fmt.Fprintf(out, "rotated at seq %d: key %s -> key %s\n", rec.Seq, store.KeyID(old), store.KeyID(newKey))
				fmt.Fprintln(out, "now set audit.key to the new key on every server and restart them: until then they record no calls")
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&newEnv, "new-key-env", "", "the environment variable holding the new key")
	cmd.Flags().StringVar(&newFile, "new-key-file", "", "a file holding the new key (a trailing newline is dropped)")
	formatFlag(cmd, &format)
	return cmd
}

// readKey reads an audit key from src; what names it in errors.
func readKey(src config.Secret, what string) ([]byte, error) {
	v, err := src.Read()
	if err != nil {
		return nil, usagef("%s: %w", what, err)
	}
	if v == "" {
		return nil, usagef("%s is empty", what)
	}
	return []byte(v), nil
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
