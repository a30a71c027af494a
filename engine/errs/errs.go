// Package errs holds the one typed error of toolwright: a code the agent can act
// on (retry? hand over to a person?), a message written for the agent, and the
// raw cause kept for the trace only.
package errs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Codes of DESIGN.md's result envelope. A `fail` step may use its own
// snake_case code as well.
const (
	OK                 = "ok"
	InvalidParams      = "invalid_params"
	NotGranted         = "not_granted"
	TaskIDConflict     = "task_id_conflict"
	HostNotAllowed     = "host_not_allowed"
	TargetNotFound     = "target_not_found"
	NavigationFailed   = "navigation_failed"
	AssertionFailed    = "assertion_failed"
	DeadlineExceeded   = "deadline_exceeded"
	Cancelled          = "cancelled"
	EnvUnavailable     = "env_unavailable"
	EnvNotFound        = "env_not_found"
	EnvPurposeMismatch = "env_purpose_mismatch"
	EgressFailed       = "egress_failed"
	LimitExceeded      = "limit_exceeded"
	ConfigError        = "config_error"
	TargetCovered      = "target_covered"
	TargetUnreachable  = "target_unreachable"
	Internal           = "internal"
	OutcomeUnknown     = "outcome_unknown"
	StoreUnavailable   = "store_unavailable"
	StoreBusy          = "store_busy"
	HumanRequired      = "human_required"
)

// Flags is what a code means to the agent by default.
type Flags struct {
	Retryable  bool
	NeedsHuman bool
}

// Table is the code table of DESIGN.md, the one place that says which codes
// are retryable and which need a person.
var Table = map[string]Flags{
	OK:                 {},
	InvalidParams:      {},
	NotGranted:         {NeedsHuman: true},
	TaskIDConflict:     {},
	HostNotAllowed:     {NeedsHuman: true},
	TargetNotFound:     {Retryable: true},
	NavigationFailed:   {Retryable: true},
	AssertionFailed:    {},
	DeadlineExceeded:   {Retryable: true},
	Cancelled:          {},
	EnvUnavailable:     {Retryable: true},
	EnvNotFound:        {},
	EnvPurposeMismatch: {NeedsHuman: true},
	EgressFailed:       {Retryable: true},
	LimitExceeded:      {},
	ConfigError:        {NeedsHuman: true},
	TargetCovered:      {Retryable: true},
	TargetUnreachable:  {},
	Internal:           {NeedsHuman: true},
	OutcomeUnknown:     {NeedsHuman: true},
	StoreUnavailable:   {Retryable: true},
	StoreBusy:          {Retryable: true},
	HumanRequired:      {NeedsHuman: true},
}

// Error is a failure with a code. Message is shown to the agent; Cause is
// the raw lower-layer error and only ever reaches the trace.
type Error struct {
	Code       string
	Message    string
	Retryable  bool
	NeedsHuman bool
	Cause      error
	// Handoff is where a person takes over (human_required), for the
	// envelope; nil otherwise.
	Handoff *Handoff
}

// Handoff is the envelope's handoff: the ui's take-over link of the
// environment an ask_human step kept for a person, until ExpiresAt.
type Handoff struct {
	URL       string    `json:"url"`
	EnvID     string    `json:"env_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// New makes an error with the table's flags for code.
func New(code, format string, args ...any) *Error {
	f := Table[code]
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: f.Retryable, NeedsHuman: f.NeedsHuman}
}

// Wrap makes an error with the table's flags for code and keeps cause for the trace.
func Wrap(code string, cause error, format string, args ...any) *Error {
	e := New(code, format, args...)
	e.Cause = cause
	return e
}

// As returns err as an *Error, mapping context errors to their codes and
// anything else to internal. It never returns nil for a non-nil err.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Wrap(DeadlineExceeded, err, "the call ran past its deadline")
	case errors.Is(err, context.Canceled):
		return Wrap(Cancelled, err, "the call was cancelled")
	}
	return Wrap(Internal, err, "internal error; the trace has the details")
}

// CodeOf is As(err).Code, or "ok" for nil.
func CodeOf(err error) string {
	if err == nil {
		return OK
	}
	return As(err).Code
}
