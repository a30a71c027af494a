package run

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/tick"
)

// Pruned counts what one retention pass removed.
type Pruned struct {
	Traces             int64 `json:"traces"`
	IdempotencyRecords int64 `json:"idempotency_records"`
	ArtifactDirs       int   `json:"artifact_dirs"`
	ArtifactBytes      int64 `json:"artifact_bytes"`
}

// Prune applies retention: traces that started more than retention.traces
// before now are deleted from the store (with expired idempotency records;
// the audit log and grants are never pruned), and each call's folder of
// files — artifacts_dir/TRACE_ID (screenshots, page.html) and
// state_dir/downloads/TRACE_ID, and a download folder a step could not
// remove, state_dir/downloads/.incoming/TRACE_ID.N — whose newest file is
// older than retention.artifacts is removed. A retention of 0 keeps that kind forever.
// Only folders named like trace ids are touched, so a misconfigured folder
// loses nothing else. It goes on past a failure and returns every error.
func Prune(ctx context.Context, cfg *config.Config, st store.Store, now time.Time) (Pruned, error) {
	var out Pruned
	var errList []error
	if st != nil {
		var older time.Time
		if cfg.Retention.Traces > 0 {
			older = now.Add(-cfg.Retention.Traces)
		}
		p, err := st.Purge(ctx, older)
		if err != nil {
			errList = append(errList, err)
		}
		out.Traces, out.IdempotencyRecords = p.Traces, p.IdempotencyRecords
	}
	if cfg.Retention.Artifacts > 0 {
		cut := now.Add(-cfg.Retention.Artifacts)
		downloads := filepath.Join(cfg.StateDir, "downloads")
		for _, root := range []string{cfg.Artifacts(), downloads, filepath.Join(downloads, incomingDir)} {
			n, size, err := pruneCallDirs(root, cut)
			out.ArtifactDirs += n
			out.ArtifactBytes += size
			if err != nil {
				errList = append(errList, err)
			}
		}
	}
	return out, errors.Join(errList...)
}

// pruneCallDirs removes each folder right under root named like a trace id
// whose newest entry was modified before cut.
func pruneCallDirs(root string, cut time.Time) (int, int64, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	n, total := 0, int64(0)
	var errList []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), store.TraceIDPrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		newest, size, err := newestIn(dir)
		if err != nil {
			errList = append(errList, err)
			continue
		}
		if !newest.Before(cut) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errList = append(errList, err)
			continue
		}
		n++
		total += size
	}
	return n, total, errors.Join(errList...)
}

// newestIn is the latest modification time of dir and everything in it,
// and the bytes of its files.
func newestIn(dir string) (time.Time, int64, error) {
	var newest time.Time
	var size int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		if !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	return newest, size, err
}

// RetentionEvery is how often a server applies retention.
const RetentionEvery = time.Hour

// KeepPruning applies retention (Prune) now and then every `every` until
// ctx ends, logging what each pass removed; `serve` runs it with
// RetentionEvery.
func (e *Engine) KeepPruning(ctx context.Context, every time.Duration) {
	tick.NowAndEvery(ctx.Done(), every, func() {
		p, err := Prune(ctx, e.cfg, e.store, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.Warn("retention: pruning failed", "err", e.redactor.Redact(err.Error()), "traces", p.Traces, "artifact_dirs", p.ArtifactDirs)
		case p.Traces > 0 || p.ArtifactDirs > 0 || p.IdempotencyRecords > 0:
			e.log.Info("retention: pruned", "traces", p.Traces, "idempotency_records", p.IdempotencyRecords,
				"artifact_dirs", p.ArtifactDirs, "artifact_bytes", p.ArtifactBytes)
		}
	})
}
