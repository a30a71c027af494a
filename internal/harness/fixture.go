package harness

import (
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/workflow"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Test credentials: the fixture site accepts any password but "wrong".
const (
	// User is the demo site's user (the secret acme_user).
	User = "buyer@example.com"
	// Password is the password of the harness's users (the secrets
	// acme_password and, on RealSite, nw_password).
	Password = "correct-horse-battery-staple"
)

// Fixture is a site to test against: how to serve it, and the example
// folder whose selector map and workflows go with it.
type Fixture struct {
	// Start serves the site until the test ends.
	Start func(testing.TB) *testsite.Site
	// Selectors is the selector map, relative to the repository.
	Selectors string
	// Workflows is the folder of its workflows, relative to the repository.
	Workflows string
	// Secrets are set on the config besides acme_user and acme_password.
	Secrets map[string]string
	// StepTimeout is the engine's default step timeout, its config's
	// limits.step_timeout (0: StepTimeout).
	StepTimeout time.Duration
}

// WithDefaultStepTimeout is f with the production default step timeout, for
// the tests of that default.
func (f Fixture) WithDefaultStepTimeout() Fixture {
	f.StepTimeout = run.DefaultStepTimeout
	return f
}

var (
	// DemoSite is the fixture site (testsite.Start) with the demo's
	// selector map and workflows (examples/demo).
	DemoSite = Fixture{Start: testsite.Start, Selectors: "examples/demo/selectors.yaml", Workflows: "examples/demo/workflows"}
	// RealSite is the realistic shop (testdata/real/site) with the
	// examples/realsite selector map and workflows.
	RealSite = Fixture{Start: testsite.StartReal, Selectors: "examples/realsite/selectors.yaml", Workflows: "examples/realsite/workflows",
		Secrets: map[string]string{"nw_user": "hiker@example.com", "nw_password": Password}}
	// DefaultTools are the default tools (workflows/, selectors/selectors.yaml)
	// on the shop.
	DefaultTools = Fixture{Start: testsite.StartReal, Selectors: "selectors/selectors.yaml", Workflows: "workflows"}
)

// StepTimeout is the default step timeout of the tests' engines: a
// generous ceiling for the steps that declare no timeout, since a page that
// loads in a second on a quiet machine took over 10s (the production
// default) on the shared test machine with others' tests running. Tests of
// the production default itself use Fixture.WithDefaultStepTimeout.
const StepTimeout = 60 * time.Second

// Deadline is the deadline of the tests' workflows that declare
// none, or the default's 60 s, instead of workflow.DefaultDeadline (60 s):
// a ceiling, never what a test checks, since calls of a few seconds on a
// quiet machine ran past a minute with the whole suite running at a load
// of 20 and more. Tests of deadlines declare their own (1 s to 30 s).
const Deadline = 3 * time.Minute

// generousDeadlines gives the workflows of set whose deadline is the
// default (declared or not) Deadline.
func generousDeadlines(set *workflow.Set) {
	for _, w := range set.Tools() {
		if d := w.Deadline; d != nil && d.IsLiteral() && (d.Source == workflow.DefaultDeadline.String() || d.Source == "60s") {
			w.Deadline = tmpl.Literal(Deadline.String())
		}
	}
}
