// Package project holds what authors get for a project: the four editor
// schemas (workflow, selectors, config, test), each generated from its
// declaration, and `toolwright init`'s new project.
package project

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/testrun"
	"github.com/toolwright/toolwright/engine/workflow"
)

// SchemaNames are the schemas `toolwright schema NAME` prints, in order.
var SchemaNames = []string{"workflow", "selectors", "config", "test"}

// SchemaFile is the file name a schema is written to.
func SchemaFile(name string) string { return name + ".schema.json" }

// Schema returns one schema as indented JSON. sel, when not nil, is the
// project's selector map: target fields then complete its names.
func Schema(name string, sel *selector.Map) ([]byte, error) {
	var v any
	switch name {
	case "workflow":
		return workflow.FileSchemaFor(sel)
	case "selectors":
		v = selector.FileSchema()
	case "config":
		v = config.FileSchema()
	case "test":
		v = testrun.FileSchema()
	default:
		return nil, fmt.Errorf("unknown schema %q: want one of workflow, selectors, config, test", name)
	}
	return json.MarshalIndent(v, "", "  ")
}

// WriteSchemas writes all four schemas into dir and returns their paths.
func WriteSchemas(dir string, sel *selector.Map) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, name := range SchemaNames {
		b, err := Schema(name, sel)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, SchemaFile(name))
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
