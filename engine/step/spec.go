// Package step is the step-kind registry. Each kind lives in its own file
// under step/kinds, declares its fields once in a Spec, and registers itself
// from init(). That one declaration drives decoding, lint, `toolwright docs`
// and `toolwright schema`; the core never names a kind.
package step

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Field declares one key of a step's long form.
type Field struct {
	Name     string
	Type     decl.Type // one of this package's field types (String, Template, Target, ...)
	Required bool
	Doc      string
	Enum     []string      // for Enum
	Default  any           // shown in docs and schema
	Max      time.Duration // for Duration: an upper bound (0: the call's deadline)
	Secrets  bool          // secrets.* may appear (only fill.value)
	// URL: a Template field that is a URL (goto.url, wait.url): the values
	// its templates put in after the URL's start are URL-encoded as the part
	// they land in (tmpl.Scope.URL); urlraw(x) opts out.
	URL bool
	// Scoped: the field is evaluated inside the kind's own scope
	// (Spec.Scope), as repeat's while and until see loop.index.
	Scoped bool
	// Args, for a ValueMap field: the arguments the step passes to the
	// workflow its Tool field names; the whole-set check holds them against
	// that workflow's parameters (Step.ToolArgs).
	Args bool
	// Timeout, for a Duration field: the step's own timeout; the executor
	// bounds one attempt of the step by it when given (Step.OwnTimeout),
	// and a condition checked once (a step's when:) may not carry it.
	Timeout bool
	// Navigation, for an Enum field of auto, expect and none: how the
	// executor follows a navigation the step starts (Spec.Navigates;
	// Step.Navigation).
	Navigation bool
	// Yields, for a VarName field: what the variable holds after the step
	// (a list, an object with fields, text), so expressions using it are
	// checked at load. nil: unknown.
	Yields func(c *Checker, s *Step) tmpl.Shape
	// decode reads a common key (CommonFields) into the step.
	decode func(c *Checker, s *Step, n *yaml.Node, sc tmpl.Scope)
}

// Spec declares a step kind.
type Spec struct {
	Kind   string
	Doc    string
	Short  string    // the field a scalar short form fills ("" = no short form)
	Fields []Field   // the long form's keys, in the order docs show them
	OneOf  []string  // exactly one of these fields must be present
	Body   decl.Type // ValueMap: the whole long form is a free map (set); Steps: a list of steps (do); nil: fields
	Acts   bool      // acts on its target: a read workflow may not use an effect: write target
	// Navigates: the step may start a navigation of its own (a clicked
	// link, a key that submits a form); the executor then watches for it so
	// a refused host is reported against this step.
	Navigates bool
	// Submits: the step may submit a form (a click on its button, Enter in
	// its field), so a form submit the page held back after it (an async
	// validation) is waited for too, and a form the page then marks
	// invalid fails the step.
	Submits bool
	// Sends: what the step puts in is sent by the page's script (an
	// uploader sends the files it took): the requests it sets going are
	// judged by their answers, as a navigating step's are. A fill's are
	// not (an autosave while typing is the page's, not the action's).
	Sends bool
	// Types: the step types into a field (fill): before a step that acts
	// next, what its typing set going is waited for only as far as its
	// timers due soon (engine/run's typedSoon).
	Types bool
	Risk  string // read or write, as DESIGN.md's table says; "" = of its steps / callee
	// Scope, for a kind that runs nested steps (do, repeat, for_each,
	// paginate, popup), says what those steps may name beyond the enclosing
	// scope: loop.*, an item, ... (nil: the same names). The page they run
	// in is the runtime's business (Frame.Window).
	Scope func(s *Step, outer tmpl.Scope) tmpl.Scope
	// TimeoutCode is the code a step of this kind ends with when its own
	// timeout runs out (""): target_not_found for a step with a target,
	// deadline_exceeded otherwise). The call's deadline is always
	// deadline_exceeded.
	TimeoutCode string
	// CallBound: without a timeout: of its own, a step of this kind is
	// bounded by the call's deadline, not the default step timeout (opening
	// an environment: a browser start and a new context, as env: temporary's).
	CallBound bool
	EnvNew    bool // allowed only in env: new workflows
	// Synonyms are words authors bring from other tools for this kind
	// (navigate for goto): "did you mean" offers the kind for them.
	Synonyms []string
	Example  string // a YAML example for docs
	// Check adds kind-specific lint after decoding (optional).
	Check func(c *Checker, s *Step)
	// AfterCompile adds kind-specific lint once the step's templates are
	// compiled (optional): a literal template's value is known then.
	AfterCompile func(c *Checker, s *Step)
	// Condition, for the kind whose long form is a page condition (wait),
	// reads one decoded form as the conditions Exec.Holds checks: a step's
	// `when:` and a handler's `when:` are decoded as that kind's long form.
	Condition func(ctx context.Context, x Exec, s *Step) ([]selector.Cond, error)
	// Reads, for a kind that only reads the page (extract), is the read a
	// bound step of it makes: a wait or an extract just before it may read
	// it in its own request (Exec's runtime decides); ok false when the
	// step cannot say.
	Reads func(x Exec, s *Step) (spec selector.ExtractSpec, ok bool)
	// ReadsAhead: a step of this kind looks at the page in a way that can
	// read, in the same request, what the steps of kind Reads right after
	// it will read (wait, extract; the runtime decides).
	ReadsAhead bool
	// Enters, for a block kind that runs a list of steps at once on the
	// page as it is (do; paginate, on its first page), is that list: a look
	// before the block may read ahead for the extracts the list starts with.
	Enters func(s *Step) []*Step
	// LeavesPage: a step of this kind touches neither the page nor the
	// browser (set, fail), so what a step before it read ahead for a step
	// after it is still what the page shows.
	LeavesPage bool
	// Run executes the step.
	Run func(ctx context.Context, x Exec, s *Step) error
}

// Field looks up a field declaration.
func (s *Spec) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

var (
	mu    sync.RWMutex
	kinds = map[string]*Spec{}
)

// Register adds a kind; a duplicate or malformed spec panics at init.
func Register(s *Spec) {
	mu.Lock()
	defer mu.Unlock()
	if s.Kind == "" || s.Run == nil {
		panic(fmt.Sprintf("step: kind %q registered without a name or a Run", s.Kind))
	}
	if _, dup := kinds[s.Kind]; dup {
		panic(fmt.Sprintf("step: kind %q registered twice", s.Kind))
	}
	if s.Short != "" {
		if _, ok := s.Field(s.Short); !ok {
			panic(fmt.Sprintf("step: kind %q: short form names unknown field %q", s.Kind, s.Short))
		}
	}
	for _, f := range s.Fields {
		if f.Default != nil && !defaultFits(f) {
			panic(fmt.Sprintf("step: kind %q: field %s's default %v (%T) is not a %s", s.Kind, f.Name, f.Default, f.Default, f.Type))
		}
		if f.Args && f.Type != ValueMap || f.Timeout && f.Type != Duration || f.Navigation && f.Type != Enum {
			panic(fmt.Sprintf("step: kind %q: field %q: Args is for a ValueMap, Timeout for a Duration, Navigation for an Enum", s.Kind, f.Name))
		}
	}
	kinds[s.Kind] = s
	lint.AddSynonyms(s.Kind, s.Synonyms...)
	if s.Body == Steps {
		// A kind that is a list of steps, written where a workflow's
		// steps: belongs, meant steps:.
		lint.AddSynonyms("steps", s.Kind)
	}
}

// defaultFits reports whether a field's Default is a value of its type,
// as the decoder stores it (applyDefaults puts it in Args as it is).
func defaultFits(f Field) bool {
	t, ok := f.Type.(fieldType)
	return ok && t.fits(f.Default, f)
}

// ConditionKind is the registered kind whose long form is a page condition
// (Spec.Condition); nil when none is.
func ConditionKind() *Spec {
	mu.RLock()
	defer mu.RUnlock()
	for _, s := range kinds {
		if s.Condition != nil {
			return s
		}
	}
	return nil
}

// Lookup finds a kind.
func Lookup(kind string) (*Spec, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := kinds[kind]
	return s, ok
}

// Kinds returns every registered kind, sorted by name.
func Kinds() []*Spec {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Spec, 0, len(kinds))
	for _, s := range kinds {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// KindNames returns every registered kind name, sorted.
func KindNames() []string {
	specs := Kinds()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Kind
	}
	return names
}

// CommonFields declares, once, the keys every step may carry beside its
// kind: decoding (each one's decode), lint, docs and the schema read it.
var CommonFields = []Field{
	{Name: "name", Type: String, Doc: "a label for this step in traces", decode: func(c *Checker, s *Step, n *yaml.Node, _ tmpl.Scope) {
		s.Name, _ = yamlx.String(c.File, n, "step name", c.Problems)
	}},
	{Name: "if", Type: Cond, Doc: "run the step only when this condition holds", decode: func(c *Checker, s *Step, n *yaml.Node, sc tmpl.Scope) {
		c.defer1(s, "if", n, sc, Cond, -1)
	}},
	{Name: "when", Type: ValueMap, Doc: "one of wait's conditions ({visible: T}, {text: \"...\"}, ...), checked once as the step starts, without waiting: the step is skipped (the trace says so) when it does not hold", decode: func(c *Checker, s *Step, n *yaml.Node, sc tmpl.Scope) {
		s.When = c.DecodeCondition(n, s.Path, sc, "step "+s.Spec.Kind+" when")
	}},
	{Name: "timeout", Type: Duration, Doc: "how long the step may take (at most the call's deadline)", decode: (*Checker).decodeTimeout},
	{Name: "retry", Type: ValueMap, Doc: "{attempts: ≤5, backoff: 500ms}: retry retryable failures", decode: func(c *Checker, s *Step, n *yaml.Node, _ tmpl.Scope) {
		if v := RetryDecl.Decode(c.File, n, "retry", c.Problems); v != nil {
			RetryDecl.Fill(v, &s.Retry, "", c.Problems)
		}
	}},
	{Name: "optional", Type: Bool, Doc: "a failure is recorded in the trace and skipped", decode: func(c *Checker, s *Step, n *yaml.Node, _ tmpl.Scope) {
		s.Optional, _ = yamlx.Bool(c.File, n, "optional", c.Problems)
	}},
	{Name: "dialog", Type: ValueMap, Doc: "accept | dismiss | {accept: BOOL, text: TEMPLATE}: how a dialog (alert, confirm, prompt, beforeunload) opening during this step is answered; without it alert is accepted and the others dismissed, and an acting step whose question was so dismissed fails (what it asked about was not done)", decode: (*Checker).decodeDialog},
}

// common finds a common key and commonNames lists them in order, both
// from CommonFields (filled in init: the decoders reach back to the step
// decoder, which looks keys up here).
var (
	common      map[string]*Field
	commonNames []string
)

func init() {
	common = make(map[string]*Field, len(CommonFields))
	for i := range CommonFields {
		common[CommonFields[i].Name] = &CommonFields[i]
		commonNames = append(commonNames, CommonFields[i].Name)
	}
}

// CommonNames returns the common keys in declared order.
func CommonNames() []string { return append([]string(nil), commonNames...) }

// TargetEntryDecl declares the long form of a TargetMap entry (an extract
// field): {target: T, attr: ATTR}.
var TargetEntryDecl = &decl.Object{
	Name: "field",
	Fields: []decl.Field{
		{Name: "target", Type: decl.String, Required: true, Doc: "the target to read ({target: T, attr: ATTR})"},
		{Name: "attr", Type: decl.String, Doc: "what to read of this target: text, value, href (an absolute URL) or an attribute name (default: the step's attr)",
			Schema: func() *decl.Obj { return decl.NewObj("type", "string", "minLength", 1) }},
	},
}

// DialogAnswers are dialog's short forms: accept or dismiss.
var DialogAnswers = []string{"accept", "dismiss"}

// DialogDecl declares dialog's long form.
var DialogDecl = &decl.Object{
	Name: "dialog",
	Fields: []decl.Field{
		{Name: "accept", Type: decl.Bool, Required: true, Doc: "true to accept (OK), false to dismiss (Cancel)"},
		{Name: "text", Type: decl.String, Raw: true, Doc: "what to type into a prompt before accepting"},
	},
}

// Decl is the field as a declaration of the shared declaration package:
// its Type decodes it, and docs and the JSON Schema describe it the way
// they describe every other key an author writes. Ext is the field itself
// (its Secrets, URL, Scoped, Yields), for the Type's Decode.
func (f Field) Decl() decl.Field {
	return decl.Field{Name: f.Name, Type: f.Type, Doc: f.Doc, Required: f.Required, Default: f.Default,
		Enum: f.Enum, MaxDur: f.Max, Ext: f}
}

// DialogSchema describes the common key dialog: a short form or DialogDecl.
func DialogSchema() *decl.Obj {
	return decl.NewObj("description", common["dialog"].Doc, "anyOf", []any{decl.NewObj("enum", DialogAnswers), DialogDecl.Schema()})
}

// ConditionSchema describes a condition (a step's or a handler's when):
// the condition kind's long form without what belongs to a wait.
func ConditionSchema(field func(Field) *decl.Obj) *decl.Obj {
	f := common["when"]
	props := decl.NewObj()
	for _, cf := range ConditionFields() {
		props.Set(cf.Name, field(cf))
	}
	return decl.NewObj("description", f.Doc, "type", "object", "additionalProperties", false, "minProperties", 1, "properties", props)
}

// ConditionFields are the keys of a condition checked once (a step's or
// a handler's when): the condition kind's fields but a wait's own.
func ConditionFields() []Field {
	var out []Field
	if sp := ConditionKind(); sp != nil {
		for _, f := range sp.Fields {
			if conditionOnly(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// ConditionObject declares a condition checked once, from ConditionFields.
func ConditionObject() *decl.Object {
	o := &decl.Object{Name: "condition", Doc: common["when"].Doc}
	for _, f := range ConditionFields() {
		o.Fields = append(o.Fields, f.Decl())
	}
	return o
}

// conditionOnly: a field of the condition kind that a condition checked
// once may carry (not its own timeout, nor a variable it writes).
func conditionOnly(f Field) bool { return !f.Timeout && f.Type != VarName }

// paramTemplateSchema is a whole template of one parameter: ${{ params.n }}.
func paramTemplateSchema() *decl.Obj {
	return decl.NewObj("type", "string", "pattern", `^\$\{\{\s*params\.[a-z][a-z0-9_]*\s*\}\}$`)
}

// wholeTemplateSchema describes a value that is exactly one ${{ }} template.
func wholeTemplateSchema() *decl.Obj {
	return decl.NewObj("type", "string", "pattern", wholeTmpl.String())
}

// TemplateSchema describes a value that may hold ${{ }} templates: text,
// or a literal number or boolean.
func TemplateSchema() *decl.Obj {
	return decl.NewObj("type", []string{"string", "number", "boolean"})
}

// Object declares the kind's long form; it is what decodes it. A key's
// value is named "step KIND KEY" in messages; the step's own keys written
// inside the kind's map are told to move out one level; Required fields
// and the OneOf group are checked by requireFields, which holds back while
// a key is misspelt (the misspelling is the problem).
func (s *Spec) Object() *decl.Object {
	o := &decl.Object{Name: "step " + s.Kind, Title: s.Kind, Doc: s.Doc, Terse: true,
		Path: func(_, key string) string { return "step " + s.Kind + " " + key },
		Elsewhere: func(_, key string) string {
			if common[key] == nil {
				return ""
			}
			return fmt.Sprintf("step %s: %s belongs to the step, not inside %s: move `%s` out one level, beside `%s:`", s.Kind, key, s.Kind, key, s.Kind)
		},
		Missing: func(v *decl.Values, ps *lint.Problems) {
			if v.Unknown == 0 { // a misspelt key was reported with its suggestion already
				s.requireFields(v.MapNode, v.File, v.Has, ps)
			}
		},
	}
	for _, f := range s.Fields {
		o.Fields = append(o.Fields, f.Decl())
	}
	return o
}

// object is Object, made once per kind.
func (s *Spec) object() *decl.Object {
	if o, ok := objects.Load(s); ok {
		return o.(*decl.Object)
	}
	o, _ := objects.LoadOrStore(s, s.Object())
	return o.(*decl.Object)
}

var objects sync.Map // *Spec → *decl.Object

// RetryDecl declares the common key retry.
var RetryDecl = &decl.Object{
	Name: "retry", Title: "retry",
	Doc: "Retry the step when it fails with a retryable error.",
	Fields: []decl.Field{
		{Name: "attempts", Type: decl.Int, Min: decl.F(1), Max: decl.F(5), Default: 1, Doc: "how many times to try in all (1 to 5)"},
		{Name: "backoff", Type: decl.Duration, MaxDur: 10 * time.Second, Default: 500 * time.Millisecond, Doc: "the wait between attempts (at most 10s)"},
	},
}
