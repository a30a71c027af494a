package step

import (
	"context"
	"reflect"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// Exec is what every step may do while it runs: evaluate its templates and
// conditions, find targets and read the page, wait, open a URL, set
// variables. The executor (engine/run) implements it; steps never reach
// around it.
//
// What only some kinds need comes through small optional interfaces the
// executor also implements and a kind type-asserts (Need), as Caddy's
// modules offer Provisioner: Nesting (containers), Handling, Lists, Readying,
// Scrolling, Popups, Caller, Environments, Artifacts, Uploads, Downloads
// and Handover. The core asks a kind through its Spec and names none.
type Exec interface {
	// Eval evaluates a template in the current scope (params, vars, loop, item, page...).
	Eval(ctx context.Context, t *tmpl.Template) (any, error)
	// Text evaluates a template as text.
	Text(ctx context.Context, t *tmpl.Template) (string, error)
	// Test evaluates a condition.
	Test(ctx context.Context, e *tmpl.Expr) (bool, error)
	// Value evaluates a bare expression.
	Value(ctx context.Context, e *tmpl.Expr) (any, error)
	// BoundOf evaluates a loop bound.
	BoundOf(b LoopBound) (int, error)
	// Page is the environment's page, bound to ctx.
	Page(ctx context.Context) (*rod.Page, error)
	// Find resolves a target and records which strategy matched.
	Find(ctx context.Context, target string, opt FindOpt) (*selector.Match, error)
	// Extract reads a target's matches and their fields (one round trip on
	// most pages) and records the strategies that matched.
	Extract(ctx context.Context, spec selector.ExtractSpec) (*selector.Extracted, error)
	// Wait waits until one of conds holds and returns its index.
	Wait(ctx context.Context, conds []selector.Cond) (int, error)
	// Holds looks once, without waiting: the index of the first of conds
	// that holds now, or -1.
	Holds(ctx context.Context, conds []selector.Cond) (int, error)
	// Target looks up a selector-map entry, or the one a target parameter
	// (${{ params.X }}) names; nil when there is none.
	Target(name string) *selector.Target
	// Navigate opens url in the environment's page (allowed hosts enforced)
	// and returns its document's HTTP status as the browser reported it (0
	// when it did not: ask the page).
	Navigate(ctx context.Context, url, waitUntil string) (int, error)
	// SetVar sets vars.NAME, or appends to a list when appendTo is set.
	SetVar(name string, v any, appendTo bool)
}

// Need returns the optional interface T of x, or an internal error naming
// the step and what its executor lacks (engine/run offers every one).
func Need[T any](x Exec, s *Step) (T, error) {
	c, ok := x.(T)
	if !ok {
		return c, errs.New(errs.Internal, "step %s: the executor does not offer step.%s", s.Spec.Kind, reflect.TypeOf((*T)(nil)).Elem().Name())
	}
	return c, nil
}

// Nesting is what an Exec offers a kind that runs nested steps.
type Nesting interface {
	// RunSteps runs nested steps inside frame f (nil: the same scope).
	RunSteps(ctx context.Context, steps []*Step, f *Frame) error
	// TestIn checks a condition with f's loop.* in scope: a loop's own
	// condition (repeat's while and until see the round's loop.index).
	TestIn(ctx context.Context, e *tmpl.Expr, f *Frame) (bool, error)
}

// Handling is what an Exec offers a kind that acts on the page itself
// rather than through a nested step (paginate's click on next): the
// workflow's handlers run first, as before any acting step, so a dialog a
// handler answers does not cover what the kind clicks.
type Handling interface {
	// Handle runs, before s acts, every handler whose condition holds now
	// and that has runs left in this call; it reports whether one ran.
	Handle(ctx context.Context, s *Step) (bool, error)
}

// Lists is what an Exec may tell of its list variables.
type Lists interface {
	// Truncated reports whether a list variable was cut short (a set that
	// derives a list from it keeps the mark).
	Truncated(name string) bool
	// MarkTruncated marks a list variable as cut short.
	MarkTruncated(name string)
	// MaxListItems is limits.max_list_items.
	MaxListItems() int
}

// Readying is what an Exec may offer to find a one-element target and
// ready it in the same round trip; without it (or when a method returns
// nil, nil) the caller must Find, and wait, instead.
type Readying interface {
	// Ready finds a one-element target once and readies it for a click in
	// the same round trip when the page can find it alone
	// (selector.Map.Ready), recording the strategy like Find.
	Ready(ctx context.Context, target string, o selector.ReadyOptions) (*selector.Ready, error)
	// Typing finds a one-element target once and readies it for typing
	// (focused; for a fill of *fill, cleared) in the same round trip when the page
	// can find it alone (selector.Map.Typing), recording the strategy like
	// Find.
	Typing(ctx context.Context, target string, fill *string, secret bool) (*selector.Typing, error)
	// List is the many target as a wait for the next page watches it
	// (selector.Map.List).
	List(target string) selector.List
}

// Arriving is what an Exec offers a kind that waits for the next page its
// steps read (paginate).
type Arriving interface {
	// Arrive runs wait, which waits for the page to arrive, reading rd
	// with the look that saw it arrive (selector.WaitArrived): rd plans
	// the extracts steps start with (nil: none to read), and the next run
	// of steps uses what it read, as after a wait step.
	Arrive(ctx context.Context, steps []*Step, wait func(rd *selector.Reads) error) error
}

// Scrolling is what an Exec offers a kind that scrolls until a condition.
type Scrolling interface {
	// ScrollWait waits, after a screen that reached the end of el (nil:
	// the page), until cond holds or the scrolled height is no longer
	// height, at most d; with more, a page that grew scrolls its next
	// screen at once (selector.Map.ScrollWait).
	ScrollWait(ctx context.Context, cond selector.Cond, el *rod.Element, height int, more bool, d time.Duration) (selector.Settled, error)
}

// Popups is what an Exec offers a kind that works in a page the step
// opened (Frame.Window runs nested steps there).
type Popups interface {
	// Watch answers the dialogs of a page the step opened (a popup) and
	// follows its requests, like the environment page's, until stop. A
	// popup watches its page as soon as it has it, so a dialog the page
	// opens while it loads is answered too.
	Watch(page *rod.Page) (stop func())
	// WatchPopups answers the dialogs of every page opener opens from now
	// until stop, from before the page's first script runs (an alert it
	// opens while it loads too); Watch then leaves that page's dialogs to it.
	WatchPopups(opener *rod.Page) (stop func())
}

// Caller is what an Exec offers a kind that runs another workflow.
type Caller interface {
	// Call runs another workflow and returns its data.
	Call(ctx context.Context, tool string, args map[string]any) (map[string]any, error)
}

// Environments is what an Exec offers the kinds that manage the call's
// environment (env: new workflows).
type Environments interface {
	// OpenEnv, CloseEnv and CheckEgress manage the call's environment.
	OpenEnv(ctx context.Context, region, purpose string) error
	CloseEnv(ctx context.Context) error
	CheckEgress(ctx context.Context) error
}

// Artifacts is what an Exec offers a kind that keeps a picture of the page.
type Artifacts interface {
	// Artifact reserves a file under the state dir: its path and a URI for results.
	Artifact(ext string) (path, uri string, err error)
	// MaskSecrets hides every element of the page whose value or text holds
	// a secret, for a screenshot; restore shows them again. On an error,
	// nothing may be captured.
	MaskSecrets(ctx context.Context) (restore func(), err error)
	// MaxArtifactBytes is limits.max_artifact_bytes: the largest file a
	// step may keep as an artifact (a screenshot).
	MaxArtifactBytes() int64
}

// Secrets is what an Exec may tell a kind that types text.
type Secrets interface {
	// HoldsSecret reports whether text holds a configured secret's value:
	// the element it is typed into is then marked in the page
	// (selector.SecretMark), so every view of the page masks it.
	HoldsSecret(text string) bool
}

// Uploads is what an Exec offers a kind that hands files to the page.
type Uploads interface {
	// UploadsDir is config uploads_dir, the only folder a step takes files from.
	UploadsDir() string
}

// Downloads is what an Exec offers a kind that keeps files the page sends.
type Downloads interface {
	// DownloadDir is the folder of this call's downloads
	// (state_dir/downloads/TRACE_ID), made on first use.
	DownloadDir() (string, error)
	// IncomingDir makes a new empty folder outside DownloadDir
	// (state_dir/downloads/.incoming/TRACE_ID.N) for the browser to save
	// one download in while it arrives; the step removes it.
	IncomingDir() (string, error)
	// DownloadRef is the file and uri of a download reference for name, a
	// file kept in DownloadDir: its absolute path and its MCP resource URI
	// (toolwright://downloads/TRACE_ID/NAME).
	DownloadRef(name string) (file, uri string)
	// MaxDownloadBytes is limits.max_download_bytes.
	MaxDownloadBytes() int64
}

// Handover is what an Exec may offer a step that hands the call's
// environment to a person.
type Handover interface {
	// HandOver publishes the environment for a person with message, open
	// until expires (the ui lists it with its take-over link). finish ends
	// the wait: held says the step's condition held, or the wait failed
	// for another reason (the handoff is finished, finish returns nil);
	// otherwise (the person did not come in time) the
	// environment is kept for the person until expires and finish returns
	// the human_required error the call ends with.
	HandOver(ctx context.Context, message string, expires time.Time) (finish func(held bool) error, err error)
}
