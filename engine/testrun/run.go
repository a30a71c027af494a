package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/demo"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Options say what to run the files on.
type Options struct {
	// Config is the base config (--config): workflows, selectors, vars,
	// secrets, browser, policy and limits. Its state_dir is never used.
	Config *config.Config
	// Filter, when set, picks the cases by name (plus the cases they use).
	Filter *regexp.Regexp
	// Logger gets the engine's logs; nil discards them.
	Logger *slog.Logger
	// Out, when set, gets a line per case as it finishes (and a header per file).
	Out io.Writer
	// StateDir holds each file's state; "" is a fresh temporary folder,
	// removed afterwards.
	StateDir string
}

// Report is the outcome of a run.
type Report struct {
	Problems lint.Problems `json:"problems,omitempty"` // with any, nothing ran
	Files    []*FileReport `json:"files"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
}

// FileReport is the outcome of one file's cases.
type FileReport struct {
	File  string        `json:"file"`
	Cases []*CaseReport `json:"cases"`
}

// CaseReport is the outcome of one case.
type CaseReport struct {
	Name       string          `json:"name"`
	Passed     bool            `json:"passed"`
	DurationMS int64           `json:"duration_ms"`
	Failures   []string        `json:"failures,omitempty"`
	Envelope   json.RawMessage `json:"envelope,omitempty"`
	Skipped    *Skip           `json:"skipped,omitempty"`

	duration time.Duration
	got      map[string]any
}

// Skip says why a case did not run: its tool (or a case it uses) needs
// secrets that cannot be read.
type Skip struct {
	Secrets []string `json:"secrets"`
	Reason  string   `json:"reason"`
}

// OK reports whether every case that ran passed: a case skipped for a
// secret that cannot be read is not a failure (the summary counts it).
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Failed == 0 }

// Summary is the last line of the text output.
func (r *Report) Summary() string {
	if len(r.Problems) > 0 {
		if len(r.Problems) == 1 {
			return "1 problem in the test files; no case ran"
		}
		return fmt.Sprintf("%d problems in the test files; no case ran", len(r.Problems))
	}
	if r.Skipped > 0 {
		return fmt.Sprintf("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
	}
	return fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
}

// Line is a case's line of the text output:
// `PASS name (812ms)`, `FAIL name: data.rows.count: want 15, got 10` or
// `SKIP name: tool "t" needs secret "s", which cannot be read (...)`,
// followed, when a failed call explains itself, by `    got CODE: MESSAGE`.
func (c *CaseReport) Line() string {
	if c.Skipped != nil {
		return fmt.Sprintf("SKIP %s: %s", c.Name, c.Skipped.Reason)
	}
	if c.Passed {
		return fmt.Sprintf("PASS %s (%s)", c.Name, c.duration.Round(time.Millisecond))
	}
	line := fmt.Sprintf("FAIL %s: %s", c.Name, strings.Join(c.Failures, "; "))
	if c.got != nil && c.got["ok"] == false {
		line += fmt.Sprintf("\n    got %v", c.got["code"])
		if m, _ := c.got["message"].(string); m != "" {
			line += ": " + m
		}
	}
	return line
}

// DefaultDir is where test files are looked for when no path is given: the
// tests folder next to the config file (or in the working directory).
func DefaultDir(cfg *config.Config) string {
	if cfg != nil && cfg.File != "" {
		return filepath.Join(filepath.Dir(cfg.File), "tests")
	}
	return "tests"
}

// Files expands paths: a folder stands for the *.yaml and *.yml files
// directly in it.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("test path %s: %w", p, unwrapPath(err))
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			found = append(found, filepath.Join(p, e.Name()))
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no test files (*.yaml) in %s", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Run reads and checks every file, then runs their cases. Problems in the
// files are in the report (and nothing runs); the error is for what stops
// a run from starting at all.
func Run(ctx context.Context, paths []string, o Options) (*Report, error) {
	if o.Config == nil {
		return nil, errors.New("testrun: Options.Config is required")
	}
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	stateDir := o.StateDir
	if stateDir == "" {
		stateDir, err = os.MkdirTemp("", "toolwright-test-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(stateDir)
	}
	rep := &Report{Files: []*FileReport{}}
	var prepared []*prepared
	defer func() {
		for _, p := range prepared {
			p.close()
		}
	}()
	for i, file := range files {
		p, ps, err := prepare(file, o.Config, filepath.Join(stateDir, fmt.Sprintf("%02d-%s", i+1, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))))
		if p != nil {
			prepared = append(prepared, p)
		}
		if err != nil {
			return nil, err
		}
		rep.Problems = append(rep.Problems, ps...)
	}
	if len(rep.Problems) > 0 {
		rep.Problems = rep.Problems.Sort()
		return rep, nil
	}
	selected := make([][]bool, len(prepared))
	some := false
	for i, p := range prepared {
		selected[i] = p.selected(o.Filter)
		for _, s := range selected[i] {
			some = some || s
		}
	}
	if !some {
		return nil, fmt.Errorf("no case matches --run %q", o.Filter)
	}
	for i, p := range prepared {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		fr, err := p.run(ctx, o, selected[i])
		if fr != nil {
			rep.Files = append(rep.Files, fr)
			for _, c := range fr.Cases {
				switch {
				case c.Skipped != nil:
					rep.Skipped++
				case c.Passed:
					rep.Passed++
				default:
					rep.Failed++
				}
			}
		}
		p.close()
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// prepared is a checked file ready to run: its site is being served, its
// config and workflows are loaded.
type prepared struct {
	file    *File
	cfg     *config.Config
	set     *workflow.Set
	siteURL string
	srv     *http.Server
}

func (p *prepared) close() {
	if p.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.srv.Shutdown(ctx)
		p.srv = nil
	}
}

// prepare decodes a file, serves its folder, builds its config and loads
// and checks its workflows.
func prepare(file string, base *config.Config, stateDir string) (*prepared, lint.Problems, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", file, unwrapPath(err))
	}
	// Every problem of the file in one run: the file's own, its workflows',
	// and the cases against the workflows, so an author fixes all at once.
	f, ps := Decode(file, data)
	p := &prepared{file: f}
	if f.Serve != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: serve %s: %w", file, f.Serve, err)
		}
		srv := &http.Server{Handler: demo.Handler(os.DirFS(f.Serve)), ReadHeaderTimeout: 10 * time.Second}
		p.srv = srv
		go func() { _ = srv.Serve(ln) }()
		p.siteURL = "http://" + ln.Addr().String()
	}
	cfg, err := derive(base, f, stateDir, &scope{siteURL: p.siteURL})
	if err != nil {
		return p, nil, err
	}
	p.cfg = cfg
	set, wps := workflow.LoadPaths(cfg, f.Workflows)
	ps = append(ps, wps...)
	// A workflow file with problems may not define its tool: cases naming
	// it are not told the tool is unknown as well.
	broken := map[string]bool{}
	for _, pr := range wps {
		broken[strings.TrimSuffix(filepath.Base(pr.File), filepath.Ext(pr.File))] = true
	}
	ps = append(ps, checkCases(f, set, broken)...)
	if len(ps) == 0 {
		p.set = set
	}
	return p, ps.Sort(), nil
}

// derive makes the config one file runs on: the base config's settings,
// the file's vars, secrets, workflows and selectors, and its own state dir.
// A secret of the base config that the file does not set and that cannot
// be read stays declared and missing: the workflows that use it load, and
// the cases that call them are skipped (see skip).
func derive(base *config.Config, f *File, stateDir string, sc *scope) (cfg *config.Config, err error) {
	dir := "."
	if base.File != "" {
		dir = filepath.Dir(base.File)
	}
	cfg = config.Default(dir)
	cfg.File = base.File
	cfg.Workflows, cfg.Selectors, cfg.StateDir, cfg.UploadsDir = base.Workflows, base.Selectors, stateDir, base.UploadsDir
	// cfg.Store, cfg.ArtifactsDir, cfg.Audit, cfg.Retention and cfg.Sessions
	// stay at their defaults on purpose (sessions off: a case signs in as
	// written, never with a server's saved session): test cases keep their state in SQLite and their
	// files under their own throwaway state dir, never in the server's shared
	// database or artifacts folder, unkeyed and unpruned.
	if base.File == "" && len(f.Workflows) == 0 {
		// No config file: the built-in workflows when ./workflows does not
		// exist, as for the other commands, extracted under the state dir.
		if _, err := app.WithDefaults(cfg); err != nil {
			return nil, err
		}
	}
	if f.Selectors != "" {
		cfg.Selectors = f.Selectors
	}
	cfg.WarmupURL = base.WarmupURL
	cfg.Browser = base.Browser
	cfg.Browser.Endpoints = append([]string(nil), base.Browser.Endpoints...)
	cfg.Regions = make(map[string]config.Region, len(base.Regions))
	for k, v := range base.Regions {
		cfg.Regions[k] = v
	}
	cfg.Policy = base.Policy
	cfg.Policy.AllowedHosts = append([]string(nil), base.Policy.AllowedHosts...)
	cfg.Repair = base.Repair // a case runs its tools as the server would (repair: use heals there too)
	cfg.Limits = base.Limits
	cfg.HTTP = base.HTTP
	cfg.Vars = make(map[string]any, len(base.Vars)+len(f.vars))
	for k, v := range base.Vars {
		cfg.Vars[k] = v
	}
	for _, nv := range f.vars {
		v, err := resolve(nv.value, sc)
		if err != nil {
			return nil, fmt.Errorf("%s: vars %s: %w", f.Path, nv.name, err)
		}
		cfg.Vars[nv.name] = v
	}
	if f.Serve != "" && len(cfg.Policy.AllowedHosts) > 0 {
		cfg.Policy.AllowedHosts = append(cfg.Policy.AllowedHosts, "127.0.0.1")
	}
	known := base.SecretValues()
	for _, name := range base.SecretNames() {
		if v, ok := f.secrets[name]; ok {
			cfg.SetSecretValue(name, v)
			continue
		}
		if v, ok := known[name]; ok {
			cfg.SetSecretValue(name, v)
			continue
		}
		v, err := base.Secrets[name].Read()
		if err != nil {
			cfg.SetSecretMissing(name, base.Secrets[name], err.Error())
			continue
		}
		cfg.SetSecretValue(name, v)
	}
	for name, v := range f.secrets {
		cfg.SetSecretValue(name, v)
	}
	for name := range cfg.SecretValues() {
		if sec, ok := base.Secrets[name]; ok {
			cfg.Secrets[name] = sec // keeps redact: false (an identity stays readable)
		}
	}
	return cfg, nil
}

// selected says which cases run: those the filter picks and those they use.
func (p *prepared) selected(filter *regexp.Regexp) []bool {
	sel := make([]bool, len(p.file.Cases))
	for i, c := range p.file.Cases {
		sel[i] = filter == nil || filter.MatchString(c.Name)
	}
	for i := len(sel) - 1; i >= 0; i-- {
		if sel[i] {
			for _, j := range p.file.Cases[i].needs {
				sel[j] = true
			}
		}
	}
	return sel
}

// run runs the selected cases of the file in order, in one engine.
func (p *prepared) run(ctx context.Context, o Options, selected []bool) (*FileReport, error) {
	fr := &FileReport{File: p.file.Path, Cases: []*CaseReport{}}
	count := 0
	for _, s := range selected {
		if s {
			count++
		}
	}
	if count == 0 {
		return nil, nil
	}
	if o.Out != nil {
		fmt.Fprintf(o.Out, "== %s\n", p.file.Path)
	}
	log := slog.New(slog.DiscardHandler)
	if o.Logger != nil {
		log = slog.New(policy.RedactingHandler(o.Logger.Handler(), policy.NewRedactor(p.cfg.RedactedValues())))
	}
	a, err := app.OpenWith(p.cfg, p.set, log)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.file.Path, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = a.Close(cctx)
	}()
	red := a.Engine.Redactor()
	sc := &scope{siteURL: p.siteURL, cases: map[string]any{}, passed: map[string]bool{}}
	skipped := map[string]*Skip{}
	for i, c := range p.file.Cases {
		if !selected[i] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fr, err
		}
		var cr *CaseReport
		if sk := p.skip(c, skipped); sk != nil {
			cr = &CaseReport{Name: c.Name, Skipped: sk}
			if c.ID != "" {
				skipped[c.ID] = sk
			}
		} else {
			cr = p.runCase(ctx, a, c, sc)
		}
		for j, f := range cr.Failures {
			cr.Failures[j] = red.Redact(f)
		}
		if c.ID != "" {
			sc.passed[c.ID] = cr.Passed
		}
		fr.Cases = append(fr.Cases, cr)
		if o.Out != nil {
			fmt.Fprintln(o.Out, cr.Line())
		}
	}
	return fr, nil
}

// skip says why case c cannot run, or nil: a case it uses was skipped, or
// its tool (or a tool that calls) reads a secret the config declares, the
// file does not set, and that cannot be read. Only those cases wait for the
// secret; the others run, as serve serves the tools that need none.
func (p *prepared) skip(c *Case, skipped map[string]*Skip) *Skip {
	for _, j := range c.needs {
		dep := p.file.Cases[j]
		if sk := skipped[dep.ID]; sk != nil {
			return &Skip{Secrets: sk.Secrets, Reason: fmt.Sprintf("it uses case %q, which was skipped: %s", dep.Name, sk.Reason)}
		}
	}
	w, ok := p.set.Tool(c.Tool)
	if !ok {
		return nil
	}
	var names, whys []string
	for _, name := range p.set.SecretsOf(w) {
		if why := p.cfg.MissingSecret(name); why != "" {
			names = append(names, name)
			whys = append(whys, fmt.Sprintf("%q (%s)", name, why))
		}
	}
	switch len(names) {
	case 0:
		return nil
	case 1:
		return &Skip{Secrets: names, Reason: fmt.Sprintf("tool %q needs secret %q, which cannot be read (%s); set it, or give it a test value under secrets:", c.Tool, names[0], p.cfg.MissingSecret(names[0]))}
	}
	return &Skip{Secrets: names, Reason: fmt.Sprintf("tool %q needs secrets that cannot be read: %s; set them, or give them test values under secrets:", c.Tool, strings.Join(whys, ", "))}
}

// runCase makes the call of one case and checks its envelope.
func (p *prepared) runCase(ctx context.Context, a *app.App, c *Case, sc *scope) *CaseReport {
	cr := &CaseReport{Name: c.Name}
	fail := func(format string, args ...any) *CaseReport {
		cr.Failures = append(cr.Failures, fmt.Sprintf(format, args...))
		return cr
	}
	for _, j := range c.needs {
		dep := p.file.Cases[j]
		if !sc.passed[dep.ID] {
			return fail("it uses case %q, which did not pass", dep.Name)
		}
	}
	args := map[string]any{}
	for k, v := range c.args {
		r, err := resolve(v, sc)
		if err != nil {
			return fail("args.%s: %v", k, err)
		}
		args[k] = r
	}
	if c.TaskID != "" {
		args["task_id"] = c.TaskID
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return fail("args: %v", err)
	}
	if c.Grant {
		if _, err := a.Store.AddGrant(ctx, c.Tool, c.TaskID, 15*time.Minute, "toolwright test: "+c.Name, "toolwright test"); err != nil {
			return fail("grant: %v", err)
		}
	}
	// The engine bounds the call by its deadline; this only guards a hang.
	cctx, cancel := context.WithTimeout(ctx, a.Config.Limits.MaxDeadline+30*time.Second)
	defer cancel()
	start := time.Now()
	env, err := a.Engine.Call(cctx, run.Request{Tool: c.Tool, Args: raw})
	cr.duration = time.Since(start)
	cr.DurationMS = cr.duration.Milliseconds()
	if err != nil {
		return fail("%v", err)
	}
	cr.Envelope = env.JSON()
	cr.got = EnvelopeTree(env)
	if c.ID != "" {
		sc.cases[c.ID] = cr.got
	}
	for _, ch := range c.expect {
		if msg := ch.eval(cr.got, sc); msg != "" {
			cr.Failures = append(cr.Failures, msg)
		}
	}
	cr.Passed = len(cr.Failures) == 0
	return cr
}
