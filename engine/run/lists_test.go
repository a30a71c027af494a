package run_test

import (
	"encoding/json"
	"github.com/toolwright/toolwright/internal/harness"
	"testing"
)

// TestUnsetListLeavesEmpty: a list whose extract was skipped leaves the
// engine as an empty list, {items: [], count: 0, truncated: false}, as the
// output schema describes it, not as null.
func TestUnsetListLeavesEmpty(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"maybe_rows": `name: maybe_rows
description: Read the rows only when asked.
risk: read
params:
  read: {type: boolean, description: Whether to read the rows, default: false}
steps:
  - if: ${{ params.read }}
    extract: {from: acme.catalog.rows, fields: {sku: acme.catalog.row_sku}, into: rows}
output:
  rows: ${{ vars.rows }}
`}, nil)
	env := h.OK(h.Call("maybe_rows", `{}`))
	got, _ := json.Marshal(env.Data["rows"])
	if string(got) != `{"items":[],"count":0,"truncated":false}` {
		t.Errorf("rows = %s, want an empty list", got)
	}
}
