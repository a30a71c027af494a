package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/xeipuuv/gojsonschema"
)

// Call is a validated call: parameters after defaults, and the ids
// toolwright adds to every tool.
type Call struct {
	Params map[string]any
	TaskID string
	EnvID  string
}

// Bind validates raw JSON arguments against the tool's input schema and
// applies defaults. Failures are invalid_params naming the field and rule.
func (w *Workflow) Bind(raw json.RawMessage) (*Call, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return nil, errs.New(errs.InvalidParams, "arguments must be a JSON object")
	}
	if !json.Valid(raw) { // the schema loader would read the first value and ignore the rest
		return nil, errs.New(errs.InvalidParams, "arguments are not valid JSON")
	}
	schema, err := w.validator()
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "the tool's input schema is broken; the trace has the details")
	}
	res, err := schema.Validate(gojsonschema.NewBytesLoader(raw))
	if err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "arguments are not valid JSON")
	}
	if !res.Valid() {
		return nil, errs.New(errs.InvalidParams, "%s", w.describe(res.Errors()))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "arguments are not valid JSON")
	}
	return w.bind(args), nil
}

// BindMap is Bind for arguments already decoded (CLI, tests, call steps).
func (w *Workflow) BindMap(args map[string]any) (*Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "arguments cannot be encoded as JSON")
	}
	return w.Bind(raw)
}

func (w *Workflow) bind(args map[string]any) *Call {
	c := &Call{Params: make(map[string]any, len(w.Params))}
	c.TaskID, _ = args["task_id"].(string)
	c.EnvID, _ = args["env_id"].(string)
	for _, p := range w.Params {
		v, ok := args[p.Name]
		switch {
		case ok:
			c.Params[p.Name] = typed(p, v)
		case p.HasDefault:
			c.Params[p.Name] = p.Default
		default:
			c.Params[p.Name] = zero(p.Type)
		}
	}
	return c
}

// typed converts JSON numbers to int or float64 as the parameter declares.
func typed(p *Param, v any) any {
	switch x := v.(type) {
	case json.Number:
		if p.Type == TInteger {
			if i, err := x.Int64(); err == nil {
				return int(i)
			}
			f, _ := x.Float64()
			return int(math.Round(f))
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			if p.Items != nil {
				out[i] = typed(p.Items, it)
			} else {
				out[i] = it
			}
		}
		return out
	}
	return v
}

// zero is what an absent optional parameter reads as in expressions.
func zero(typ string) any {
	switch typ {
	case TInteger:
		return 0
	case TNumber:
		return 0.0
	case TBoolean:
		return false
	case TArray:
		return []any{}
	}
	return ""
}

// describe turns schema errors into one message for the agent.
func (w *Workflow) describe(list []gojsonschema.ResultError) string {
	msgs := make([]string, 0, len(list))
	for _, e := range list {
		msgs = append(msgs, w.describeOne(e))
	}
	sort.Strings(msgs)
	return strings.Join(dedupe(msgs), "; ")
}

func (w *Workflow) describeOne(e gojsonschema.ResultError) string {
	d := e.Details()
	field := e.Field()
	if field == "(root)" {
		field = ""
	}
	prop, _ := d["property"].(string)
	switch e.Type() {
	case "required":
		return fmt.Sprintf("missing required argument %q (rule: required)", prop)
	case "additional_property_not_allowed":
		names := paramNames(w.Params)
		names = append(names, "task_id")
		if w.Env == EnvGiven {
			names = append(names, "env_id")
		}
		return fmt.Sprintf("unknown argument %q%s (rule: additionalProperties; known: %s)", prop, lint.Suggest(prop, names), strings.Join(names, ", "))
	case "invalid_type":
		return fmt.Sprintf("argument %q must be %v, found %v (rule: type)", field, d["expected"], d["given"])
	case "number_gte":
		return fmt.Sprintf("argument %q must be at least %v (rule: minimum)", field, d["min"])
	case "number_lte":
		return fmt.Sprintf("argument %q must be at most %v (rule: maximum)", field, d["max"])
	case "string_gte":
		return fmt.Sprintf("argument %q must be at least %v characters (rule: minLength)", field, d["min"])
	case "string_lte":
		return fmt.Sprintf("argument %q must be at most %v characters (rule: maxLength)", field, d["max"])
	case "pattern":
		return fmt.Sprintf("argument %q does not match %v (rule: pattern)", field, d["pattern"])
	case "enum":
		return fmt.Sprintf("argument %q must be one of %v (rule: enum)", field, d["allowed"])
	case "array_max_items":
		return fmt.Sprintf("argument %q may have at most %v items (rule: maxItems)", field, d["max"])
	}
	if field == "" {
		return e.Description()
	}
	return fmt.Sprintf("argument %q: %s", field, e.Description())
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// URLParams returns the values of format: url parameters in a call, so the
// caller can check their hosts against policy.allowed_hosts before running.
func (w *Workflow) URLParams(c *Call) map[string]string {
	out := map[string]string{}
	for _, p := range w.Params {
		if p.Format != "url" {
			continue
		}
		if s, ok := c.Params[p.Name].(string); ok && s != "" {
			out[p.Name] = s
		}
	}
	return out
}

// ParseArg reads one command-line value as the parameter's declared type
// (integers, numbers and booleans parsed; arrays as JSON or comma lists).
func (w *Workflow) ParseArg(name, v string) (any, error) {
	if name == "task_id" || name == "env_id" {
		return v, nil
	}
	p := w.Param(name)
	if p == nil {
		return nil, errs.New(errs.InvalidParams, "unknown argument %q%s", name, lint.Suggest(name, paramNames(w.Params)))
	}
	return p.parseText(v)
}

func (p *Param) parseText(v string) (any, error) {
	bad := func(what string) error {
		return errs.New(errs.InvalidParams, "argument %q must be %s, found %q", p.Name, what, v)
	}
	switch p.Type {
	case TInteger:
		var i int
		if _, err := fmt.Sscan(v, &i); err != nil || fmt.Sprint(i) != strings.TrimSpace(v) {
			return nil, bad("a whole number")
		}
		return i, nil
	case TNumber:
		var f float64
		if _, err := fmt.Sscan(v, &f); err != nil {
			return nil, bad("a number")
		}
		return f, nil
	case TBoolean:
		switch v {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, bad("true or false")
	case TArray:
		var list []any
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			if err := json.Unmarshal([]byte(v), &list); err != nil {
				return nil, bad("a JSON list")
			}
			return list, nil
		}
		for _, part := range strings.Split(v, ",") {
			it, err := p.Items.parseText(strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			list = append(list, it)
		}
		return list, nil
	}
	return v, nil
}
