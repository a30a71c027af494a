package kinds

import "github.com/toolwright/toolwright/engine/step"

// pageConds are the page conditions, declared once for every kind that
// takes one: wait waits until one holds, assert checks that one holds now.
// Doc says the condition itself; condFields puts the kind's verb before it.
var pageConds = []step.Field{
	{Name: "visible", Type: step.Target, Doc: "this target is visible"},
	{Name: "hidden", Type: step.Target, Doc: "this target is gone or hidden"},
	{Name: "text", Type: step.Template, Doc: "this text is on the page"},
	{Name: "url", Type: step.Template, URL: true, Doc: "the page URL matches this glob, where * matches anything (values a template puts in after the URL's start are URL-encoded)"},
	{Name: "count", Type: step.Target, Doc: "this target has at least at_least visible matches"},
	{Name: "at_least", Type: step.Int, Doc: "with count: how many matches (default 1); a number or a template giving one"},
	{Name: "network_idle", Type: step.Duration, Doc: "no request has been in flight for this long"},
}

// condFields returns the declarations of the conditions names, in that
// order, each Doc led by verb ("wait until"); at_least, a modifier of
// count, keeps its own words.
func condFields(verb string, names ...string) []step.Field {
	out := make([]step.Field, 0, len(names))
	for _, name := range names {
		for _, f := range pageConds {
			if f.Name != name {
				continue
			}
			if verb != "" && name != "at_least" {
				f.Doc = verb + " " + f.Doc
			}
			out = append(out, f)
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			panic("kinds: no page condition " + name)
		}
	}
	return out
}

// noted adds a kind's own remark, in parentheses, to the docs of some
// conditions: how that kind checks them.
func noted(fs []step.Field, notes map[string]string) []step.Field {
	for i := range fs {
		if n, ok := notes[fs[i].Name]; ok {
			fs[i].Doc += " (" + n + ")"
		}
	}
	return fs
}
