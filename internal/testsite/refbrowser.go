package testsite

import (
	"testing"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/internal/rodref"
)

// RefBrowser launches a Chromium of its own for the reference client
// (rodref), as the benchmarks' floor does, and connects to it, counting
// its requests in n when n is not nil. Both end with tb; tb is skipped when
// there is no Chromium.
func RefBrowser(tb testing.TB, n *rodref.Counter) *rod.Browser {
	tb.Helper()
	NeedChromium(tb)
	u, stop, err := rodref.Launch("")
	if err != nil {
		tb.Fatal(err)
	}
	b, err := rodref.Connect(u, n)
	if err != nil {
		stop()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = b.Close()
		stop()
	})
	return b
}
