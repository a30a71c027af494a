package workflow

import (
	"encoding/json"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

// FileSchemaFor is the JSON Schema (draft-07) of a workflow file, generated
// from FileDecl and the step registry, for editors' YAML plugins; with sel,
// target fields complete the names of that project's selector map.
func FileSchemaFor(sel *selector.Map) ([]byte, error) {
	s := decl.NewObj(
		"$schema", "http://json-schema.org/draft-07/schema#",
		"$id", "https://toolwright.dev/schema/workflow.json",
	).Merge(FileDecl.Schema())
	s.Set("definitions", stepDefinitions(sel.Names()))
	return json.MarshalIndent(s, "", "  ")
}

// targetSchema: a selector-map name (one of names when known, offered for
// completion), any other well-formed target name, or a template naming a
// type: target parameter. A name added to the map since the schema was
// written is never flagged by the editor: whether a target exists is
// `toolwright validate`'s check (with "did you mean"), so the project's
// schemas need no regenerating when the map grows.
func targetSchema(names []string) *decl.Obj {
	if len(names) == 0 {
		return decl.NewObj("type", "string")
	}
	return decl.NewObj("anyOf", []any{
		decl.NewObj("enum", names),
		decl.NewObj("type", "string", "pattern", `^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$`,
			"description", "a target of selectors/selectors.yaml (toolwright validate checks that it exists)"),
		decl.NewObj("type", "string", "pattern", `^\$\{\{.*\}\}$`),
	})
}

// fieldSchema is the schema of one step field.
func fieldSchema(f step.Field, targets []string) *decl.Obj {
	d := f.Decl()
	switch f.Type {
	case step.Target:
		d.Schema = func() *decl.Obj { return targetSchema(targets) }
	case step.TargetMap:
		d.Schema = func() *decl.Obj {
			return step.TargetMapSchema(func() *decl.Obj { return targetSchema(targets) })
		}
	}
	return d.Schema1()
}

// stepDefinitions describes a step: one property per kind (with the
// kind's title and description, so completion offers them), the common
// keys, and any other key refused as "unknown step kind".
func stepDefinitions(targets []string) *decl.Obj {
	props := decl.NewObj()
	var kinds []string
	var oneKind []any
	for _, sp := range step.Kinds() {
		kinds = append(kinds, sp.Kind)
		oneKind = append(oneKind, decl.NewObj("required", []string{sp.Kind}))
		var body *decl.Obj
		switch {
		case sp.Body == step.ValueMap:
			// A value is what the decoder takes: text with ${{ }}
			// templates, a number, a boolean, or a literal list or map.
			body = decl.NewObj("type", "object", "additionalProperties", decl.NewObj())
		case sp.Body == step.Steps:
			body = decl.NewObj("$ref", "#/definitions/steps")
		default:
			fprops := decl.NewObj()
			var req []string
			for _, f := range sp.Fields {
				fprops.Set(f.Name, fieldSchema(f, targets))
				if f.Required {
					req = append(req, f.Name)
				}
			}
			long := decl.NewObj("type", "object", "additionalProperties", false, "properties", fprops)
			if len(req) > 0 {
				long.Set("required", req)
			}
			body = long
			if sp.Short != "" {
				short, _ := sp.Field(sp.Short)
				body = decl.NewObj("anyOf", []any{fieldSchema(short, targets), long})
			}
		}
		props.Set(sp.Kind, decl.NewObj("title", sp.Kind, "description", kindDoc(sp)).Merge(body))
	}
	for _, f := range step.CommonFields {
		if f.Name == "retry" {
			props.Set(f.Name, step.RetryDecl.Schema())
			continue
		}
		if f.Name == "dialog" {
			props.Set(f.Name, step.DialogSchema())
			continue
		}
		if f.Name == "when" {
			props.Set(f.Name, decl.NewObj("$ref", "#/definitions/condition"))
			continue
		}
		props.Set(f.Name, fieldSchema(f, targets))
	}
	kindList := strings.Join(kinds, ", ")
	return decl.NewObj(
		"condition", step.ConditionSchema(func(f step.Field) *decl.Obj { return fieldSchema(f, targets) }),
		"steps", decl.NewObj("type", "array", "items", decl.NewObj("$ref", "#/definitions/step")),
		"step", decl.NewObj(
			"title", "step",
			"description", "One browser step: a map with exactly one kind key ("+kindList+") and optional common keys.",
			"type", "object",
			"properties", props,
			"additionalProperties", false,
			// yaml-language-server shows errorMessage instead of "Property
			// clik is not allowed" (and gojsonschema ignores it).
			"errorMessage", "unknown step kind or key: a step is a map with one kind key ("+kindList+") and optional common keys ("+strings.Join(step.CommonNames(), ", ")+")",
			"if", decl.NewObj("not", decl.NewObj("anyOf", oneKind)),
			"then", decl.NewObj("required", []string{"(a step kind)"}, "errorMessage", "a step needs exactly one kind key: "+kindList),
		),
	)
}

// kindDoc is a kind's description with its short form, for editors.
func kindDoc(sp *step.Spec) string {
	doc := sp.Doc
	if sp.Short != "" {
		doc += " Short form: " + sp.Kind + ": " + strings.ToUpper(sp.Short) + "."
	}
	if sp.Example != "" {
		doc += "\n\nExample:\n" + sp.Example
	}
	return doc
}
