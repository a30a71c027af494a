package workflow_test

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/toolwright/toolwright/engine/browser/provider/all" // its providers are browser.provider's values
	"github.com/toolwright/toolwright/engine/config"
	_ "github.com/toolwright/toolwright/engine/store/all" // its backends are store.url's values
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestShippedWorkflows loads and lints every workflow this repository
// ships, so a default tool or an example can never rot: workflows/ with the
// default selector map, and every examples/*/toolwright.yaml with its own.
func TestShippedWorkflows(t *testing.T) {
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	defaults := config.Default(root)
	configs := map[string]*config.Config{"defaults": defaults}
	found, _ := filepath.Glob(filepath.Join(root, "examples", "*", "toolwright.yaml"))
	if len(found) == 0 {
		t.Fatal("no examples/*/toolwright.yaml found")
	}
	for _, path := range found {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, ps := config.Parse(path, data)
		if len(ps) > 0 {
			t.Fatalf("%s: %v", path, ps.Err())
		}
		configs[path] = cfg
	}
	for name, cfg := range configs {
		set, ps := workflow.Load(cfg)
		if len(ps) > 0 {
			t.Errorf("%s: %v", name, ps.Err())
			continue
		}
		if len(set.Names()) == 0 {
			t.Errorf("%s: no workflows in %s", name, cfg.Workflows)
		}
	}
	// The benchmark's extra workflows run beside the demo's (examples/bench/run.sh).
	demo := testConfig(t)
	bench := filepath.Join(root, "examples", "bench", "workflows")
	if set, ps := workflow.LoadPaths(demo, []string{demo.Workflows, bench}); len(ps) > 0 {
		t.Errorf("examples/bench/workflows: %v", ps.Err())
	} else if _, ok := set.Tool("search_catalog_open"); !ok {
		t.Error("examples/bench/workflows did not load")
	}
	// The realistic shop's examples (examples/realsite) are among them.
	realsite := filepath.Join(root, "examples", "realsite", "toolwright.yaml")
	if cfg := configs[realsite]; cfg == nil {
		t.Error("examples/realsite/toolwright.yaml is not shipped")
	} else if set, ps := workflow.Load(cfg); len(ps) == 0 {
		for _, name := range []string{"read_new_arrivals", "product_details", "place_order", "export_orders", "clear_order_history", "start_shopping", "sign_in", "search_products", "pay_by_card"} {
			if _, ok := set.Tool(name); !ok {
				t.Errorf("examples/realsite: tool %s is missing", name)
			}
		}
	}
	want := []string{"close_environment", "list_links", "open_page", "prepare_environment", "read_page_text", "take_screenshot"}
	set, _ := workflow.Load(defaults)
	for _, name := range want {
		if _, ok := set.Tool(name); !ok {
			t.Errorf("default tool %s is missing", name)
		}
	}
}
