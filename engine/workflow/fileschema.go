package workflow

import (
	"encoding/json"

	"github.com/toolwright/toolwright/engine/step"
)

// FileSchema is the JSON Schema (draft-07) of a workflow file, generated
// from the step registry, for editors' YAML plugins.
func FileSchema() ([]byte, error) {
	s := NewObj(
		"$schema", "http://json-schema.org/draft-07/schema#",
		"$id", "https://toolwright.dev/schema/workflow.json",
		"title", "toolwright workflow",
		"description", "One business action, served as one MCP tool. The file is workflows/<name>.yaml.",
		"type", "object",
		"required", []string{"name", "description", "steps"},
		"additionalProperties", false,
		"properties", NewObj(
			"name", NewObj("type", "string", "pattern", "^[a-z][a-z0-9_]{0,63}$", "description", "The MCP tool name; equals the file name."),
			"title", NewObj("type", "string", "description", "A human title for the tool."),
			"description", NewObj("type", "string", "description", "What the tool does; the agent reads it."),
			"risk", NewObj("enum", []string{Read, Write, Destructive}, "default", Write, "description", "read tools are on; write and destructive tools need a grant per task."),
			"idempotent", NewObj("type", "boolean", "default", false),
			"env", NewObj("enum", []string{EnvTemporary, EnvGiven, EnvNew}, "default", EnvTemporary),
			"purposes", NewObj("type", "array", "items", NewObj("type", "string")),
			"deadline", NewObj("type", "string", "default", "60s", "description", "A duration like 60s, or a template."),
			"params", NewObj("type", "object", "additionalProperties", paramSchema(true)),
			"steps", NewObj("$ref", "#/definitions/steps"),
			"output", NewObj("type", "object", "description", "Data returned to the agent: NAME: template; for a list also NAME: {rows: template, format: objects|table} (table: columns once, then rows of values)."),
		),
		"definitions", stepDefinitions(),
	)
	return json.MarshalIndent(s, "", "  ")
}

func paramSchema(top bool) *Obj {
	props := NewObj(
		"type", NewObj("enum", paramTypes),
		"description", NewObj("type", "string"),
		"required", NewObj("type", "boolean"),
		"default", NewObj(),
		"enum", NewObj("type", "array"),
		"enum_from", NewObj("enum", []string{"regions"}),
		"min", NewObj("type", "number"),
		"max", NewObj("type", "number"),
		"min_length", NewObj("type", "integer", "minimum", 0),
		"max_length", NewObj("type", "integer", "minimum", 0),
		"pattern", NewObj("type", "string"),
		"format", NewObj("enum", []string{"url"}),
		"max_items", NewObj("type", "integer", "minimum", 0),
		"prefix", NewObj("type", "string"),
	)
	if top {
		props.Set("items", paramSchema(false))
	}
	req := []string{"type"}
	if top {
		req = append(req, "description")
	}
	return NewObj("type", "object", "required", req, "additionalProperties", false, "properties", props)
}

// fieldSchema maps a step field type to a schema.
func fieldSchema(f step.Field) *Obj {
	var o *Obj
	switch f.Type {
	case step.Bool:
		o = NewObj("type", "boolean")
	case step.Int:
		o = NewObj("type", "integer", "minimum", 0)
	case step.Bound:
		o = NewObj("type", []string{"integer", "string"})
	case step.Steps:
		o = NewObj("$ref", "#/definitions/steps")
	case step.TargetMap:
		o = NewObj("type", "object", "additionalProperties", NewObj("type", "string"))
	case step.ValueMap:
		o = NewObj("type", "object")
	case step.Enum:
		o = NewObj("enum", f.Enum)
	case step.Template:
		o = NewObj("type", []string{"string", "number", "boolean"})
	case step.Cond, step.Expr:
		o = NewObj("type", []string{"string", "boolean", "number"})
	default:
		o = NewObj("type", "string")
	}
	if f.Doc != "" {
		o.Set("description", f.Doc)
	}
	if f.Default != nil {
		o.Set("default", f.Default)
	}
	return o
}

func stepDefinitions() *Obj {
	var variants []any
	for _, sp := range step.Kinds() {
		var body *Obj
		switch {
		case sp.Body == step.ValueMap:
			body = NewObj("type", "object")
		case sp.Body == step.Steps:
			body = NewObj("$ref", "#/definitions/steps")
		default:
			props := NewObj()
			var req []string
			for _, f := range sp.Fields {
				props.Set(f.Name, fieldSchema(f))
				if f.Required {
					req = append(req, f.Name)
				}
			}
			long := NewObj("type", "object", "additionalProperties", false, "properties", props)
			if len(req) > 0 {
				long.Set("required", req)
			}
			body = long
			if sp.Short != "" {
				short, _ := sp.Field(sp.Short)
				body = NewObj("oneOf", []any{fieldSchema(short), long})
			}
		}
		body.Set("description", sp.Doc)
		stepProps := NewObj(sp.Kind, body)
		for _, f := range step.CommonFields {
			fs := fieldSchema(f)
			if f.Name == "retry" {
				fs = NewObj("type", "object", "additionalProperties", false, "description", f.Doc, "properties", NewObj(
					"attempts", NewObj("type", "integer", "minimum", 1, "maximum", 5),
					"backoff", NewObj("type", "string"),
				))
			}
			stepProps.Set(f.Name, fs)
		}
		variants = append(variants, NewObj("type", "object", "required", []string{sp.Kind}, "additionalProperties", false, "properties", stepProps))
	}
	return NewObj(
		"steps", NewObj("type", "array", "items", NewObj("$ref", "#/definitions/step")),
		"step", NewObj("oneOf", variants),
	)
}
