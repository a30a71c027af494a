package selector

import (
	"context"
	"testing"
	"time"
)

// A search that begins late in its budget (a busy machine, a frame resolved
// first) still says the budget as written: "after 990ms" for a 1s timeout
// failed CI once.
func TestAllowedSaysTheBudgetAsWritten(t *testing.T) {
	t.Parallel()
	ctx, cancel := WithBudget(context.Background(), 60*time.Millisecond)
	defer cancel()
	time.Sleep(25 * time.Millisecond) // the search starts late
	start := time.Now()
	<-ctx.Done()
	if got := Allowed(ctx, start); got != "60ms" {
		t.Errorf("Allowed = %s, want the budget as written, 60ms", got)
	}
}

// When an outer deadline (the call's) comes first, the step's budget is not
// what ran out: the message says how long the search really had.
func TestAllowedUnderAnEarlierDeadline(t *testing.T) {
	t.Parallel()
	outer, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	ctx, cancel2 := WithBudget(outer, time.Hour)
	defer cancel2()
	start := time.Now()
	<-ctx.Done()
	if d := allowed(ctx, start); d <= 0 || d > 40*time.Millisecond {
		t.Errorf("allowed = %s, want at most the outer 40ms", d)
	}
}

// A search that has not run out reports the time it spent.
func TestAllowedBeforeExpiry(t *testing.T) {
	t.Parallel()
	ctx, cancel := WithBudget(context.Background(), time.Hour)
	defer cancel()
	start := time.Now().Add(-2 * time.Second)
	if d := allowed(ctx, start); d < 2*time.Second || d > time.Hour {
		t.Errorf("allowed = %s, want the 2s spent", d)
	}
}

// TestOutlastingOutlivesOnlyTheStepsTime: the context an action's answer
// is read in lives answerGrace past the step's own deadline, ends with the
// call (the budget's parent) and when the step is cancelled, and follows
// any other context as it is.
func TestOutlastingOutlivesOnlyTheStepsTime(t *testing.T) {
	call, endCall := context.WithCancel(context.Background())
	defer endCall()
	step, endStep := WithBudget(call, time.Millisecond)
	defer endStep()
	<-step.Done()
	a, cancel := Outlasting(step)
	defer cancel()
	stepDL, _ := step.Deadline()
	if dl, _ := a.Deadline(); a.Err() != nil || !dl.Equal(stepDL.Add(answerGrace)) {
		t.Fatalf("past the step's deadline: err %v, deadline %v after it; want alive until %v after it", a.Err(), dl.Sub(stepDL), answerGrace)
	}
	endCall()
	<-a.Done() // the call ended: so does the answer's time

	step, endStep = WithBudget(context.Background(), time.Hour)
	a, cancel = Outlasting(step)
	defer cancel()
	endStep() // cancelled, not run out
	<-a.Done()

	// No budget (or an earlier deadline than the budget's): no grace.
	plain, endPlain := context.WithTimeout(context.Background(), time.Millisecond)
	defer endPlain()
	<-plain.Done()
	if a, cancel := Outlasting(plain); a.Err() == nil {
		cancel()
		t.Fatal("a context without a step's budget was outlasted")
	}
	early, endEarly := context.WithTimeout(context.Background(), time.Millisecond)
	defer endEarly()
	step, endStep = WithBudget(early, time.Hour)
	defer endStep()
	<-step.Done()
	if a, cancel := Outlasting(step); a.Err() == nil {
		cancel()
		t.Fatal("the call's deadline, earlier than the step's, was outlasted")
	}
}
