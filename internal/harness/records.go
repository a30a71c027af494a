package harness

import (
	"context"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

// Restart closes the engine, its browsers and its store, and opens new ones
// on the same database and state dir, as a server restart would.
func (h *Harness) Restart() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Eng.Close(ctx); err != nil {
		h.t.Fatalf("close engine: %v", err)
	}
	path := h.St.Where()
	if err := h.St.Close(); err != nil {
		h.t.Fatalf("close store: %v", err)
	}
	st := openStore(h.t, path)
	bm := newBrowsers(h.t, h.Cfg)
	eng, err := run.New(run.Options{Config: h.Cfg, Set: h.Eng.Workflows(), Browsers: bm, Store: st}) // the step timeout from h.Cfg, as h.Eng
	if err != nil {
		h.t.Fatal(err)
	}
	h.St, h.BM, h.Eng = st, bm, eng
}

// Browsers is the number of live browser processes of the harness.
func (h *Harness) Browsers() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return h.BM.Stats(ctx).Browsers
}

// Traces lists the calls recorded for a task_id.
func (h *Harness) Traces(taskID string) []store.Trace {
	h.t.Helper()
	list, err := h.St.ListTraces(context.Background(), store.TraceFilter{TaskID: taskID, Limit: 1000})
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

// AuditOf lists the audit records of a task_id.
func (h *Harness) AuditOf(taskID string) []store.AuditRecord {
	h.t.Helper()
	var out []store.AuditRecord
	for _, r := range h.audit() {
		if r.TaskID == taskID {
			out = append(out, r)
		}
	}
	return out
}

// AuditByTrace is the last audit record of a trace.
func (h *Harness) AuditByTrace(traceID string) store.AuditRecord {
	h.t.Helper()
	all := h.audit()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].TraceID == traceID {
			return all[i]
		}
	}
	h.t.Fatalf("no audit record for trace %s", traceID)
	return store.AuditRecord{}
}

// audit is the whole audit log.
func (h *Harness) audit() []store.AuditRecord {
	h.t.Helper()
	all, err := h.St.ExportAudit(context.Background(), time.Time{}, time.Time{})
	if err != nil {
		h.t.Fatal(err)
	}
	return all
}

// DialogNotes are the dialog notes of a call's trace, "PATH: NOTE" each.
func (h *Harness) DialogNotes(env *result.Envelope) []string {
	var out []string
	for _, s := range h.Trace(env).Steps {
		if s.Dialog != "" {
			out = append(out, s.Path+": "+s.Dialog)
		}
	}
	return out
}
