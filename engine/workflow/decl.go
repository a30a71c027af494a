package workflow

import (
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/policy"
	"slices"
)

// The declarations of what a workflow author writes: the file's top-level
// keys and a parameter's fields. Decoding, lint, docs and the published
// JSON Schema all read them.

// KeyInternal is the workflow key that keeps a helper workflow from being
// served as a tool (Workflow.Internal).
const KeyInternal = "internal"

// FileDecl declares a workflow file's top-level keys.
var FileDecl = &decl.Object{
	Name:  "workflow",
	Title: "toolwright workflow",
	Doc:   "One business action, served as one MCP tool. The file is workflows/<name>.yaml.",
	Fields: []decl.Field{
		{Name: "name", Type: decl.String, Required: true, Pattern: nameRE.String(), PatDoc: "snake_case: lowercase letters, digits and _, starting with a letter, at most 64",
			Doc: "the MCP tool name; it equals the file name"},
		{Name: "title", Type: decl.String, Doc: "a human title for the tool"},
		{Name: "description", Type: decl.String, Required: true, Doc: "what the tool does; the agent reads it to choose this tool"},
		{Name: "risk", Type: decl.Enum, Enum: policy.Risks, Default: Write,
			Doc: "read tools are on; write and destructive tools need a grant for each task"},
		{Name: "idempotent", Type: decl.Bool, Default: false, Doc: "calling twice with the same arguments has the effect of calling once (MCP idempotentHint)"},
		{Name: KeyInternal, Type: decl.Bool, Default: false,
			Doc: "true: a helper (a sign-in other workflows call:) that is not an MCP tool: not listed, not callable by an agent (calling it is an unknown tool), not in toolwright tools or docs; call: still runs it"},
		{Name: "env", Type: decl.Enum, Enum: []string{EnvTemporary, EnvGiven, EnvNew}, Default: EnvTemporary,
			Doc: "temporary: a fresh environment per call; given: the call names an env_id; new: the workflow opens an environment and returns its id"},
		{Name: "purposes", Type: decl.List, Elem: &decl.Field{Type: decl.String}, Doc: "env: given: the purposes of the environments this tool may run on; env: temporary: one, its environment's purpose (whose saved session it starts with)"},
		{Name: "session", Type: decl.Enum, Enum: []string{"save"}, Doc: "save: after this workflow succeeds, its environment's sign-in state (cookies, local and session storage) is saved as its purpose's session (sessions: in the config)"},
		{Name: "deadline", Type: decl.String, Raw: true, Default: "60s", Schema: templateOr("string"),
			Doc: "how long a call may take: a duration like 60s or 2m, or a template; capped by limits.max_deadline"},
		{Name: "params", Type: decl.Map, Raw: true, Elem: &decl.Field{Type: decl.Nested, Obj: ParamDecl},
			Doc: "the tool's arguments, NAME: {type, description, ...}, in the order the agent sees them"},
		{Name: "steps", Type: decl.List, Raw: true, Required: true, Schema: func() *decl.Obj { return decl.NewObj("$ref", "#/definitions/steps") },
			Doc: "the browser steps, run in order"},
		{Name: "viewport", Type: decl.Nested, Obj: config.ViewportDecl, Doc: "the size of this workflow's pages, {width, height} (default: browser.viewport)"},
		{Name: "handlers", Type: decl.List, Raw: true, Schema: func() *decl.Obj { return decl.NewObj("type", "array", "items", HandlerDecl.Schema()) },
			Doc: "like Playwright's addLocatorHandler: whenever a step is about to act (click, fill, press, select, check, upload, ..., and paginate before it clicks next) and a handler's when holds, its steps run first, at most max times a call; a step that failed on a target because of what a handler answers (a banner that came late) runs again once after it"},
		{Name: "output", Type: decl.Map, Raw: true, Elem: &decl.Field{Type: decl.Any, Schema: outputSchema},
			Doc: "the data returned to the agent: NAME: value, usually a template such as ${{ vars.rows }}; for a list also NAME: {rows: TEMPLATE, format: objects|table} (table: columns once, then rows of values)"},
	},
}

// HandlerDecl declares one entry of handlers:.
var HandlerDecl = &decl.Object{
	Name:  "handler",
	Title: "handler",
	Doc:   "Steps that answer something that may come up at any time (a cookie notice, a welcome dialog), run before a step acts whenever when holds.",
	Fields: []decl.Field{
		{Name: "when", Type: decl.Any, Raw: true, Required: true, Schema: func() *decl.Obj { return decl.NewObj("$ref", "#/definitions/condition") },
			Doc: "one of wait's conditions, checked once (without waiting) before each step that acts"},
		{Name: "steps", Type: decl.List, Raw: true, Required: true, Schema: func() *decl.Obj { return decl.NewObj("$ref", "#/definitions/steps") },
			Doc: "the steps that answer it (no handler runs inside them)"},
		{Name: "max", Type: decl.Int, Min: decl.F(1), Default: 1, Doc: "how many times a call it may run (at most limits.max_loop)"},
	},
}

// ParamDecl declares a parameter's fields.
var ParamDecl = &decl.Object{
	Name:  "param",
	Title: "parameter",
	Doc:   "One argument of the tool. Its rules become the tool's input schema, so no unbounded value reaches a workflow.",
	Fields: []decl.Field{
		{Name: "type", Type: decl.Enum, Enum: paramTypes, Required: true, Doc: "the argument's type"},
		{Name: "description", Type: decl.String, Required: true, Doc: "what to pass; the agent reads it"},
		{Name: "required", Type: decl.Bool, Default: false, Doc: "the call must give it (a parameter with a default never is)"},
		{Name: "default", Type: decl.Any, Raw: true, Doc: "the value when the call gives none; it must pass the parameter's own rules"},
		{Name: "enum", Type: decl.List, Raw: true, For: []string{TString, TInteger}, Doc: "the allowed values"},
		{Name: "enum_from", Type: decl.Enum, Enum: []string{"regions"}, For: []string{TString}, Doc: "take the allowed values from the server config: regions"},
		{Name: "min", Type: decl.Number, For: []string{TInteger, TNumber}, Doc: "the least value (min and max are both required)"},
		{Name: "max", Type: decl.Number, For: []string{TInteger, TNumber}, Doc: "the greatest value (min and max are both required)"},
		{Name: "min_length", Type: decl.Int, Min: decl.F(0), For: []string{TString}, Doc: "the fewest characters"},
		{Name: "max_length", Type: decl.Int, Min: decl.F(0), For: []string{TString}, Default: DefaultMaxLength, Doc: "the most characters"},
		{Name: "pattern", Type: decl.String, For: []string{TString}, Doc: "an RE2 regular expression the value must match"},
		{Name: "format", Type: decl.Enum, Enum: []string{"url"}, For: []string{TString}, Doc: "url: an http(s) URL whose host policy.allowed_hosts allows"},
		{Name: "items", Type: decl.Nested, Raw: true, For: []string{TArray}, Obj: ItemDecl, Doc: "the parameter spec of each item (a scalar type)"},
		{Name: "max_items", Type: decl.Int, Min: decl.F(0), For: []string{TArray}, Doc: "the most items (required; at most limits.max_list_items)"},
		{Name: "prefix", Type: decl.String, For: []string{TTarget}, Doc: "the argument names a selector-map target starting with this prefix"},
	},
}

// ItemDecl declares an array parameter's items: a parameter spec of a
// scalar type, without a description of its own.
var ItemDecl = &decl.Object{
	Name:  "items",
	Title: "array items",
	Doc:   "The spec every item of an array parameter must pass.",
}

func init() {
	for _, f := range ParamDecl.Fields {
		switch f.Name {
		case "items", "max_items", "prefix", "required", "default":
			continue
		case "description":
			f.Required = false
		case "type":
			f.Enum = []string{TString, TInteger, TNumber, TBoolean}
		}
		ItemDecl.Fields = append(ItemDecl.Fields, f)
	}
}

// templateOr is the schema of a value that may be a literal of type typ or
// a ${{ }} template.
func templateOr(typ ...string) func() *decl.Obj {
	return func() *decl.Obj {
		if len(typ) == 1 {
			return decl.NewObj("type", typ[0])
		}
		return decl.NewObj("type", typ)
	}
}

// keysFor says which keys apply to a parameter type, from the declaration.
func keysFor(typ string) []string {
	var out []string
	for _, f := range ParamDecl.Fields {
		if slices.Contains(f.For, typ) {
			out = append(out, f.Name)
		}
	}
	return out
}
