package store

import (
	"regexp"
	"sort"
	"testing"
	"time"
)

func TestTraceIDs(t *testing.T) {
	re := regexp.MustCompile(`^tr_[0-9A-HJKMNP-TV-Z]{26}$`)
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = NewTraceID()
		if !re.MatchString(ids[i]) {
			t.Fatalf("bad id %q", ids[i])
		}
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids made in order do not sort in order")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate %q", id)
		}
		seen[id] = true
	}
	// the first 10 characters are the millisecond time
	var g ulidGen
	at := time.UnixMilli(1_700_000_000_123)
	id := encodeULID(g.next(at))
	var ms uint64
	for _, ch := range id[:10] {
		ms = ms<<5 | uint64(indexByte(crockford, byte(ch)))
	}
	if ms != 1_700_000_000_123 {
		t.Fatalf("time part decodes to %d", ms)
	}
	// a clock stepping back keeps ids increasing
	a := encodeULID(g.next(at))
	b := encodeULID(g.next(at.Add(-time.Second)))
	if !(id < a && a < b) {
		t.Fatalf("not monotonic: %s %s %s", id, a, b)
	}
}

func indexByte(s string, c byte) int {
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// A trace written before artifacts_dir (absolute paths) still resolves;
// a relative path that would leave the folder does not.
func TestArtifactPath(t *testing.T) {
	for _, c := range []struct{ dir, a, want string }{
		{"/srv/art", "tr_1/page.html", "/srv/art/tr_1/page.html"},
		{"/srv/art", "/old/state/artifacts/tr_1/page.html", "/old/state/artifacts/tr_1/page.html"},
		{"/srv/art", "../etc/passwd", ""},
		{"/srv/art", "tr_1/../../x", ""},
		{"/srv/art", ".", ""},
	} {
		if got := ArtifactPath(c.dir, c.a); got != c.want {
			t.Errorf("ArtifactPath(%q, %q) = %q, want %q", c.dir, c.a, got, c.want)
		}
	}
}
