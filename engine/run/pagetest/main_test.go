// Package pagetest holds engine/run's end-to-end tests on pages built the
// way real sites are (testdata/real/resolve and the shop of
// testdata/real/site): finding, scrolling to and acting on elements in
// shadow roots, frames, popups and dialogs, and pages that misbehave (an
// endless loop, a memory hog, a flood of window.open).
// They run on internal/harness, in a test binary of their own
// so that no package of engine/run's tests comes near go test's default
// timeout of 10 minutes (issue 24).
package pagetest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestMain runs the tests with testsite's parallelism and closes the one
// Chromium they share.
func TestMain(m *testing.M) { testsite.Main(m) }
