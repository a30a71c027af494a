package run_test

import (
	"fmt"
	"github.com/toolwright/toolwright/internal/harness"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDownloadOverLimitLeavesNothing: a download refused over its
// max_bytes leaves no file, every time, in the call's download folder or
// anywhere under state_dir/downloads. Chromium writes a download to a
// temporary file, renames it into the folder it was told to save in
// (GUID.crdownload), then to GUID (making an empty GUID file first) and,
// cancelled, deletes it, on its own file thread, which may lag well behind
// the cancel's answer and the download's 'canceled' event. Before, that
// folder was the call's and the step removed the file after the cancel: a
// file renamed in afterwards stayed until Chromium deleted it, and a
// removed .crdownload made Chromium's rename to GUID fail, leaving its
// empty GUID file for good (with stress-ng --cpu 8 --hdd 2 beside it, a
// caller's call 4 of 10 left its GUID file).
func TestDownloadOverLimitLeavesNothing(t *testing.T) {
	t.Parallel()
	// Four callers at once, each in its own browser context of the shared
	// Chromium, whose downloads share its file thread.
	const callers, calls = 4, 10
	for c := range callers {
		t.Run(fmt.Sprintf("caller%d", c), func(t *testing.T) {
			t.Parallel()
			overLimitLeavesNothing(t, calls)
		})
	}
}

func overLimitLeavesNothing(t *testing.T, calls int) {
	h := harness.NewReal(t, map[string]string{
		"export_small": `
name: export_small
description: Download my orders as CSV, refusing anything over 100 bytes.
risk: read
steps:
  - goto: ${{ config.shop_base }}/orders.html
  - download: {click: nw.orders.export_csv, into: csv, max_bytes: 100}
output:
  csv: ${{ vars.csv }}
`,
	}, nil)
	downloads := filepath.Join(h.Cfg.StateDir, "downloads")
	for i := range calls {
		env := h.Code(h.Call("export_small", fmt.Sprintf(`{"task_id": "over-%d"}`, i)), "limit_exceeded")
		entries, _ := os.ReadDir(filepath.Join(downloads, env.TraceID))
		if len(entries) != 0 {
			t.Fatalf("call %d of %d: a download over max_bytes left %d files: %v", i+1, calls, len(entries), names(entries))
		}
		var left []string
		_ = filepath.WalkDir(downloads, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(downloads, p)
				left = append(left, rel)
			}
			return nil
		})
		if len(left) != 0 {
			t.Fatalf("call %d of %d: a download over max_bytes left %v under state_dir/downloads", i+1, calls, left)
		}
	}
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
