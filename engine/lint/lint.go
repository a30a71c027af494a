// Package lint holds positions and problems: everything the loader reports to
// workflow authors, as `file:line:col: message`, all of them in one run.
package lint

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Pos is a place in a YAML file. Line and Col are 1-based; 0 means unknown.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// At returns the position of a YAML node in file.
func At(file string, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// The fixed set of lint kinds, so editors and tests can group problems.
const (
	Syntax      = "syntax"       // YAML that does not parse
	UnknownKey  = "unknown_key"  // a key no declaration knows
	UnknownKind = "unknown_kind" // a step kind nobody registered
	BadValue    = "bad_value"    // a value of the wrong type or out of range
	Missing     = "missing"      // a required field is absent
	BadName     = "bad_name"     // a tool, param or variable name breaks its rule
	Unbounded   = "unbounded"    // a number, array or loop without a bound
	UnknownRef  = "unknown_ref"  // a target, param, var, tool or region that does not exist
	Expression  = "expression"   // an expression that does not compile
	Secret      = "secret"       // secrets.* used outside fill.value
	Risk        = "risk"         // a read workflow that writes
	Cycle       = "cycle"        // call cycles
	Duplicate   = "duplicate"    // two definitions of one name
	// Warning is not a problem: the workflow loads and runs, but may end
	// in a way its author did not mean (a comparison that can meet no
	// value). Problems.Split sets warnings apart.
	Warning = "warning"
)

// Problem is one thing wrong, at one place.
type Problem struct {
	Pos
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Pos.String() + ": " + p.Message }

// Problems collects every problem of a run.
type Problems []Problem

// Addf records a problem.
func (ps *Problems) Addf(pos Pos, kind, format string, args ...any) {
	*ps = append(*ps, Problem{Pos: pos, Kind: kind, Message: fmt.Sprintf(format, args...)})
}

// Sort orders problems by file, line and column, and drops exact repeats.
func (ps Problems) Sort() Problems {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Split sets the warnings apart from the problems.
func (ps Problems) Split() (problems, warnings Problems) {
	for _, p := range ps {
		if p.Kind == Warning {
			warnings = append(warnings, p)
		} else {
			problems = append(problems, p)
		}
	}
	return problems, warnings
}

// Error joins the problems into one error, or returns nil for none.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return &Error{Problems: ps}
}

// Error is a non-empty list of problems as an error.
type Error struct{ Problems Problems }

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Suggest returns ` (did you mean "x"?)` for the closest candidate to name,
// or "" when nothing is close enough.
func Suggest(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// Closest returns the candidate an author most likely meant by name: the
// toolwright word for a word from elsewhere (Synonyms), the snake_case
// form of a camelCase name, or the nearest spelling; "" when none is close.
func Closest(name string, candidates []string) string {
	if s := synonym(name, candidates); s != "" {
		return s
	}
	if s := extension(name, candidates); s != "" {
		return s
	}
	best, bestD := "", -1
	for _, c := range candidates {
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := len(name) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD < 0 || bestD > limit {
		// A long dotted name with the right tail is still worth offering.
		for _, c := range candidates {
			if i := strings.LastIndexByte(name, '.'); i > 0 && strings.HasSuffix(c, name[i:]) && len(name[i:]) > 3 {
				return c
			}
		}
		return ""
	}
	return best
}

// extension finds the candidate that name begins, cut at a word boundary
// (nw.orders.filter → nw.orders.filter_orders), or that begins name
// (acme.login.submit_button → acme.login.submit): the author wrote part
// of a name or a word too many, which an edit distance ranks below any
// short name of the same length. Dotted names must agree on every segment
// but the last. The shortest such candidate wins.
func extension(name string, candidates []string) string {
	if len(name) < 4 {
		return ""
	}
	boundary := func(long, short string) bool {
		if !strings.HasPrefix(long, short) || len(long) == len(short) {
			return false
		}
		c := long[len(short)]
		return (c == '_' || c == '.' || c == '-') && !strings.Contains(long[len(short)+1:], ".")
	}
	best := ""
	for _, c := range candidates {
		if boundary(c, name) || (len(c) >= 4 && boundary(name, c) && strings.Count(name, ".") == strings.Count(c, ".")) {
			if best == "" || len(c) < len(best) || (len(c) == len(best) && c < best) {
				best = c
			}
		}
	}
	return best
}

// distance is the Levenshtein edit distance with adjacent transpositions.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
