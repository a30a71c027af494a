package testrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/workflow"
)

// checkCases checks a decoded file against the workflows it runs on: every
// tool exists, every argument is a parameter, every data.NAME is an output,
// and grant: true is only on tools that need grants. It stays quiet about
// tools whose workflow file has problems of its own (broken: file names
// without extension).
func checkCases(f *File, set *workflow.Set, broken map[string]bool) lint.Problems {
	var ps lint.Problems
	for _, c := range f.Cases {
		if c.Tool == "" {
			continue
		}
		where := fmt.Sprintf("case %q", c.Name)
		w, ok := set.Tool(c.Tool)
		if !ok && broken[c.Tool] {
			continue
		}
		if !ok {
			ps.Addf(c.toolPos, lint.UnknownRef, "%s: unknown tool %q%s", where, c.Tool, lint.Suggest(c.Tool, set.Names()))
			continue
		}
		if !expectsInvalidParams(c) {
			known := paramNames(w)
			for _, a := range c.argKeys {
				if !slices.Contains(known, a.Key) {
					ps.Addf(lint.At(f.Path, a.KeyN), lint.UnknownRef, "%s: tool %q has no argument %q%s; to test that it is refused, expect code: invalid_params",
						where, w.Name, a.Key, suggestOrList(a.Key, known))
				}
			}
		}
		if c.Grant && !w.Writes() {
			ps.Addf(c.grantPos, lint.BadValue, "%s: grant: true, but %q is a risk: read tool and needs no grant", where, w.Name)
		}
		outputs := make([]string, len(w.Output))
		for i, o := range w.Output {
			outputs[i] = o.Name
		}
		for _, ch := range c.expect {
			if len(ch.segs) > 1 && ch.segs[0] == "data" && !slices.Contains(outputs, ch.segs[1]) {
				ps.Addf(ch.pos, lint.UnknownRef, "%s expect: tool %q has no output %q%s", where, w.Name, ch.segs[1], suggestOrList(ch.segs[1], outputs))
			}
		}
	}
	return ps.Sort()
}

// paramNames are the argument names a tool takes (env_id for env: given).
func paramNames(w *workflow.Workflow) []string {
	var names []string
	for _, p := range w.Params {
		names = append(names, p.Name)
	}
	if w.Env == workflow.EnvGiven {
		names = append(names, "env_id")
	}
	return names
}

func suggestOrList(name string, known []string) string {
	if s := lint.Suggest(name, known); s != "" {
		return s
	}
	if len(known) == 0 {
		return " (it has none)"
	}
	return " (it has " + strings.Join(known, ", ") + ")"
}

// expectsInvalidParams reports whether the case tests that its arguments
// are refused, so unknown arguments are on purpose.
func expectsInvalidParams(c *Case) bool {
	for _, ch := range c.expect {
		if ch.path == "code" && ch.want.hasEquals && ch.want.equals == errs.InvalidParams {
			return true
		}
	}
	return false
}
