package run_test

import (
	"encoding/json"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
)

// Targets of testdata/site/ready.html, added to the demo map.
const readySelectors = `
ready.under:
  css: "#under"
ready.late:
  css: "#late"
ready.by_text:
  css: "#not-on-this-page"
  fallbacks:
    - text: Only by text
ready.out:
  css: "#out"
ready.items:
  css: "#items li"
  many: true
ready.next:
  css: "#next-link"
ready.cells:
  css: "#cells tr"
  many: true
ready.a: {within: ready.cells, css: td.a}
ready.b: {within: ready.cells, css: td.b}
ready.c: {within: ready.cells, css: td.c}
ready.d: {within: ready.cells, css: td.d}
`

func withReadySelectors(t *testing.T, c *config.Config) { harness.AddSelectors(t, c, readySelectors) }

// TestClickGuaranteesInOneRoundTrip: a click found and readied in one
// request (selector.Map.Ready) keeps the guarantees of the way that waits:
// a disabled button is waited for, a covered one fails at once naming its
// cover, a fallback is recorded in the trace; a goto to a #fragment of the
// open page ends (no load event comes for it); paginate stops at a next
// link drawn disabled by a class, after reading every page.
func TestClickGuaranteesInOneRoundTrip(t *testing.T) {
	t.Parallel()
	wf := func(name, steps string) string {
		return "name: " + name + "\ndescription: On ready.html, " + name + ".\nrisk: read\nsteps:\n  - goto: ${{ config.acme_base }}/ready.html\n" + steps
	}
	h := harness.New(t, map[string]string{
		"late":     wf("late", "  - click: ready.late\n  - extract: {from: ready.out, into: out}\noutput:\n  out: ${{ vars.out }}\n"),
		"by_text":  wf("by_text", "  - click: ready.by_text\n  - extract: {from: ready.out, into: out}\noutput:\n  out: ${{ vars.out }}\n"),
		"covered":  wf("covered", "  - click: ready.under\n"),
		"fragment": wf("fragment", "  - goto: ${{ config.acme_base }}/ready.html#part\n  - click: ready.by_text\n"),
		"pages":    wf("pages", "  - paginate:\n      next: ready.next\n      max_pages: 5\n      steps:\n        - extract: {from: ready.items, into: items, append: true}\noutput:\n  items: ${{ vars.items }}\n"),
	}, func(c *config.Config) { withReadySelectors(t, c) })

	if env := h.OK(h.Call("late", `{}`)); env.Data["out"] != "late clicked" {
		t.Errorf("a button enabled late: %s", env.JSON())
	}
	env := h.OK(h.Call("by_text", `{}`))
	if env.Data["out"] != "text clicked" {
		t.Errorf("a button found by a fallback: %s", env.JSON())
	}
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "click" && s.Strategy != "fallback 1 (text)" {
			t.Errorf("click strategy %q, want fallback 1 (text)", s.Strategy)
		}
	}
	h.Code(h.Call("covered", `{}`), "target_covered", "#cover", "A cookie banner")
	h.OK(h.Call("fragment", `{}`))
	env = h.OK(h.Call("pages", `{}`))
	var items struct {
		Items     []string
		Count     int
		Truncated bool
	}
	asJSON(t, env.Data["items"], &items)
	if items.Count != 6 || items.Truncated || items.Items[5] != "item 6" {
		t.Errorf("pages: want 6 items over 3 pages, not truncated: %s", env.JSON())
	}
}

// TestReadsAsShown: extract reads what a person sees (innerText, white
// space collapsed) also where it takes the quick way for a cell holding
// one text node: upper-cased by CSS, hidden parts left out, line breaks
// and non-breaking spaces as white space.
func TestReadsAsShown(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"cells": `
name: cells
description: Read ready.html's cells.
risk: read
steps:
  - goto: ${{ config.acme_base }}/ready.html
  - extract: {from: ready.cells, fields: {a: ready.a, b: ready.b, c: ready.c, d: ready.d}, into: cells}
output:
  cells: ${{ vars.cells }}
`}, func(c *config.Config) { withReadySelectors(t, c) })
	env := h.OK(h.Call("cells", `{}`))
	var cells struct{ Items []map[string]any }
	asJSON(t, env.Data["cells"], &cells)
	raw := cells.Items
	want := []map[string]any{
		{"a": "spaced out text", "b": "SHOUTED", "c": "shown", "d": "non breaking"},
		{"a": "plain", "b": "two lines", "c": "", "d": ""},
	}
	if len(raw) != len(want) {
		t.Fatalf("cells: %s", env.JSON())
	}
	for i, w := range want {
		got := raw[i]
		for k, v := range w {
			if got[k] != v {
				t.Errorf("row %d %s: got %q, want %q", i, k, got[k], v)
			}
		}
	}
}

// asJSON decodes v, as the envelope would carry it, into out.
func asJSON(t *testing.T, v, out any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(raw, out)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Targets of testdata/site/typing.html, added to the demo map.
const typingSelectors = `
typing.email:
  css: "#email"
typing.nick:
  css: "#not-on-this-page"
  fallbacks:
    - label: Nickname
typing.late:
  css: "#late"
typing.prefilled:
  css: "#prefilled"
typing.search:
  css: "#search"
typing.under:
  css: "#under"
typing.log:
  css: "#log"
typing.out:
  css: "#out"
`

// TestTypingGuaranteesInOneRoundTrip: a fill and a press found and readied
// in one request (selector.Map.Typing) keep the guarantees of the way that
// waits: the field is cleared, typed into and told of it (input, then
// change, with the value typed), a disabled field is waited for, a covered
// one fails at once naming its cover, a fallback is recorded in the trace,
// and a press lands in its target.
func TestTypingGuaranteesInOneRoundTrip(t *testing.T) {
	t.Parallel()
	wf := func(name, steps string) string {
		return "name: " + name + "\ndescription: On typing.html, " + name + ".\nrisk: read\nsteps:\n  - goto: ${{ config.acme_base }}/typing.html\n" + steps
	}
	h := harness.New(t, map[string]string{
		"type_all": wf("type_all", `  - fill: {target: typing.email, value: ann@example.com}
  - fill: {target: typing.nick, value: Annie}
  - fill: {target: typing.late, value: later}
  - fill: {target: typing.prefilled, value: new text}
  - fill: {target: typing.search, value: anvils}
  - press: {key: Enter, target: typing.search}
  - extract: {from: typing.log, into: log}
  - extract: {from: typing.out, into: out}
output:
  log: ${{ vars.log }}
  out: ${{ vars.out }}
`),
		"covered": wf("covered", "  - fill: {target: typing.under, value: x}\n"),
	}, func(c *config.Config) { harness.AddSelectors(t, c, typingSelectors) })

	env := h.OK(h.Call("type_all", `{}`))
	if want := "email=ann@example.com nick=Annie late=later prefilled=new text search=anvils"; env.Data["log"] != want {
		t.Errorf("change events: %q, want %q", env.Data["log"], want)
	}
	if env.Data["out"] != "searched anvils" {
		t.Errorf("press Enter in the search field: %q, want %q", env.Data["out"], "searched anvils")
	}
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "fill" && s.Target == "typing.nick" && s.Strategy != "fallback 1 (label)" {
			t.Errorf("fill typing.nick strategy %q, want fallback 1 (label)", s.Strategy)
		}
	}
	h.Code(h.Call("covered", `{}`), "target_covered", "#cover", "A cookie banner")
}
