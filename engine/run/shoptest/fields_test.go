package shoptest

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
)

// fieldsWorkflow fills one field of testdata/real/truthful/fields.html
// and reads back every field and the page's log; with optional set, a
// failed fill is skipped and the fields are read all the same.
func fieldsWorkflow(name, optional string) string {
	return `
name: ` + name + `
description: Fill one field of the fields page and read every field back.
risk: read
params:
  field: {type: target, prefix: tr.fields., description: The field}
  value: {type: string, description: What to fill, max_length: 100}
steps:
  - goto: ${{ config.shop_base }}/fields.html
  - fill: {target: "${{ params.field }}", value: "${{ params.value }}"}
    optional: ` + optional + `
  - extract: {from: tr.fields.title, attr: value, into: title}
  - extract: {from: tr.fields.summary, attr: value, into: summary}
  - extract: {from: tr.fields.amount, attr: value, into: amount}
  - extract: {from: tr.fields.due, attr: value, into: due}
  - extract: {from: tr.fields.starts, attr: value, into: starts}
  - extract: {from: tr.fields.colour, attr: value, into: colour}
  - extract: {from: tr.fields.level, attr: value, into: level}
  - extract: {from: tr.fields.phone, attr: value, into: phone}
  - extract: {from: tr.fields.code, attr: value, into: code}
  - extract: {from: tr.fields.card, attr: value, into: card}
  - extract: {from: tr.fields.log, into: log}
output:
  title: ${{ vars.title }}
  summary: ${{ vars.summary }}
  amount: ${{ vars.amount }}
  due: ${{ vars.due }}
  starts: ${{ vars.starts }}
  colour: ${{ vars.colour }}
  level: ${{ vars.level }}
  phone: ${{ vars.phone }}
  code: ${{ vars.code }}
  card: ${{ vars.card }}
  log: ${{ vars.log }}
`
}

// TestFillOnlyWhatTheFieldTakes: a fill whose value the field does not
// keep answered ok while the field held something else: a title longer
// than the field's maxlength was cut by the browser, "1,5" typed into a
// number field became 15, and a date, time, colour or range field (filled
// by its picker, not by typing) kept its old value. Now a value the field
// does not take fails invalid_params before anything is cleared or typed,
// saying what the field takes, and a picker field's value is set as its
// picker sets it (a framework that tracks its field's value sees the
// change), both when the page finds and readies the field in one request
// and when the field is found first (a role locator, a target within
// another).
func TestFillOnlyWhatTheFieldTakes(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{"fill_field": fieldsWorkflow("fill_field", "false"), "try_field": fieldsWorkflow("try_field", "true")})
	old := map[string]string{"title": "old", "summary": "old summary", "amount": "7", "due": "2026-01-02", "starts": "09:00", "colour": "#000000", "level": "4"}
	args := func(field, value string) string {
		return `{"field": "tr.fields.` + field + `", "value": "` + value + `"}`
	}
	fill := func(tool, field, value string) (map[string]any, []string) {
		t.Helper()
		env := h.OK(h.Call(tool, args(field, value)))
		fields := env.Data
		var log []string
		if l, ok := env.Data["log"].(result.List); ok {
			for _, x := range l.Items {
				log = append(log, x.(string))
			}
		}
		return fields, log
	}
	for _, c := range []struct {
		field, value, key, msg string
	}{
		{"title", "far too long a title", "title", "takes at most 8 characters (its maxlength) and the value has 20"},
		{"title_by_role", "far too long a title", "title", "takes at most 8 characters"},
		{"summary", "a summary that is longer", "summary", "takes at most 12 characters"},
		{"amount", "1,5", "amount", `is a number field and does not take "1,5" (it would hold ""): nothing was typed; give a number`},
		{"amount_within", "twelve", "amount", "is a number field"},
		{"due", "12/04/2026", "due", "is a date field and does not take \"12/04/2026\""},
		{"due_within", "2026-13-40", "due", "give a date as YYYY-MM-DD"},
		{"starts", "half past ten", "starts", "is a time field"},
		{"colour", "orange", "colour", "give a colour as #rrggbb"},
		{"level", "5", "level", `is a range field and does not take "5" (it would hold "6")`},
	} {
		if env := h.Code(h.Call("fill_field", args(c.field, c.value)), "invalid_params", c.msg); env.Retryable || env.NeedsHuman {
			t.Errorf("fill %s with %q: %s, want neither retryable nor needs_human", c.field, c.value, env.JSON())
		}
		fields, log := fill("try_field", c.field, c.value)
		if fields[c.key] != old[c.key] {
			t.Errorf("after the refused fill of %s the field holds %q, want its old %q untouched", c.field, fields[c.key], old[c.key])
		}
		if len(log) > 0 {
			t.Errorf("after the refused fill of %s the page saw %q, want nothing", c.field, log)
		}
	}
	for _, c := range []struct {
		field, value, key, want string
	}{
		{"title", "exactly8", "title", "exactly8"},
		{"title_by_role", "short", "title", "short"},
		{"amount", "12.5", "amount", "12.5"},
		{"due", "2026-12-04", "due", "2026-12-04"},
		{"due_within", "2027-02-28", "due", "2027-02-28"},
		{"starts", "10:30", "starts", "10:30"},
		{"colour", "#FF8800", "colour", "#ff8800"},
		{"level", "8", "level", "8"},
	} {
		fields, log := fill("fill_field", c.field, c.value)
		if fields[c.key] != c.want {
			t.Errorf("after filling %s with %q the field holds %q, want %q", c.field, c.value, fields[c.key], c.want)
		}
		for _, ev := range []string{c.key + ":changed:" + c.want, c.key + ":change"} {
			if !slices.Contains(log, ev) {
				t.Errorf("after filling %s with %q the page's log %q has no %s", c.field, c.value, log, ev)
			}
		}
	}
	// A field whose own script keeps digits only: what it rewrote stands,
	// and a value it threw away whole is not a fill that happened.
	h.Code(h.Call("fill_field", args("phone", "call me")), "invalid_params", "target tr.fields.phone kept nothing of the value typed into it")
	if fields, _ := fill("fill_field", "phone", "0-12 34"); fields["phone"] != "01234" {
		t.Errorf("the digits-only field holds %q after 0-12 34, want 01234", fields["phone"])
	}
	// Some of its letters or digits thrown away is not a fill that
	// happened either (it held 12 and answered ok); a password field's
	// value is not said.
	h.Code(h.Call("fill_field", args("phone", "a1b2")), "invalid_params", `target tr.fields.phone kept only part of the value typed into it (it holds "12")`)
	env := h.Code(h.Call("fill_field", args("pin", "12ab")), "invalid_params", "target tr.fields.pin kept only part of the value typed into it: the page's own script dropped")
	if strings.Contains(env.Message, "12") {
		t.Errorf("the password field's value is in the message: %s", env.Message)
	}
	// What a script rewrites stands: upper case, dashes, accents, bullets
	// in place of digits.
	for _, c := range []struct{ field, value, want string }{
		{"code", "abc 123 x", "ABC-123-X"},
		{"code", "Café9", "CAF-E9"},
		{"card", "4111 1111 1111 1234", "••••••••••••1234"},
	} {
		if fields, _ := fill("fill_field", c.field, c.value); fields[c.field] != c.want {
			t.Errorf("%s holds %q after %q, want %q", c.field, fields[c.field], c.value, c.want)
		}
	}
}
