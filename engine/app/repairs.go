package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store"
)

// RepairDesk is the ui's view of repair proposals (htmlview.Repairs): the
// ones recent calls' traces hold for targets of the selector map File,
// and applying one to File.
type RepairDesk struct {
	Store store.Store
	File  string // the selector map (config selectors:)
	// Limit bounds the recent calls read (default 500).
	Limit int
}

// AuditRepairApply is the audit record's tool of an applied repair; its
// task_id says who applied it, purpose the target, trace_id the call it
// was proposed in.
const AuditRepairApply = "repair_apply"

// proposal is a repair proposal as a trace keeps it.
type proposal struct {
	id, target string
	trace      *store.Trace
	rec        *store.Repair
	locs       []selector.Locator
}

// PendingRepairs implements htmlview.Repairs.
func (d *RepairDesk) PendingRepairs(ctx context.Context) (*htmlview.RepairsView, error) {
	data, err := os.ReadFile(d.File)
	if err != nil {
		return nil, err
	}
	m, _ := selector.Parse(d.File, data)
	ps, err := d.proposals(ctx)
	if err != nil {
		return nil, err
	}
	v := &htmlview.RepairsView{File: d.File, Hash: hashOf(data)}
	done := map[string]bool{}
	for _, p := range ps {
		t, ok := m.Lookup(p.target)
		if done[p.target] || !ok || len(t.Locators) == 0 || t.Locators[0].Describe() == p.locs[0].Describe() {
			continue // a newer one shown, the target gone from the map, or applied
		}
		done[p.target] = true
		rv := htmlview.RepairView{ID: p.id, Target: p.target, TraceID: p.trace.ID, Tool: p.trace.Tool, Seen: p.trace.Start,
			Message: p.rec.Message, Locators: p.rec.Locators, Used: p.rec.Used}
		out, err := repair.Apply(data, p.target, p.locs)
		if err != nil {
			rv.Problem = err.Error()
		} else {
			rv.Diff = diffLines(string(data), string(out), 2)
		}
		v.Pending = append(v.Pending, rv)
	}
	return v, nil
}

// ApplyRepair implements htmlview.Repairs: the map is written (a new file
// renamed over it, its mode kept) only when it is still the one whose
// hash the person saw and it still loads; then the audit log records by.
func (d *RepairDesk) ApplyRepair(ctx context.Context, id, hash, by string) (string, error) {
	data, err := os.ReadFile(d.File)
	if err != nil {
		return "", err
	}
	if hashOf(data) != hash {
		return "", errors.New("the selector map changed since this page was shown: reload it and review the diff again")
	}
	p, err := d.proposal(ctx, id)
	if err != nil {
		return "", err
	}
	out, err := repair.Apply(data, p.target, p.locs)
	if err != nil {
		return "", err
	}
	_, before := selector.Parse(d.File, data)
	if _, after := selector.Parse(d.File, out); len(after) > len(before) {
		return "", fmt.Errorf("not applied: the map would not load: %v", after.Err())
	}
	if err := writeOver(d.File, out); err != nil {
		return "", err
	}
	rec := &store.AuditRecord{Tool: AuditRepairApply, TaskID: by, Purpose: p.target, TraceID: p.trace.ID, Risk: "write", Code: "applied"}
	if err := d.Store.AppendAudit(ctx, rec); err != nil {
		return "", fmt.Errorf("the map was written, but the audit log could not record it: %w", err)
	}
	return fmt.Sprintf("%s now starts with %s; its old locators are kept as fallbacks (%s)", p.target, p.locs[0].Describe(), d.File), nil
}

// proposals are the proposals of recent calls' traces, newest first.
func (d *RepairDesk) proposals(ctx context.Context) ([]proposal, error) {
	limit := d.Limit
	if limit <= 0 {
		limit = 500
	}
	ts, err := d.Store.ListTraces(ctx, store.TraceFilter{Limit: limit})
	if err != nil {
		return nil, err
	}
	var out []proposal
	for i := range ts {
		for j := range ts[i].Steps {
			if p, ok := proposalOf(&ts[i], j); ok {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// proposal is the proposal id ("TRACE_ID/STEP") names.
func (d *RepairDesk) proposal(ctx context.Context, id string) (proposal, error) {
	tid, step, _ := strings.Cut(id, "/")
	j, err := strconv.Atoi(step)
	if err != nil {
		return proposal{}, fmt.Errorf("no proposal %q", id)
	}
	t, err := d.Store.GetTrace(ctx, tid)
	if err != nil {
		return proposal{}, fmt.Errorf("no proposal %q: %w", id, err)
	}
	p, ok := proposalOf(t, j)
	if !ok {
		return proposal{}, fmt.Errorf("no proposal %q", id)
	}
	return p, nil
}

// proposalOf is the proposal step j of t holds, if any: its locators are
// read back from the entry it proposed.
func proposalOf(t *store.Trace, j int) (proposal, bool) {
	if j < 0 || j >= len(t.Steps) {
		return proposal{}, false
	}
	rp := t.Steps[j].Repair
	if rp == nil || rp.Status != repair.Proposed || rp.YAML == "" {
		return proposal{}, false
	}
	m, ps := selector.Parse("proposal", []byte(rp.YAML))
	names := m.Names()
	if len(ps) > 0 || len(names) != 1 || len(m.Targets[names[0]].Locators) == 0 {
		return proposal{}, false
	}
	return proposal{id: t.ID + "/" + strconv.Itoa(j), target: names[0], trace: t, rec: rp, locs: m.Targets[names[0]].Locators}, true
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:12])
}

// writeOver replaces path's content with b: a new file beside it, renamed
// over it, with its mode.
func writeOver(path string, b []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// diffLines is the change from a to b as one hunk: the lines that differ
// between their common beginning and end, with ctx lines around.
func diffLines(a, b string, ctx int) []htmlview.DiffLine {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var out []htmlview.DiffLine
	for _, l := range x[max(0, pre-ctx):pre] {
		out = append(out, htmlview.DiffLine{Op: " ", Text: l})
	}
	for _, l := range x[pre : len(x)-suf] {
		out = append(out, htmlview.DiffLine{Op: "-", Text: l})
	}
	for _, l := range y[pre : len(y)-suf] {
		out = append(out, htmlview.DiffLine{Op: "+", Text: l})
	}
	for _, l := range x[len(x)-suf : min(len(x), len(x)-suf+ctx)] {
		out = append(out, htmlview.DiffLine{Op: " ", Text: l})
	}
	return out
}
