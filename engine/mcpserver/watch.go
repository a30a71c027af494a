package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Reload loads the config's workflows and selector map again. With
// problems it keeps serving the current set and logs every problem with its
// position; with none it swaps the engine's set and the registered tools.
func (s *Server) Reload(cfg *config.Config) lint.Problems {
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		for _, p := range ps {
			s.log.Error("workflow problem", "problem", p.String(), "kind", p.Kind)
		}
		s.log.Warn("reload rejected: still serving the previous tools",
			"problems", len(ps), "tools", len(s.eng.Workflows().Names()))
		return ps
	}
	s.eng.SetWorkflows(set)
	added, changed, removed := s.Sync(set)
	s.log.Info("workflows reloaded", "tools", len(set.Names()), "added", added, "changed", changed, "removed", removed)
	return nil
}

// Watch reloads on every change to a workflow file or to the selector map
// until ctx ends. It watches the folders, not the files, because editors
// save by writing a new file and renaming it over the old one; a burst of
// events becomes one reload after Options.Debounce of quiet. Watch returns
// once watching has started.
func (s *Server) Watch(ctx context.Context, cfg *config.Config) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("hot reload: %w", err)
	}
	wfDir := filepath.Clean(cfg.Workflows)
	selDir, selFile := filepath.Split(filepath.Clean(cfg.Selectors))
	selDir = filepath.Clean(selDir)
	for _, dir := range unique(wfDir, selDir) {
		if err := w.Add(dir); err != nil {
			w.Close()
			return fmt.Errorf("hot reload: watch %s: %w", dir, err)
		}
	}
	relevant := func(ev fsnotify.Event) bool {
		dir, base := filepath.Split(ev.Name)
		dir = filepath.Clean(dir)
		if dir == selDir && base == selFile {
			return true
		}
		if dir != wfDir || strings.HasPrefix(base, ".") {
			return false
		}
		ext := filepath.Ext(base)
		return ext == ".yaml" || ext == ".yml"
	}
	s.log.Debug("watching for workflow changes", "workflows", wfDir, "selectors", cfg.Selectors)
	go func() {
		defer w.Close()
		var timer *time.Timer
		var fire <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				if timer != nil {
					timer.Stop()
				}
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Op == fsnotify.Chmod || !relevant(ev) {
					continue
				}
				s.log.Debug("workflow file changed", "file", ev.Name, "op", ev.Op.String())
				if timer == nil {
					timer = time.NewTimer(s.o.Debounce)
				} else {
					timer.Reset(s.o.Debounce)
				}
				fire = timer.C
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				s.log.Warn("hot reload watcher", "err", err)
			case <-fire:
				fire = nil
				s.Reload(cfg)
			}
		}
	}()
	return nil
}

func unique(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		dup := false
		for _, o := range out {
			dup = dup || o == d
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}
