package errs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/toolwright/toolwright/engine/errs"
)

func TestAs(t *testing.T) {
	coded := errs.Wrap(errs.TargetNotFound, errors.New("raw cdp error"), "target %s not found", "acme.x")
	for _, tc := range []struct {
		err        error
		code       string
		retry, hum bool
	}{
		{coded, errs.TargetNotFound, true, false},
		{fmt.Errorf("step 3: %w", coded), errs.TargetNotFound, true, false},
		{context.DeadlineExceeded, errs.DeadlineExceeded, true, false},
		{fmt.Errorf("wrapped: %w", context.Canceled), errs.Cancelled, false, false},
		{errors.New("boom"), errs.Internal, false, true},
		{errs.New(errs.NotGranted, "no grant"), errs.NotGranted, false, true},
	} {
		e := errs.As(tc.err)
		if e.Code != tc.code || e.Retryable != tc.retry || e.NeedsHuman != tc.hum {
			t.Errorf("%v: got %s retry=%v human=%v", tc.err, e.Code, e.Retryable, e.NeedsHuman)
		}
	}
	if errs.CodeOf(nil) != errs.OK || errs.As(nil) != nil {
		t.Error("nil")
	}
	// The message is for the agent; the cause stays reachable for the trace only.
	if coded.Message != "target acme.x not found" || !errors.Is(coded, coded.Cause) {
		t.Errorf("message %q", coded.Message)
	}
	for code, f := range errs.Table {
		if code == errs.OK && (f.Retryable || f.NeedsHuman) {
			t.Error("ok has flags")
		}
	}
}
