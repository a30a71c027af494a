package workflow_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// FuzzParse: no input makes the decoder panic, and every problem has a position.
func FuzzParse(f *testing.F) {
	cfg := testConfig(f)
	sel, _ := selector.Load(cfg.Selectors)
	for _, dir := range []string{"examples/demo/workflows", "testdata/lint/bad"} {
		files, _ := filepath.Glob(filepath.Join(repo, dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("steps: [{repeat: {max: 3, until: x, steps: [{do: []}]}}]"))
	f.Add([]byte("name: x\nsteps: &a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ps := workflow.Parse("/tmp/fuzz.yaml", data, cfg, sel)
		for _, p := range ps {
			if p.File == "" || p.Message == "" {
				t.Fatalf("problem without a place or a message: %+v", p)
			}
		}
	})
}

// FuzzBind: argument validation never panics, and what it accepts holds
// to the schema's bounds.
func FuzzBind(f *testing.F) {
	cfg := testConfig(f)
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		f.Fatal(ps.Err())
	}
	w, ok := set.Tool("search_catalog")
	if !ok {
		f.Fatal("search_catalog missing")
	}
	for _, s := range []string{`{}`, `{"query":"x","max_pages":3}`, `{"max_pages":1e308}`, `{"query":null}`, `[]`, `"x"`, `{"task_id":"a b"}`, `{"query":"${{ secrets.acme_password }}"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := w.Bind(raw)
		if err != nil {
			return
		}
		n, ok := c.Params["max_pages"].(int)
		if !ok || n < 1 || n > 5 {
			t.Fatalf("accepted max_pages %v from %s", c.Params["max_pages"], raw)
		}
		q, ok := c.Params["query"].(string)
		if !ok || len([]rune(q)) > 100 {
			t.Fatalf("accepted query %q from %s", q, raw)
		}
		// No arguments at all (empty or null) is a call with none; anything
		// else accepted must be valid JSON.
		if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && string(trimmed) != "null" && !json.Valid(trimmed) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
	})
}
