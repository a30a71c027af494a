package result_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
)

func TestNewList(t *testing.T) {
	l := result.NewList([]any{1, 2, 3}, false, 2)
	if l.Count != 2 || !l.Truncated || len(l.Items) != 2 {
		t.Errorf("cut: %+v", l)
	}
	l = result.NewList(nil, false, 10)
	b, _ := json.Marshal(l)
	if string(b) != `{"items":[],"count":0,"truncated":false}` {
		t.Errorf("empty list: %s", b)
	}
}

func TestFailureKeepsCausesOut(t *testing.T) {
	env := result.Failure(errs.Wrap(errs.NavigationFailed, errors.New("net::ERR_CONNECTION_REFUSED at 10.0.0.1"), "the page did not load"))
	b := string(env.JSON())
	if env.OK || env.Code != "navigation_failed" || !env.Retryable {
		t.Errorf("envelope %s", b)
	}
	if want := `{"ok":false,"code":"navigation_failed","message":"the page did not load","retryable":true,"needs_human":false,"duration_ms":0}`; b != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
