package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/store"
)

func testTraceRoundTrip(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx := context.Background()
	tr := &store.Trace{
		TaskID: "T-1", Tool: "search_catalog", Args: json.RawMessage(`{"query":"bolts"}`),
		Start: time.Date(2030, 1, 2, 3, 4, 5, 678_000_000, time.UTC), DurationMS: 812,
		Code: "target_not_found", Message: "target x not found", Attempts: 3, EnvID: "env_1", Purpose: "catalog",
		Steps: []store.StepRecord{
			{Index: 0, Path: "0", Kind: "goto", DurationMS: 100, Code: "ok", Attempt: 1},
			{Index: 3, Path: "3.1", Kind: "click", Name: "submit", Target: "acme.login.submit", Strategy: "fallback 1", DurationMS: 5000, Code: "target_not_found", Attempt: 3, Error: "context deadline exceeded"},
		},
		Artifacts: []string{"artifacts/tr_x/page.png", "artifacts/tr_x/page.html"},
		Error:     "rod: element not found",
	}
	if err := s.SaveTrace(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^tr_[0-9A-HJKMNP-TV-Z]{26}$`).MatchString(tr.ID) {
		t.Fatalf("trace id %q", tr.ID)
	}
	got, err := s.GetTrace(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr, got); d != "" {
		t.Fatalf("round trip (-saved +got):\n%s", d)
	}
	if err := s.SaveTrace(ctx, tr); err == nil {
		t.Fatal("saved the same trace id twice")
	}

	// A stub (a call that has started) is replaced by its final trace,
	// once: the final trace is not replaced again.
	stub := &store.Trace{TaskID: "T-2", Tool: "place_order", Args: json.RawMessage(`{"sku":"a"}`),
		Start: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Code: store.TraceRunning, Steps: []store.StepRecord{}}
	if err := s.SaveTrace(ctx, stub); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetTrace(ctx, stub.ID); err != nil || got.Code != store.TraceRunning || got.TaskID != "T-2" {
		t.Fatalf("stub read back: %+v, %v", got, err)
	}
	final := *tr
	final.ID, final.TaskID = stub.ID, "T-2"
	if err := s.SaveTrace(ctx, &final); err != nil {
		t.Fatalf("the final trace over its stub: %v", err)
	}
	got, err = s.GetTrace(ctx, stub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&final, got); d != "" {
		t.Fatalf("final over stub (-saved +got):\n%s", d)
	}
	again := final
	again.Code = store.TraceRunning
	if err := s.SaveTrace(ctx, &again); err == nil {
		t.Fatal("a stub replaced a finished trace")
	}
	if _, err := s.GetTrace(ctx, "tr_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown trace: %v", err)
	}
}

func testListTraces(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx := context.Background()
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		code := "ok"
		if i%3 == 0 {
			code = "navigation_failed"
		}
		if err := s.SaveTrace(ctx, &store.Trace{Tool: "t", Start: base.Add(time.Duration(i) * time.Minute), Code: code}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ListTraces(ctx, store.TraceFilter{})
	if err != nil || len(all) != 10 {
		t.Fatalf("%d traces, %v", len(all), err)
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Start.After(all[j].Start) }) {
		t.Fatal("not newest first")
	}
	failed, _ := s.ListTraces(ctx, store.TraceFilter{FailedOnly: true})
	if len(failed) != 4 || failed[0].Start != base.Add(9*time.Minute) {
		t.Fatalf("failed: %d", len(failed))
	}
	since, _ := s.ListTraces(ctx, store.TraceFilter{Since: base.Add(5 * time.Minute), Limit: 3})
	if len(since) != 3 || since[2].Start != base.Add(7*time.Minute) {
		t.Fatalf("since+limit: %+v", since)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Traces != 10 || st.FailedTraces != 4 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	p, err := s.Purge(ctx, base.Add(5*time.Minute))
	if err != nil || p.Traces != 5 {
		t.Fatalf("purge %+v, %v", p, err)
	}
}
