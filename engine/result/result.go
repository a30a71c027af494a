// Package result defines the envelope every tool call returns and the list
// shape every list leaving the engine takes.
package result

import (
	"encoding/json"

	"github.com/toolwright/toolwright/engine/errs"
)

// Envelope is the uniform tool result of DESIGN.md.
type Envelope struct {
	OK         bool           `json:"ok"`
	Code       string         `json:"code"`
	Message    string         `json:"message,omitempty"`
	Retryable  bool           `json:"retryable"`
	NeedsHuman bool           `json:"needs_human"`
	Data       map[string]any `json:"data,omitempty"`
	TaskID     string         `json:"task_id,omitempty"`
	TraceID    string         `json:"trace_id,omitempty"`
	Attempts   int            `json:"attempts,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	Step       string         `json:"step,omitempty"`
}

// Success builds an ok envelope around data.
func Success(data map[string]any) *Envelope {
	return &Envelope{OK: true, Code: errs.OK, Data: data}
}

// Failure builds a failed envelope from any error; raw causes stay out.
func Failure(err error) *Envelope {
	e := errs.As(err)
	return &Envelope{Code: e.Code, Message: e.Message, Retryable: e.Retryable, NeedsHuman: e.NeedsHuman}
}

// JSON is the envelope as compact JSON.
func (e *Envelope) JSON() []byte {
	b, _ := json.Marshal(e) // only JSON-safe values are ever stored in Data
	return b
}

// List is the shape of every list that leaves the engine.
type List struct {
	Items     []any `json:"items"`
	Count     int   `json:"count"`
	Truncated bool  `json:"truncated"`
}

// NewList wraps items, cutting them at max (0: no cut).
func NewList(items []any, truncated bool, max int) List {
	if items == nil {
		items = []any{}
	}
	if max > 0 && len(items) > max {
		items, truncated = items[:max], true
	}
	return List{Items: items, Count: len(items), Truncated: truncated}
}
