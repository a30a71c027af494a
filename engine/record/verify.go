package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

// Caller runs the recorded tool once, in a fresh environment, with args
// (and taskID, granted, when it is not ""): an engine that loaded the
// files just written.
type Caller func(ctx context.Context, tool string, args map[string]any, taskID string) (*result.Envelope, error)

// Verify replays the draft's tool with the recorded arguments and
// compares its result with what the person saw: no differences means the
// tool does what was recorded.
func Verify(ctx context.Context, d *Draft, call Caller) (*result.Envelope, []string, error) {
	args := make(map[string]any, len(d.Args))
	for k, v := range d.Args {
		args[k] = v
	}
	env, err := call(ctx, d.Name, args, d.TaskID)
	if err == nil && !env.OK && env.Code == "env_unavailable" && ctx.Err() == nil {
		// The fresh environment could not be had (a loaded machine): that
		// says nothing of the tool, so it runs once more, as an agent would.
		env, err = call(ctx, d.Name, args, d.TaskID)
	}
	if err != nil {
		return nil, nil, err
	}
	if !env.OK {
		return env, []string{fmt.Sprintf("the replay failed: %s: %s (step %s, trace %s)", env.Code, env.Message, env.Step, env.TraceID)}, nil
	}
	return env, Compare(d.Observed, env.Data), nil
}

// Paths are where a draft's files go.
type Paths struct {
	Workflow  string // workflows/NAME.yaml
	Selectors string // the selector map the entries are appended to
	Test      string // tests/NAME.yaml
}

// Write puts a draft's files in place: the workflow and the test file
// (neither may exist yet: a recording never overwrites), and the new
// entries appended to the selector map, whose text (comments included)
// stays as it was.
func Write(d *Draft, p Paths) error {
	for _, f := range []string{p.Workflow, p.Test} {
		if _, err := os.Stat(f); err == nil {
			return fmt.Errorf("%s exists: a recording never overwrites a file; choose another name or move it away", f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(d.Entries) > 0 {
		old, err := os.ReadFile(p.Selectors)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		var b strings.Builder
		if len(old) > 0 && old[len(old)-1] != '\n' {
			b.WriteString("\n")
		}
		if len(old) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# Recorded by `toolwright record %s` on %s.\n", d.Name, time.Now().UTC().Format("2006-01-02"))
		selsuggest.WriteEntries(&b, d.Entries)
		if err := os.MkdirAll(filepath.Dir(p.Selectors), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p.Selectors, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(b.String()); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	for _, w := range []struct{ path, text string }{{p.Workflow, d.Workflow}, {p.Test, d.Test}} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(w.path, []byte(w.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Compare lists how a replay's data differs from what the person saw
// (nothing: they match). A list compares its items and their count.
func Compare(observed, data map[string]any) []string {
	var diffs []string
	norm := func(v any) any {
		b, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(b, &out)
		return out
	}
	d, _ := norm(data).(map[string]any)
	for k, want := range observed {
		got, ok := d[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: the replay returned nothing", k))
			continue
		}
		w := norm(want)
		if items, ok := w.([]any); ok {
			list, _ := got.(map[string]any)
			gotItems, _ := list["items"].([]any)
			if len(gotItems) != len(items) {
				diffs = append(diffs, fmt.Sprintf("%s: %d rows seen, %d replayed", k, len(items), len(gotItems)))
			}
			for i := 0; i < len(items) && i < len(gotItems); i++ {
				if !reflect.DeepEqual(items[i], gotItems[i]) {
					diffs = append(diffs, fmt.Sprintf("%s row %d: seen %s, replayed %s", k, i+1, js(items[i]), js(gotItems[i])))
					break
				}
			}
			continue
		}
		if !reflect.DeepEqual(w, got) {
			diffs = append(diffs, fmt.Sprintf("%s: seen %s, replayed %s", k, js(w), js(got)))
		}
	}
	return diffs
}

func js(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
