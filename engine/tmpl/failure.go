package tmpl

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/expr-lang/expr/file"
)

// EvalError is an expression that failed while a call ran. Error keeps
// expr-lang's own text for the trace; Reason says what went wrong in an
// author's words, for the agent's message, without lower-layer text.
type EvalError struct {
	Source string // the expression as written, without ${{ }}
	Reason string
	Err    error
	// NoValue: an operator met no value (nil: find or findLast that found
	// nothing, a field a record lacks) where it needs one, as in
	// `find(...) < 3`: the data was not what the workflow expected, not a
	// bug of the engine.
	NoValue bool
	// PastEnd: it read a position past a list's (or a text's) end, as in
	// `vars.rows[3]` of 3 rows: the page had fewer items than the workflow
	// expects, not a bug of the engine either.
	PastEnd bool
}

func (e *EvalError) Error() string { return fmt.Sprintf("expression %q: %v", e.Source, e.Err) }
func (e *EvalError) Unwrap() error { return e.Err }

// evalFailed wraps a run-time error of the expression code.
func evalFailed(code string, err error) error {
	var ee *EvalError
	if errors.As(err, &ee) {
		return err
	}
	return &EvalError{Source: strings.TrimSpace(code), Reason: reasonOf(code, err), Err: err, NoValue: noValue(err), PastEnd: pastEnd(err)}
}

var (
	reFetch  = regexp.MustCompile(`^cannot fetch (.+) from (.+)$`)
	reIndex  = regexp.MustCompile(`^index out of range: (-?\d+) \(array length is (\d+)\)`)
	reBinary = regexp.MustCompile(`^invalid operation: (.+?) ([-+*/%<>=!&|^]+|in|matches|contains|startsWith|endsWith|and|or|\.\.) (.+)$`)
	reUnary  = regexp.MustCompile(`^invalid operation: ([-+!]|not) (.+)$`)
	reConv   = regexp.MustCompile(`^invalid operation: (int|float)\(`)
	reBool   = regexp.MustCompile(`^invalid operation: bool\((.+)\)$`)
	reIdent  = regexp.MustCompile(`^[?]?[.]?([A-Za-z_][A-Za-z0-9_]*)`)
	reLen    = regexp.MustCompile(`^invalid argument for (\w+) \(type (.+)\)$`)
	reIface  = regexp.MustCompile(`^interface conversion: interface \{\} is (.+), not (.+)$`)
)

// reasonOf turns expr-lang's run-time error into words an author can act
// on. The forms are expr-lang's (vm/runtime); an unknown one gets a general
// sentence, and the trace keeps the original.
func reasonOf(code string, err error) string {
	msg := err.Error()
	field := ""
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
		if r := []rune(code); fe.From >= 0 && fe.From < len(r) {
			if m := reIdent.FindStringSubmatch(string(r[fe.From:])); m != nil {
				field = m[1] // the name read where it failed
			}
		}
	}
	msg = strings.TrimPrefix(msg, "runtime error: ")
	if m := reFetch.FindStringSubmatch(msg); m != nil {
		if m[2] == "<nil>" {
			return fmt.Sprintf("it reads %q of a value that is not set (the name before the dot has no value yet)", m[1])
		}
		return fmt.Sprintf("it reads %q of %s, which has no fields", m[1], typeWords(m[2]))
	}
	if m := reIndex.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("it reads position %s of a list or text of length %s (positions start at 0)", m[1], m[2])
	}
	switch {
	case strings.Contains(msg, "divide by zero"):
		return "it divides by zero"
	case strings.HasPrefix(msg, "invalid operation: int(string)") && field != "":
		return fmt.Sprintf("it reads %q of text or of a list, which have no fields (a list's rows are in .items)", field)
	case strings.HasPrefix(msg, "invalid operation: int(string)"):
		return "it reads a field of text or of a list, which have no fields (a list's rows are in .items)"
	case reConv.MatchString(msg):
		return "it converts a value that is not a number into a number"
	case strings.Contains(msg, "cannot call non-function"):
		return "it calls something that is not a function"
	}
	if m := reBool.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("a condition must give true or false, and it gave %s", typeWords(m[1]))
	}
	if m := reLen.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s() takes a list or text, not %s", m[1], typeWords(m[2]))
	}
	if m := reIface.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("a function or operator got %s where it needs %s", typeWords(m[1]), typeWords(m[2]))
	}
	if m := reBinary.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%q does not work between %s and %s", m[2], typeWords(m[1]), typeWords(m[3]))
	}
	if m := reUnary.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%q does not work on %s", m[1], typeWords(m[2]))
	}
	return "its value could not be computed from the values it read"
}

// noValue reports whether err is an operator that met no value (nil).
func noValue(err error) bool {
	msg := err.Error()
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
	}
	msg = strings.TrimPrefix(msg, "runtime error: ")
	m := reBinary.FindStringSubmatch(msg)
	return m != nil && (typeWords(m[1]) == "no value" || typeWords(m[3]) == "no value")
}

// pastEnd reports expr-lang's error for a position past a list's end.
func pastEnd(err error) bool {
	msg := err.Error()
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
	}
	return reIndex.MatchString(strings.TrimPrefix(msg, "runtime error: "))
}

// typeWords names a Go type as an author knows the value.
func typeWords(goType string) string {
	t := strings.TrimSpace(goType)
	switch {
	case t == "<nil>" || t == "nil":
		return "no value"
	case t == "string":
		return "text"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a record"
	}
	return "a value of another kind"
}

// kindWords names a run-time value's kind for a message.
func kindWords(v any) string {
	if v == nil {
		return "no value"
	}
	return typeWords(fmt.Sprintf("%T", v))
}
