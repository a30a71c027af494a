package run

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutHTML(t *testing.T) {
	t.Parallel()
	if got := cutHTML("<p>small</p>", 1024); got != "<p>small</p>" {
		t.Fatalf("under the bound: %q", got)
	}
	page := "<!doctype html><p>" + strings.Repeat("héllo wörld ", 20000) + "</p>"
	for _, bound := range []int64{1024, 1025, 1026, 4096, 10000} {
		got := cutHTML(page, bound)
		if int64(len(got)) > bound || !utf8.ValidString(got) || !strings.HasPrefix(got, "<!doctype html><p>héllo") {
			t.Fatalf("bound %d: %d bytes, valid %v", bound, len(got), utf8.ValidString(got))
		}
		if !strings.HasSuffix(got, " bytes kept (limits.max_artifact_bytes) -->\n") || !strings.Contains(got, "cut here") {
			t.Fatalf("bound %d: no marker at the end: %q", bound, got[len(got)-120:])
		}
	}
	if got := cutHTML(page, 0); got != page {
		t.Fatal("bound 0 cut the page")
	}
}
