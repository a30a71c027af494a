package workflow_test

import (
	"encoding/json"
	"fmt"
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
		`"rows":{"type":"object","description":"a list as a table: columns once, then rows of values, count and truncated","properties":{"columns":{"type":"array","items":{"type":"string"},"description":"the column names (sku, name, price); each row holds its values in this order"},"rows":{"type":"array","items":{"type":"array"}},"count":{"type":"integer","description":"how many items there are"},"truncated":{"type":"boolean","description":"true when a limit cut the list`,
		`"plain":{"type":"object","description":"a list: items, count and truncated (inside the workflow it is vars.NAME itself)","properties":{"items":{"type":"array","items":{"type":"object","properties":{"sku":{},"name":{},"price":{}}}}`,
		`"tags":{"type":"object","description":"a list as a table`,
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
		{`  rows: {rows: "${{ vars.rows }}", format: tabel}`, `7:44: output rows.format must be objects or table, found "tabel" (did you mean "table"?)`},
		{`  rows: {format: table}`, `7:9: output rows: missing rows (the list to return, like rows: ${{ vars.rows }})`},
		{`  rows: {rows: "${{ vars.rows }}", format: table, colums: [a]}`, `7:51: output rows: unknown key "colums"`},
		{`  rows: {rows: just text, format: table}`, `7:16: output "rows": rows must be a list, like rows: ${{ vars.rows }}, found`},
		{`  rows: {rows: "${{ vars.nope }}", format: table}`, `7:21: unknown variable vars.nope`},
		{`  rows: {rows: "${{ vars.rows }}", format: [table]}`, `7:44: output rows.format must be a single value`},
	} {
		file := filepath.Join(t.TempDir(), "bad.yaml")
		writeTestFile(t, file, head+tc.out+"\n")
		_, ps := workflow.Build(cfg, sel, []string{file})
		if len(ps) != 1 || !strings.Contains(ps[0].String(), "bad.yaml:"+tc.want) {
			t.Errorf("%s:\n got %v\nwant one problem with %q", tc.out, ps, tc.want)
		}
	}
}

// TestOutputListsAsInWorkflow: the output schema calls a variable a list
// exactly where the workflow's own lint does (the shape its steps declare):
// an extract from a many target (no list: key), a list of rows with fields,
// an array parameter. Before, only list: true counted, so these were described as
// anything ({}), and the fields of a screenshot reference were not named.
func TestOutputListsAsInWorkflow(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	file := filepath.Join(t.TempDir(), "lists.yaml")
	writeTestFile(t, file, `name: lists
description: Lists written every way a step can.
risk: read
params:
  skus: {type: array, description: Some SKUs, items: {type: string, max_length: 8}, max_items: 3}
steps:
  - extract: {from: acme.catalog.rows, into: many_rows}
  - extract: {from: acme.catalog.rows, list: true, into: appended, append: true}
  - extract: {from: acme.catalog.rows, fields: {sku: acme.catalog.row_sku, price: acme.catalog.row_price}, into: rows}
  - extract: {from: acme.catalog.status, into: one}
  - screenshot: {into: shot}
  - wait: {any: [{visible: acme.catalog.rows}, {text: No results}], into: which}
output:
  many_rows: ${{ vars.many_rows }}
  appended: ${{ vars.appended }}
  rows: ${{ vars.rows }}
  one: ${{ vars.one }}
  shot: ${{ vars.shot }}
  which: ${{ vars.which }}
  skus: ${{ params.skus }}
`)
	set, ps := workflow.Build(cfg, sel, []string{file})
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	w, _ := set.Tool("lists")
	var schema struct {
		Properties struct {
			Data struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"data"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(w.OutputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	data := schema.Properties.Data.Properties
	isList := func(name string) map[string]any {
		p := data[name]
		props, _ := p["properties"].(map[string]any)
		if p["type"] != "object" || props["items"] == nil || props["count"] == nil || props["truncated"] == nil {
			t.Errorf("%s: %v, want the list form {items, count, truncated}", name, p)
			return nil
		}
		items, _ := props["items"].(map[string]any)
		return items
	}
	isList("many_rows")
	isList("appended")
	if items := isList("rows"); items != nil {
		item, _ := items["items"].(map[string]any)
		fields, _ := item["properties"].(map[string]any)
		if item["type"] != "object" || fields["sku"] == nil || fields["price"] == nil {
			t.Errorf("rows: items %v, want objects with sku and price", items)
		}
	}
	if items := isList("skus"); items != nil {
		if item, _ := items["items"].(map[string]any); item["type"] != "string" {
			t.Errorf("skus: items %v, want strings", items)
		}
	}
	if got := fmt.Sprint(data["one"]["type"]); got != "[string null]" {
		t.Errorf("one: type %s, want text (or null when skipped)", got)
	}
	if got := fmt.Sprint(data["which"]["type"]); got != "[number null]" {
		t.Errorf("which: type %s, want a number (or null)", got)
	}
	if props, _ := data["shot"]["properties"].(map[string]any); props["file"] == nil || props["uri"] == nil {
		t.Errorf("shot: %v, want the screenshot reference's fields", data["shot"])
	}
	for _, o := range w.Output {
		if want := o.Name != "one" && o.Name != "shot" && o.Name != "which"; o.List != want {
			t.Errorf("output %s: List %v, want %v", o.Name, o.List, want)
		}
	}
}
