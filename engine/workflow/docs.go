package workflow

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/step"
)

// WriteDocs writes a Markdown catalogue of the set's tools: those served
// (an internal workflow is not one).
func (s *Set) WriteDocs(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("| tool | risk | env | what it does |\n|---|---|---|---|\n")
	for _, t := range s.Served() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", t.Name, t.Name, t.Risk, t.Env, oneLine(t.Description))
	}
	for _, t := range s.Served() {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if t.Title != "" {
			fmt.Fprintf(&b, "**%s.** ", t.Title)
		}
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(t.Description))
		a := t.Annotations()
		fmt.Fprintf(&b, "- risk: `%s`%s\n- env: `%s`\n- idempotent: %v (readOnlyHint %v, destructiveHint %v)\n",
			t.Risk, grantNote(t), t.Env, a.IdempotentHint, a.ReadOnlyHint, a.DestructiveHint)
		if len(t.Purposes) > 0 {
			fmt.Fprintf(&b, "- purposes: %s\n", strings.Join(t.Purposes, ", "))
		}
		fmt.Fprintf(&b, "- file: `%s`\n\n", t.File)
		b.WriteString("| argument | type | required | rules | description |\n|---|---|---|---|---|\n")
		for _, p := range t.Params {
			fmt.Fprintf(&b, "| `%s` | %s | %v | %s | %s |\n", p.Name, p.Type, p.Required, rules(p), oneLine(p.Description))
		}
		fmt.Fprintf(&b, "| `task_id` | string | %v | `%s` | idempotency key |\n", t.NeedsTaskID(), TaskIDPattern)
		if t.Env == EnvGiven {
			b.WriteString("| `env_id` | string | true | | the environment to run in |\n")
		}
		if len(t.Output) > 0 {
			b.WriteString("\nReturns `data` with: ")
			names := make([]string, len(t.Output))
			for i, o := range t.Output {
				names[i] = "`" + o.Name + "`"
			}
			b.WriteString(strings.Join(names, ", ") + ".\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func grantNote(t *Workflow) string {
	if t.Writes() {
		return " (needs a grant for the task_id)"
	}
	return ""
}

func rules(p *Param) string {
	var r []string
	if p.Min != nil && p.Max != nil {
		r = append(r, fmt.Sprintf("%v–%v", *p.Min, *p.Max))
	}
	if p.Type == TString {
		r = append(r, fmt.Sprintf("≤ %d chars", p.MaxLength))
	}
	if p.Pattern != "" {
		r = append(r, "`"+p.Pattern+"`")
	}
	if p.Format != "" {
		r = append(r, p.Format)
	}
	if len(p.Enum) > 0 && len(p.Enum) <= 12 {
		vals := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			vals[i] = fmt.Sprint(e)
		}
		r = append(r, "one of "+strings.Join(vals, ", "))
	}
	if p.Type == TArray {
		r = append(r, fmt.Sprintf("≤ %d items", p.MaxItems))
	}
	if p.HasDefault {
		r = append(r, fmt.Sprintf("default %v", p.Default))
	}
	return strings.Join(r, "; ")
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}

// WriteStepDocs writes the reference of every step kind, from the registry.
func WriteStepDocs(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Step kinds\n\nEvery step is a map with one kind key, plus the common keys:\n\n")
	for _, f := range step.CommonFields {
		fmt.Fprintf(&b, "- `%s`: %s\n", f.Name, f.Doc)
	}
	specs := step.Kinds()
	sort.Slice(specs, func(i, j int) bool { return specs[i].Kind < specs[j].Kind })
	for _, sp := range specs {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", sp.Kind, sp.Doc)
		if sp.Short != "" {
			fmt.Fprintf(&b, "Short form: `%s: %s`.\n\n", sp.Kind, strings.ToUpper(sp.Short))
		}
		if len(sp.Fields) > 0 {
			b.WriteString("| field | type | required | description |\n|---|---|---|---|\n")
			for _, f := range sp.Fields {
				fmt.Fprintf(&b, "| `%s` | %s | %v | %s |\n", f.Name, f.Type, f.Required, oneLine(f.Doc))
			}
			b.WriteString("\n")
		}
		if len(sp.OneOf) > 0 {
			fmt.Fprintf(&b, "Give exactly one of: %s.\n\n", strings.Join(sp.OneOf, ", "))
		}
		if sp.Example != "" {
			fmt.Fprintf(&b, "```yaml\n- %s\n```\n", strings.ReplaceAll(sp.Example, "\n", "\n  "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
