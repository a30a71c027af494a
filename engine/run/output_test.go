package run_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
)

const searchTable = `
name: search_table
description: Catalog rows, as a table and as objects.
risk: read
params:
  max_pages: {type: integer, description: Result pages to read, min: 1, max: 5, default: 1}
steps:
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - click: acme.login.submit
  - wait: {visible: acme.catalog.search_box}
  - fill: {target: acme.catalog.search_box, value: ""}
  - press: Enter
  - paginate:
      next: acme.catalog.next_page
      max_pages: ${{ params.max_pages }}
      steps:
        - wait: {visible: acme.catalog.rows}
        - extract:
            from: acme.catalog.rows
            list: true
            fields: {sku: acme.catalog.row_sku, name: acme.catalog.row_name, price: acme.catalog.row_price}
            into: rows
            append: true
        - extract: {from: acme.catalog.rows, list: true, into: lines, append: true}
output:
  table: {rows: "${{ vars.rows }}", format: table}
  objects: ${{ vars.rows }}
  lines: {rows: "${{ vars.lines }}", format: table}
`

// TestOutputTable: format: table returns the same rows as the default
// objects, each key once, in the extract's field order; limits cut it the
// same way; the envelope (as the agent reads it) is smaller.
func TestOutputTable(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"search_table": searchTable}, func(c *config.Config) { c.Limits.MaxListItems = 8 })
	env := h.OK(h.Call("search_table", `{"max_pages": 2}`))
	tab, ok := env.Data["table"].(result.Table)
	if !ok {
		t.Fatalf("data.table is %T: %s", env.Data["table"], env.JSON())
	}
	objs := harness.List(t, env, "objects")
	if tab.Count != 8 || !tab.Truncated || objs.Count != 8 || !objs.Truncated {
		t.Errorf("max_list_items 8: table %d (truncated %v), objects %d (truncated %v)", tab.Count, tab.Truncated, objs.Count, objs.Truncated)
	}
	if diff := cmp.Diff([]string{"sku", "name", "price"}, tab.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	var fromObjects [][]any
	for _, it := range objs.Items {
		m := it.(map[string]any)
		fromObjects = append(fromObjects, []any{m["sku"], m["name"], m["price"]})
	}
	if diff := cmp.Diff(fromObjects, tab.Rows); diff != "" {
		t.Errorf("table rows differ from the objects (-objects +table):\n%s", diff)
	}
	lines, ok := env.Data["lines"].(result.Table)
	if !ok || len(lines.Columns) != 1 || lines.Columns[0] != "value" || lines.Count != 8 || !strings.Contains(lines.Rows[0][0].(string), tab.Rows[0][0].(string)) {
		t.Errorf("a table of plain values: %+v", env.Data["lines"])
	}

	// What the agent reads: the table repeats no key.
	b, _ := json.Marshal(env.Data["table"])
	o, _ := json.Marshal(env.Data["objects"])
	if strings.Count(string(b), `"sku"`) != 1 || len(b) >= len(o) {
		t.Errorf("table %d bytes (%d \"sku\"), objects %d bytes:\n%s", len(b), strings.Count(string(b), `"sku"`), len(o), b)
	}
	if !strings.HasPrefix(string(b), `{"columns":["sku","name","price"],"rows":[["ACM-`) || !strings.HasSuffix(string(b), `"count":8,"truncated":true}`) {
		t.Errorf("table JSON: %s", b)
	}
}
