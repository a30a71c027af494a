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
	// NewSelectors makes Selectors a file of the draft's own (a draft's
	// NAME.selectors.yaml): created like the workflow, never appended to.
	NewSelectors bool
}

// Write puts a draft's files in place: the workflow and the test file
// (neither may exist yet: a recording never overwrites), and the new
// entries appended to the selector map, whose text (comments included)
// stays as it was.
//
// The draft's own files are created with O_EXCL, which refuses any name
// that exists, a symbolic link included, even one whose target does not:
// os.Stat followed a dangling link at drafts/NAME.yaml and WriteFile then
// created the file it pointed at, wherever that was.
func Write(d *Draft, p Paths) error {
	own := []struct{ path, text string }{{p.Workflow, d.Workflow}, {p.Test, d.Test}}
	check := []string{p.Workflow, p.Test}
	if p.NewSelectors {
		check = append(check, p.Selectors)
		if len(d.Entries) > 0 {
			own = append(own, struct{ path, text string }{p.Selectors, recordedEntries(d, nil)})
		}
	}
	for _, f := range check {
		if _, err := os.Lstat(f); err == nil {
			return existsErr(f)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	var made []string
	for _, f := range own {
		if err := createNew(f.path, f.text); err != nil {
			removeAll(made)
			return err
		}
		made = append(made, f.path)
	}
	if len(d.Entries) > 0 && !p.NewSelectors {
		if err := appendEntries(d, p.Selectors); err != nil {
			removeAll(made)
			return err
		}
	}
	return nil
}

// createNew writes text to path, a file that must not exist (O_EXCL: a
// symbolic link there is refused, never followed).
func createNew(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return existsErr(path)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func existsErr(path string) error {
	return fmt.Errorf("%s exists (a file, or a symbolic link, which is never followed): a recording never overwrites a file; choose another name or move it away", path)
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// recordedEntries is the text appended to a selector map whose text is
// old: the draft's entries under a line saying where they came from.
func recordedEntries(d *Draft, old []byte) string {
	var b strings.Builder
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteString("\n")
	}
	if len(old) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "# Recorded by `toolwright record %s` on %s.\n", d.Name, time.Now().UTC().Format("2006-01-02"))
	selsuggest.WriteEntries(&b, d.Entries)
	return b.String()
}

// appendEntries appends the draft's entries to the selector map at path.
func appendEntries(d *Draft, path string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(recordedEntries(d, old)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
