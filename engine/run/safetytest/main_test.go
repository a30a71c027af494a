// Package safetytest holds engine/run's end-to-end tests of safety:
// idempotency, grants and the audit, allowed hosts and limits, secrets
// never written in any encoding nor shown in a screenshot, the store
// failing closed, subresources held to the allowed hosts, a crashed
// renderer and a flood of dialogs.
// They run on internal/harness, in a test binary of their own
// so that no package of engine/run's tests comes near go test's default
// timeout of 10 minutes (issue 24).
package safetytest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestMain runs the tests with testsite's parallelism and closes the one
// Chromium they share.
func TestMain(m *testing.M) { testsite.Main(m) }
