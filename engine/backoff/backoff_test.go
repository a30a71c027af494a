package backoff

import (
	"context"
	"testing"
	"time"
)

// TestPauses: each pause doubles up to the cap; jittered, each lies
// between half the unjittered pause and that pause.
func TestPauses(t *testing.T) {
	b := New(2*time.Millisecond, 50*time.Millisecond)
	var got []time.Duration
	for range 7 {
		got = append(got, b.Pause())
	}
	want := []time.Duration{2, 4, 8, 16, 32, 50, 50}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("pauses %v, want %v ms", got, want)
		}
	}
	j := New(8*time.Millisecond, 64*time.Millisecond).Jittered()
	for _, full := range []time.Duration{8, 16, 32, 64, 64} {
		full *= time.Millisecond
		if d := j.Pause(); d < full/2 || d > full {
			t.Errorf("jittered pause %s outside [%s, %s]", d, full/2, full)
		}
	}
}

// TestSleepEnds: Sleep waits its pause, and returns false at once when the
// context ends or stop is closed (the pause is an hour: a return at all
// shows it did not wait it out).
func TestSleepEnds(t *testing.T) {
	if !New(time.Millisecond, time.Millisecond).Sleep(context.Background(), nil) {
		t.Fatal("a pause that ran out returned false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if New(time.Hour, time.Hour).Sleep(ctx, nil) {
		t.Error("Sleep on an ended context returned true")
	}
	stop := make(chan struct{})
	close(stop)
	if New(time.Hour, time.Hour).Sleep(context.Background(), stop) {
		t.Error("Sleep with stop closed returned true")
	}
}

// TestWaitEnds: Wait waits d and returns true, and returns false at once
// when the context has ended (an hour's wait, or none at all).
func TestWaitEnds(t *testing.T) {
	if !Wait(context.Background(), time.Millisecond) || !Wait(context.Background(), 0) {
		t.Fatal("a wait that ran out returned false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Wait(ctx, time.Hour) || Wait(ctx, 0) {
		t.Error("Wait on an ended context returned true")
	}
}
