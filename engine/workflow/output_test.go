package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

const tableWorkflow = `name: wide
description: Rows as a table.
risk: read
params:
  tags: {type: array, description: Tags, items: {type: string}, max_items: 3}
steps:
  - extract: {from: acme.catalog.rows, list: true, fields: {sku: acme.catalog.row_sku, name: acme.catalog.row_name}, into: rows}
  - extract: {from: acme.catalog.rows, list: true, fields: {price: acme.catalog.row_price, sku: acme.catalog.row_sku}, into: rows, append: true}
output:
  rows: {rows: "${{ vars.rows }}", format: table}
  plain: {rows: "${{ vars.rows }}", format: objects}
  tags: {rows: "${{ params.tags }}", format: table}
  literal: {a: 1}
`

// TestOutputTableForm: the list form decodes, the generated output schema
// describes the table, and the columns follow the extracts' fields.
func TestOutputTableForm(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	file := filepath.Join(t.TempDir(), "wide.yaml")
	writeTestFile(t, file, tableWorkflow)
	set, ps := workflow.Build(cfg, sel, []string{file})
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	w, _ := set.Tool("wide")
	var got []string
	for _, o := range w.Output {
		got = append(got, o.Name+":"+o.Format+":"+strings.Join(o.Columns, ","))
	}
	want := []string{"rows:table:sku,name,price", "plain:objects:", "tags:table:", "literal:objects:"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if v, ok := w.Output[3].Value.Value().(map[string]any); !ok || v["a"] != 1 {
		t.Errorf("a map output without rows or format stays a literal: %#v", w.Output[3].Value.Value())
	}
	schema := string(w.OutputSchema)
	for _, want := range []string{
		`"rows":{"type":"object","properties":{"columns":{"type":"array","items":{"type":"string"},"description":"the column names (sku, name, price); each row holds its values in this order"},"rows":{"type":"array","items":{"type":"array"}},"count":{"type":"integer"},"truncated":{"type":"boolean"}}}`,
		`"plain":{"type":"object","properties":{"items":{"type":"array"}`,
		`"tags":{"type":"object","properties":{"columns":`,
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("output schema lacks %s:\n%s", want, schema)
		}
	}
}

// TestOutputTableLint: bad list forms are load errors at their position.
func TestOutputTableLint(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	head := "name: bad\ndescription: Bad list forms.\nrisk: read\nsteps:\n  - extract: {from: acme.catalog.rows, list: true, into: rows}\noutput:\n"
	for _, tc := range []struct{ out, want string }{
		{`  rows: {rows: "${{ vars.rows }}", format: tabel}`, `7:44: output "rows": format must be objects or table, found "tabel" (did you mean "table"?)`},
		{`  rows: {format: table}`, `7:9: output "rows": the list form needs rows: the list to return`},
		{`  rows: {rows: "${{ vars.rows }}", format: table, colums: [a]}`, `7:51: output rows: unknown key "colums"`},
		{`  rows: {rows: just text, format: table}`, `7:16: output "rows": rows must be a list, like rows: ${{ vars.rows }}, found`},
		{`  rows: {rows: "${{ vars.nope }}", format: table}`, `7:21: unknown variable vars.nope`},
		{`  rows: {rows: "${{ vars.rows }}", format: [table]}`, `7:44: output rows format`},
	} {
		file := filepath.Join(t.TempDir(), "bad.yaml")
		writeTestFile(t, file, head+tc.out+"\n")
		_, ps := workflow.Build(cfg, sel, []string{file})
		if len(ps) != 1 || !strings.Contains(ps[0].String(), "bad.yaml:"+tc.want) {
			t.Errorf("%s:\n got %v\nwant one problem with %q", tc.out, ps, tc.want)
		}
	}
}
