package pagetest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/harness"
)

// scrollTargets are the targets of testdata/real/resolve/scrollbox.html.
const scrollTargets = `
real.scroll.inbox:
  css: "#inbox"
real.scroll.messages:
  css: "#inbox li.msg"
  many: true
real.scroll.archive:
  css: "#archive"
real.scroll.old:
  css: "#archive li.old"
  many: true
real.scroll.frame:
  css: "#inbox-frame"
real.scroll.framed_inbox:
  frame: real.scroll.frame
  css: "#inbox"
real.scroll.framed_messages:
  frame: real.scroll.frame
  css: "#inbox li.msg"
  many: true
real.scroll.frame_title:
  css: "#frame-inbox-title"
`

// TestScrollBox: scrolling a scrollable element (not the page) waits at
// its end for the messages a scroll loads, until the condition holds; a box
// that loads nothing more ends target_not_found ("reached the end"), not
// limit_exceeded after burning its screens, and one that holds while the
// step waits at the end holds. Before, the wait at the end
// compared the page's height with the box's, saw a change at once and
// went on: the screens ran out before the box loaded anything.
func TestScrollBox(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"read_inbox": `
name: read_inbox
description: Scroll the inbox until it holds 20 messages, or the archive until it holds 10.
risk: read
params:
  box: {type: string, enum: [inbox, archive, note], description: Which box, default: inbox}
steps:
  - goto: ${{ config.real_base }}/scrollbox.html?ms=1000
  - scroll: {target: real.scroll.inbox, until: {count: real.scroll.messages, at_least: 20}, max: 10}
    if: params.box == "inbox"
    timeout: 30s
  - scroll: {target: real.scroll.archive, until: {count: real.scroll.old, at_least: 10}, max: 10}
    if: params.box == "archive"
    timeout: 30s
  - scroll: {target: real.scroll.archive, until: {text: Archive complete}, max: 10}
    if: params.box == "note"
    timeout: 30s
  - extract: {from: real.scroll.messages, list: true, into: messages}
output:
  messages: ${{ vars.messages }}
`}, nil)
	env := h.OK(h.Call("read_inbox", `{}`))
	if n := harness.List(t, env, "messages").Count; n != 20 {
		t.Errorf("inbox: %d messages, want 20: %s", n, env.JSON())
	}
	h.Code(h.Call("read_inbox", `{"box": "archive"}`), "target_not_found", "reached the end of /scrollbox.html", "10 of real.scroll.old never held")
	// At the end of the box, the condition holds on the third wait there
	// (the note comes 3.5s after the end, each wait lasts at most 1.5s): it
	// is a success, not "reached the end". Before, a condition that held
	// during a wait at the end counted as a screen that changed nothing.
	h.OK(h.Call("read_inbox", `{"box": "note"}`))
}

// TestScrollBoxInFrame: a box inside a frame scrolls like one in the page.
// Its condition is checked where its target lives: a count of the frame's
// messages, or a target of the top document (which the frame's page,
// asked to answer it alone, would look for in its own document and find
// hidden at once: "ok" after one screen instead of the end of the box).
func TestScrollBoxInFrame(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"read_framed_inbox": `
name: read_framed_inbox
description: Scroll the inbox inside a frame until it holds 20 messages, or until the page's title hides (never).
risk: read
params:
  until: {type: string, enum: [count, title], description: What ends the scrolling, default: count}
steps:
  - goto: ${{ config.real_base }}/frame-inbox.html
  - scroll: {target: real.scroll.framed_inbox, until: {count: real.scroll.framed_messages, at_least: 20}, max: 10}
    if: params.until == "count"
    timeout: 30s
  - scroll: {target: real.scroll.framed_inbox, until: {hidden: real.scroll.frame_title}, max: 10}
    if: params.until == "title"
    timeout: 30s
  - extract: {from: real.scroll.framed_messages, list: true, into: messages}
output:
  messages: ${{ vars.messages }}
`}, nil)
	env := h.OK(h.Call("read_framed_inbox", `{}`))
	if n := harness.List(t, env, "messages").Count; n != 20 {
		t.Errorf("framed inbox: %d messages, want 20: %s", n, env.JSON())
	}
	h.Code(h.Call("read_framed_inbox", `{"until": "title"}`), "target_not_found", "reached the end of /frame-inbox.html", "hidden real.scroll.frame_title never held")
}
