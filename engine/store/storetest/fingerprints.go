package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// testFingerprints: a fingerprint saved on one handle is read on another;
// saving the same hash again moves Seen but keeps Changed and the data's
// date; another hash replaces the data and moves Changed; data above
// store.MaxFingerprint and a fingerprint without a target are refused.
func testFingerprints(t *testing.T, b Backend) {
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	hs := handles(t, b, 2, Options{Now: clk.now})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	if _, err := a.GetFingerprint(ctx, "shop.buy"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetFingerprint of nothing: %v, want ErrNotFound", err)
	}
	t0 := clk.now()
	fp := &store.Fingerprint{Target: "shop.buy", Data: json.RawMessage(`{"tag":"button"}`), Hash: "h1", Page: "/cart"}
	if err := a.SaveFingerprint(ctx, fp); err != nil {
		t.Fatal(err)
	}
	got, err := o.GetFingerprint(ctx, "shop.buy")
	if err != nil || string(got.Data) != `{"tag":"button"}` || got.Hash != "h1" || got.Page != "/cart" || !got.Seen.Equal(t0) || !got.Changed.Equal(t0) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	clk.add(time.Minute)
	if err := o.SaveFingerprint(ctx, fp); err != nil {
		t.Fatal(err)
	}
	if got, _ = a.GetFingerprint(ctx, "shop.buy"); !got.Seen.Equal(t0.Add(time.Minute)) || !got.Changed.Equal(t0) {
		t.Errorf("the same fingerprint again: seen %s changed %s, want seen moved, changed kept at %s", got.Seen, got.Changed, t0)
	}
	clk.add(time.Minute)
	fp2 := &store.Fingerprint{Target: "shop.buy", Data: json.RawMessage(`{"tag":"a"}`), Hash: "h2", Page: "/cart"}
	if err := a.SaveFingerprint(ctx, fp2); err != nil {
		t.Fatal(err)
	}
	if got, _ = o.GetFingerprint(ctx, "shop.buy"); string(got.Data) != `{"tag":"a"}` || got.Hash != "h2" || !got.Changed.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("a changed fingerprint: %+v", got)
	}
	big := &store.Fingerprint{Target: "shop.big", Data: json.RawMessage(`"` + strings.Repeat("x", store.MaxFingerprint) + `"`), Hash: "h"}
	if err := a.SaveFingerprint(ctx, big); err == nil {
		t.Error("a fingerprint above MaxFingerprint was stored")
	}
	if err := a.SaveFingerprint(ctx, &store.Fingerprint{Data: json.RawMessage(`{}`), Hash: "h"}); err == nil {
		t.Error("a fingerprint without a target was stored")
	}
}
