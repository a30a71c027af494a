package app_test

import (
	"os/exec"
	"strings"
	"testing"
)

// layers is engine/README.md's one-way flow as ranks: a package may import
// only packages of a lower rank. A new engine package must be placed here.
var layers = map[string]int{
	"engine/lint": 0, "engine/errs": 0, "engine/backoff": 0, "engine/tick": 0, "engine/browser/chromium": 0,
	"engine/demo":  0,
	"engine/yamlx": 1, "engine/result": 1,
	"engine/decl": 2, "engine/tmpl": 2,
	"engine/config": 3, "engine/selector": 3,
	// The seams whose modules register with them (and through them with
	// the config): store backends and browser providers, which import
	// their seam and neither what uses it nor each other.
	"engine/store": 4, "engine/browser/provider": 4,
	"engine/policy": 5, "engine/store/sqlstore": 5, "engine/store/storetest": 5, "engine/browser": 5,
	"engine/htmlview": 5, "engine/selsuggest": 5, "engine/step": 5,
	"engine/step/kinds": 6, "engine/workflow": 6, "engine/record": 6, "engine/repair": 6,
	"engine/browser/provider/all": 6,
	"engine/store/all":            7,
	"engine/run":                  7, "engine/selcheck": 7,
	"engine/mcpserver":       8,
	"engine/app":             9,
	"engine/testrun":         10,
	"engine/testrun/project": 11,
	// engine/run's test-only packages. The harness their tests share
	// builds the engine as the server does (app.BrowserOptions), so it is
	// test support outside engine/ (internal/harness), not an engine
	// package importing a higher layer.
	"engine/run/pagetest": 11, "engine/run/safetytest": 11, "engine/run/shoptest": 11,
}

// modules are the folders whose packages are modules of a seam, one per
// provider or backend: a package under one of them that the table does
// not name has the folder's rank, so a new provider or backend is placed
// without a line here. (provider/all and store/all, above their modules,
// and the store's own packages are named in layers.)
var modules = map[string]int{
	"engine/browser/provider/": 5, // local, cdp, webdriver: the seam, chromium, decl, errs
	"engine/store/":            6, // sqlite, postgres: the seam and sqlstore
}

// rankOf is pkg's layer: the table's, else its module folder's.
func rankOf(pkg string) (int, bool) {
	if r, ok := layers[pkg]; ok {
		return r, true
	}
	for dir, r := range modules {
		if rest, ok := strings.CutPrefix(pkg, dir); ok && !strings.Contains(rest, "/") {
			return r, true
		}
	}
	return 0, false
}

const module = "github.com/toolwright/toolwright/"

// TestLayers reads `go list` and fails on an import that points up the
// layers, or from engine/ into cmd/.
func TestLayers(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"engine/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		rank, ok := rankOf(pkg)
		if !ok {
			t.Errorf("%s is not in the layer table of layers_test.go: place it", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if strings.HasPrefix(dep, "cmd/") {
				t.Errorf("%s imports %s: engine code never imports the CLI", pkg, dep)
			}
			if r, ok := rankOf(dep); ok && r >= rank {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down the layers only", pkg, rank, dep, r)
			}
		}
	}
}
