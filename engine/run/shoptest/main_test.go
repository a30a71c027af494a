// Package shoptest holds engine/run's end-to-end tests on the realistic shop
// (testdata/real/site, examples/realsite) and the truthful pages
// (testdata/real/truthful): dialogs, status, deadlines, uploads, downloads,
// popups, the default tools, and steps answering ok only when their
// effect is confirmed.
// They run on internal/harness, in a test binary of their own
// so that no package of engine/run's tests comes near go test's default
// timeout of 10 minutes (issue 24).
package shoptest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestMain runs the tests with testsite's parallelism and closes the one
// Chromium they share.
func TestMain(m *testing.M) { testsite.Main(m) }
