package workflow

import (
	"fmt"
	"github.com/toolwright/toolwright/engine/decl"
	"strings"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/xeipuuv/gojsonschema"
)

// Obj is the ordered JSON object of the declaration package: generated
// schemas list properties in the order they were written.
type Obj = decl.Obj

// NewObj makes an ordered object from alternating keys and values.
func NewObj(kv ...any) *Obj { return decl.NewObj(kv...) }

// Task and environment ids: their patterns are part of the contract. The
// task_id pattern is the store's, which refuses grants for any other form.
const (
	TaskIDPattern = store.TaskIDPattern
	EnvIDPattern  = `^env_[A-Za-z0-9]{1,64}$`
)

// property is the JSON schema of one parameter.
func (p *Param) property(withDesc bool) *Obj {
	o := NewObj()
	typ := p.Type
	if typ == TTarget {
		typ = TString
	}
	o.Set("type", typ)
	if withDesc && p.Description != "" {
		o.Set("description", p.Description)
	}
	if len(p.Enum) > 0 {
		o.Set("enum", p.Enum)
	}
	if p.Min != nil {
		o.Set("minimum", *p.Min)
	}
	if p.Max != nil {
		o.Set("maximum", *p.Max)
	}
	if p.Type == TString {
		if p.MinLength != nil {
			o.Set("minLength", *p.MinLength)
		}
		o.Set("maxLength", p.MaxLength)
		switch {
		case p.Pattern != "":
			o.Set("pattern", p.Pattern)
		case p.Format == "url":
			o.Set("pattern", `^https?://[^\s/]+`)
		}
	}
	if p.Type == TArray && p.Items != nil {
		o.Set("items", p.Items.property(false))
		o.Set("maxItems", p.MaxItems)
	}
	if p.HasDefault {
		o.Set("default", p.Default)
	}
	return o
}

// buildSchemas generates the input and output schemas and compiles the
// input schema for argument validation.
func (w *Workflow) buildSchemas(set *Set) error {
	if err := w.buildInput(); err != nil {
		return err
	}
	var err error
	w.OutputSchema, err = w.outputSchema(set).MarshalJSON()
	return err
}

// buildInput generates the input schema: the declared parameters, then
// task_id (and env_id for env: given). A native tool gets it from the same
// code, so its patterns and bounds are enforced as a workflow's are.
func (w *Workflow) buildInput() error {
	props := NewObj()
	var required []string
	for _, p := range w.Params {
		props.Set(p.Name, p.property(true))
		if p.Required {
			required = append(required, p.Name)
		}
	}
	taskDesc := "Idempotency key: a repeat with the same task_id and arguments returns the first result without running again."
	if w.Repeats {
		taskDesc = "The task this call belongs to (a grant names it). No result is kept for a repeat: the same arguments sent again act again."
	}
	if w.NeedsTaskID() {
		taskDesc += " Required: a person must grant this tool to this task_id first."
		required = append(required, "task_id")
	}
	props.Set("task_id", NewObj("type", "string", "description", taskDesc, "pattern", TaskIDPattern))
	if w.Env == EnvGiven {
		props.Set("env_id", NewObj("type", "string", "description", "The environment to run in, as returned by a tool that opens one.", "pattern", EnvIDPattern))
		required = append(required, "env_id")
	}
	in := NewObj("type", "object", "properties", props)
	if len(required) > 0 {
		in.Set("required", required)
	}
	in.Set("additionalProperties", false)
	b, err := in.MarshalJSON() // compact already: json.Marshal would compact it again
	if err != nil {
		return err
	}
	w.InputSchema = b
	return nil
}

// validator compiles the input schema on first use: compiling every
// pattern of every tool at load time would double the cost of loading a
// large set, and most tools of a set are never called in a process.
func (w *Workflow) validator() (*gojsonschema.Schema, error) {
	w.schemaOnce.Do(func() {
		w.schema, w.schemaErr = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(w.InputSchema))
		if w.schemaErr != nil {
			w.schemaErr = fmt.Errorf("the generated input schema of %s does not compile: %v", w.Name, w.schemaErr)
		}
	})
	return w.schema, w.schemaErr
}

// outputSchema describes the envelope, with what is known of data's fields.
func (w *Workflow) outputSchema(set *Set) *Obj {
	data := NewObj()
	for _, o := range w.Output {
		data.Set(o.Name, w.outputProperty(o, set))
	}
	str := NewObj("type", "string")
	boolean := NewObj("type", "boolean")
	integer := NewObj("type", "integer")
	props := NewObj(
		"ok", boolean,
		"code", NewObj("type", "string", "description", "ok, or an error code such as target_not_found"),
		"message", str,
		"retryable", NewObj("type", "boolean", "description", "the same call may succeed if retried"),
		"needs_human", NewObj("type", "boolean", "description", "a person must take over"),
		"data", NewObj("type", "object", "properties", data),
		"task_id", str,
		"trace_id", str,
		"attempts", integer,
		"duration_ms", integer,
		"step", str,
	)
	if set != nil && set.Config != nil && set.Config.Repair == config.RepairUse && !w.Writes() {
		// Only a read tool goes on with an unreviewed repair.
		props.Set("healed", NewObj("type", "array", "items", str,
			"description", "targets this call found by a repair proposal no person has reviewed yet (the selector map no longer matched them)"))
	}
	return NewObj("type", "object", "properties", props, "required", []string{"ok", "code"})
}

// listSchema is the shape of every list that leaves the engine
// (result.List); item, when not nil, is the schema of one item.
func listSchema(item *Obj) *Obj {
	items := NewObj("type", "array")
	if item != nil {
		items.Set("items", item)
	}
	props := NewObj("items", items)
	listTail(props)
	return NewObj("type", "object", "description", listDoc, "properties", props)
}

// listTail adds count and truncated, the keys every list form ends with.
func listTail(props *Obj) {
	props.Set("count", NewObj("type", "integer", "description", "how many items there are"))
	props.Set("truncated", NewObj("type", "boolean", "description", "true when a limit cut the list (extract.limit, limits.max_list_items, or paginate's max_pages with a next page left)"))
}

// listDoc describes a list in the output schema: inside the workflow
// vars.NAME is the list itself (vars.NAME[0], len(vars.NAME)); the result
// wraps it. An unset list (its extract skipped) leaves as an empty one.
const listDoc = "a list: items, count and truncated (inside the workflow it is vars.NAME itself)"

// shapeSchema is the output schema of a variable whose shape the steps
// that write it declare: the same shape lint checks field accesses with.
func shapeSchema(sh tmpl.Shape) *Obj {
	// A variable whose step was skipped (if:, optional:) is null.
	fields := func(typ any) *Obj {
		o := NewObj("type", typ)
		if len(sh.Fields) > 0 {
			props := NewObj()
			for _, f := range sh.Fields {
				props.Set(f, NewObj())
			}
			o.Set("properties", props)
		}
		return o
	}
	switch sh.Kind {
	case "list":
		if len(sh.Fields) > 0 {
			return listSchema(fields("object"))
		}
		return listSchema(nil)
	case "object":
		return fields([]string{"object", "null"})
	case "text":
		return NewObj("type", []string{"string", "null"})
	case "number":
		return NewObj("type", []string{"number", "null"})
	}
	return NewObj()
}

// tableSchema is the shape of a list returned with format: table.
func tableSchema(columns []string) *Obj {
	cols := NewObj("type", "array", "items", NewObj("type", "string"), "description", "the column names; each row holds its values in this order")
	if len(columns) > 0 {
		cols.Set("description", "the column names ("+strings.Join(columns, ", ")+"); each row holds its values in this order")
	}
	props := NewObj(
		"columns", cols,
		"rows", NewObj("type", "array", "items", NewObj("type", "array")),
	)
	listTail(props)
	return NewObj("type", "object", "description", "a list as a table: columns once, then rows of values, count and truncated", "properties", props)
}

func (w *Workflow) outputProperty(o Output, set *Set) *Obj {
	if o.Format == FormatTable {
		return tableSchema(o.Columns)
	}
	t := o.Value
	switch {
	case t.ParamRef != "":
		if p := w.Param(t.ParamRef); p != nil {
			if p.Type == TArray {
				var item *Obj
				if p.Items != nil {
					item = p.Items.property(false)
				}
				return listSchema(item)
			}
			return p.property(false)
		}
	case t.VarRef != "":
		if sh, ok := w.shapes[t.VarRef]; ok {
			return shapeSchema(sh)
		}
	case t.IsLiteral():
		switch t.Value().(type) {
		case string:
			return NewObj("type", "string")
		case []any:
			return listSchema(nil)
		}
	case t.Source == "${{ env.id }}" || t.Source == "${{ page.url }}" || t.Source == "${{ page.title }}":
		return NewObj("type", "string")
	}
	return NewObj()
}

// Annotations are the MCP tool annotations of DESIGN.md.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// Annotations derives the hints from risk and idempotent.
func (w *Workflow) Annotations() Annotations {
	return Annotations{
		Title:           w.Title,
		ReadOnlyHint:    w.Risk == Read,
		DestructiveHint: w.Risk == Destructive,
		IdempotentHint:  w.Idempotent,
		OpenWorldHint:   true,
	}
}
