package pagetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testbrowser"
)

// Pages that misbehave on purpose (issue 22, item 12): each must end its
// call with a clear answer by the call's deadline, every time, and leave
// the browser able to serve the next call. They are run ten times at a load
// of 8 (stress-ng --cpu 8) to say so in the README's Reliability table.

const pageFaultSelectors = `
spin.button:
  css: "#spin"
hog.button:
  css: "#hog"
popups.button:
  css: "#popups"
popups.opened:
  css: "#opened"
faults.heading:
  css: h1
`

var pageFaultWorkflows = map[string]string{
	"spin_load": `name: spin_load
description: Open a page whose script never yields while it loads.
risk: read
deadline: 10s
steps:
  - goto: ${{ config.acme_base }}/spin.html?at=load
`,
	"spin_click": `name: spin_click
description: Click a button whose handler never yields, then read the page.
risk: read
deadline: 10s
steps:
  - goto: ${{ config.acme_base }}/spin.html
  - click: spin.button
  - wait: {text: never there}
`,
	"hog": `name: hog
description: Click a button that allocates memory until the page dies.
risk: read
deadline: 30s
steps:
  - goto: ${{ config.acme_base }}/hog.html
  - click: hog.button
  - wait: {text: never there}
`,
	"popups": `name: popups
description: Click a button that calls window.open 1000 times, then read what it says.
risk: read
deadline: 4m
steps:
  - goto: ${{ config.acme_base }}/popups.html
  - click: popups.button
    timeout: 3m
  - wait: {text: opened}
    timeout: 3m
  - extract: {from: popups.opened, into: opened}
output:
  opened: ${{ vars.opened }}
`,
	"pf_title": `name: pf_title
description: Read the demo site's title.
risk: read
deadline: 2m
steps:
  - goto: ${{ config.acme_base }}/index.html
  - extract: {from: faults.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
}

func newPageFaultHarness(t *testing.T) *harness.Harness {
	return harness.New(t, pageFaultWorkflows, func(c *config.Config) { harness.AddSelectors(t, c, pageFaultSelectors) })
}

// timedCall runs tool and reports how long its answer took.
func timedCall(h *harness.Harness, tool string) (*result.Envelope, time.Duration) {
	start := time.Now()
	env := h.Call(tool, `{}`)
	return env, time.Since(start)
}

// lateBy bounds how long after its deadline a call may answer: the call's
// own cleanup (closing a page whose renderer never yields, storing the
// trace) on a machine at a load of 8 and more. A call that waited for the
// page instead would take its whole step timeout (60s in the harness) or
// never end.
const lateBy = 40 * time.Second

// TestInfiniteLoopPageEndsByDeadline: a page whose script never yields,
// while it loads or in a click's handler, ends a call with a 10s deadline
// as deadline_exceeded within its deadline (plus cleanup), and the next
// call works.
func TestInfiniteLoopPageEndsByDeadline(t *testing.T) {
	t.Parallel()
	h := newPageFaultHarness(t)
	for _, tool := range []string{"spin_load", "spin_click"} {
		env, took := timedCall(h, tool)
		t.Logf("%s answered %s after %s", tool, env.Code, took.Round(time.Millisecond))
		h.Code(env, "deadline_exceeded")
		if took > 10*time.Second+lateBy {
			t.Errorf("%s answered after %s, deadline 10s", tool, took.Round(time.Millisecond))
		}
		h.OK(h.Call("pf_title", `{}`))
	}
}

// TestMemoryHogPageEnds: a page that allocates memory without bound ends
// its call with env_unavailable (its renderer died of out-of-memory) or
// deadline_exceeded, never later than its deadline allows, and the next
// call works.
func TestMemoryHogPageEnds(t *testing.T) {
	t.Parallel()
	h := newPageFaultHarness(t)
	env, took := timedCall(h, "hog")
	t.Logf("hog answered %s (%s) after %s", env.Code, env.Message, took.Round(time.Millisecond))
	if env.OK || (env.Code != "env_unavailable" && env.Code != "deadline_exceeded") {
		t.Errorf("want env_unavailable or deadline_exceeded, got %s", env.JSON())
	}
	if took > 30*time.Second+lateBy {
		t.Errorf("hog answered after %s, deadline 30s", took.Round(time.Millisecond))
	}
	h.OK(h.Call("pf_title", `{}`))
}

// TestWindowOpenFlood: a click that calls window.open 1000 times answers
// ok with one window opened (the engine's popup rule, as Chrome's popup
// blocker: one window per click), the windows it opened close with the
// call's environment, and the next call works. Before (the blocker off, as
// rod's launcher sets it): 1000 pages, each set up by the guard, and
// deadline_exceeded with the click still running; on the headless shell,
// which has no blocker, the same before the rule (internal after 2m). With
// the full Chromium's blocker alone the click took 25-45 s at a load of
// 80 (each blocked window.open a round trip to the browser process); the
// rule answers them in the page. The deadline is still 4m and its click
// and wait may take 3m each.
func TestWindowOpenFlood(t *testing.T) {
	t.Parallel()
	// Its own Chromium: 1000 blocked window.open calls are 1000 round
	// trips to the browser process, which the shared browser's other
	// tests then wait behind (in the lead's clean-clone CI at a load of 20
	// on the shared browser the click's handler ran past the harness's
	// 60 s step timeout, and the wait for its answer past another 60 s).
	testbrowser.OwnBrowser(t)
	h := newPageFaultHarness(t)
	env, took := timedCall(h, "popups")
	t.Logf("popups answered %s after %s: %v", env.Code, took.Round(time.Millisecond), env.Data)
	for _, s := range h.Trace(env).Steps {
		t.Logf("step %s %s %s %dms %s", s.Path, s.Kind, s.Code, s.DurationMS, s.Error)
	}
	h.OK(env)
	if opened, _ := env.Data["opened"].(string); !strings.HasPrefix(opened, "opened ") {
		t.Errorf("opened = %q", opened)
	}
	h.OK(h.Call("pf_title", `{}`))
	// Every page the flood opened is gone with its environment: what is
	// left is the pool's (a spare, at most).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	probe, err := h.BM.OpenTemporary(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer h.BM.Release(probe)
	var pages int
	harness.WaitFor(t, 2*time.Minute, "the flood's pages to close", func() bool {
		ps, err := probe.Page().Browser().Context(ctx).Pages()
		if err != nil {
			t.Fatal(err)
		}
		pages = 0
		for _, p := range ps {
			if info, err := p.Info(); err == nil && strings.Contains(info.URL, "popup=") {
				pages++
			}
		}
		return pages == 0
	})
}
