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

func TestNewTable(t *testing.T) {
	items := []any{
		map[string]any{"sku": "A", "name": "Anvil", "price": 1.5},
		map[string]any{"sku": "B", "price": 2, "extra": true},
		"loose",
	}
	tab := result.NewTable(items, false, 0, []string{"sku", "name", "price"})
	b, _ := json.Marshal(tab)
	want := `{"columns":["sku","name","price","extra","value"],"rows":[["A","Anvil",1.5,null,null],["B",null,2,true,null],[null,null,null,null,"loose"]],"count":3,"truncated":false}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	tab = result.NewTable(items, false, 1, []string{"sku"})
	if b, _ := json.Marshal(tab); string(b) != `{"columns":["sku","name","price"],"rows":[["A","Anvil",1.5]],"count":1,"truncated":true}` {
		t.Errorf("cut at 1: %s", b)
	}
	if b, _ := json.Marshal(result.NewTable(nil, false, 10, nil)); string(b) != `{"columns":[],"rows":[],"count":0,"truncated":false}` {
		t.Errorf("empty table: %s", b)
	}
	// A declared column no row has stays, so the shape does not depend on the data.
	if b, _ := json.Marshal(result.NewTable(nil, false, 10, []string{"sku"})); string(b) != `{"columns":["sku"],"rows":[],"count":0,"truncated":false}` {
		t.Errorf("empty table with declared columns: %s", b)
	}
}
