package storetest

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

func testGrants(t *testing.T, b Backend) {
	hs := handles(t, b, 2, Options{})
	s, other := hs[0], hs[1]
	ctx := context.Background()
	for _, c := range []struct {
		task   string
		ttl    time.Duration
		reason string
		want   string
	}{
		{"T-1", 15 * time.Minute, " ", "reason"},
		{"T-1", 0, "x", "more than 0"},
		{"T-1", 25 * time.Hour, "x", "at most 24h"},
		{"*", 15 * time.Minute, "x", "task_id must be"},
		{"T 1", 15 * time.Minute, "x", "task_id must be"},
		{"T-1\n", 15 * time.Minute, "x", "task_id must be"},
		{" T-1", 15 * time.Minute, "x", "task_id must be"},
		{"T-1\t", 15 * time.Minute, "x", "task_id must be"},
		{strings.Repeat("T", 129), 15 * time.Minute, "x", "task_id must be"},
		{"T-1", 15 * time.Minute, strings.Repeat("x", 100<<10), "at most 500 characters"},
		{"T-1", 15 * time.Minute, "line\nbreak", "control characters"},
	} {
		if _, err := s.AddGrant(ctx, "place_order", c.task, c.ttl, c.reason, "ops"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddGrant(task %.20q, ttl %s, reason %.20q): %v, want an error with %q", c.task, c.ttl, c.reason, err, c.want)
		}
	}

	g, err := s.AddGrant(ctx, "place_order", "T-1", 15*time.Minute, "customer called", "ops")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^gr_[0-9A-Z]{26}$`).MatchString(g.ID) {
		t.Fatalf("grant id %q", g.ID)
	}
	now := g.Created.Add(time.Minute)

	// another process (handle) sees it at once
	live, err := other.LiveGrant(ctx, "place_order", "T-1", now)
	if err != nil || live == nil || live.ID != g.ID || live.Reason != "customer called" || live.By != "ops" {
		t.Fatalf("live grant: %+v, %v", live, err)
	}
	for _, k := range [][2]string{{"place_order", "T-2"}, {"cancel_order", "T-1"}} {
		if g, err := s.LiveGrant(ctx, k[0], k[1], now); g != nil || err != nil {
			t.Errorf("grant leaks to %v: %+v, %v", k, g, err)
		}
	}
	// expiry with an injected now
	if g2, _ := s.LiveGrant(ctx, "place_order", "T-1", g.Expires.Add(-time.Millisecond)); g2 == nil {
		t.Error("grant dead before it expires")
	}
	if g2, _ := s.LiveGrant(ctx, "place_order", "T-1", g.Expires); g2 != nil {
		t.Error("grant alive at its expiry")
	}
	if id, _ := s.LiveGrantID(ctx, "place_order", "T-1", now); id != g.ID {
		t.Errorf("LiveGrantID = %q", id)
	}

	list, err := s.ListGrants(ctx, false)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	// revoke (from the CLI process) ends it for the server at once
	if err := other.Revoke(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if g2, _ := s.LiveGrant(ctx, "place_order", "T-1", now); g2 != nil {
		t.Error("revoked grant still live")
	}
	if err := s.Revoke(ctx, g.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	err = s.Revoke(ctx, "gr_unknown")
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `"gr_unknown"`) {
		t.Errorf("unknown id: %v", err)
	}
	if list, _ := s.ListGrants(ctx, false); len(list) != 0 {
		t.Errorf("active list has %d", len(list))
	}
	if list, _ := s.ListGrants(ctx, true); len(list) != 1 || !list[0].Revoked {
		t.Errorf("full list %+v", list)
	}
	// the bounds themselves are allowed
	if _, err := s.AddGrant(ctx, "place_order", strings.Repeat("T", 128), time.Minute, strings.Repeat("é", store.MaxGrantReason), "ops"); err != nil {
		t.Errorf("a 128-character task_id and a %d-character reason are allowed: %v", store.MaxGrantReason, err)
	}
}
