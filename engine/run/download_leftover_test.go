package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDownloadOverLimitLeavesNothing: a small file over its max_bytes
// arrives whole within moments, so Chromium may finish writing it after
// the step asked it to cancel; the step must still leave nothing behind,
// every time. Before: the step removed the file as soon as its cancel was
// sent, and a file that completed after that removal stayed ("a download
// over max_bytes left 1 files" in a full-suite run at a load of 40).
func TestDownloadOverLimitLeavesNothing(t *testing.T) {
	t.Parallel()
	h := newRealHarness(t, map[string]string{
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
	const calls = 20
	for i := range calls {
		env := h.code(h.call("export_small", fmt.Sprintf(`{"task_id": "over-%d"}`, i)), "limit_exceeded")
		entries, _ := os.ReadDir(filepath.Join(h.cfg.StateDir, "downloads", env.TraceID))
		if len(entries) != 0 {
			t.Fatalf("call %d of %d: a download over max_bytes left %d files", i+1, calls, len(entries))
		}
	}
}
