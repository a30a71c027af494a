// Package result defines the envelope every tool call returns and the list
// shape every list leaving the engine takes.
package result

import (
	"encoding/json"
	"sort"

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
	// Handoff is set with human_required: where a person takes over.
	Handoff *errs.Handoff `json:"handoff,omitempty"`
	// Healed are the targets this call found by a repair proposal no person
	// has reviewed yet (config repair: use): what it read from them came
	// from elements the selector map no longer names.
	Healed []string `json:"healed,omitempty"`
}

// Success builds an ok envelope around data.
func Success(data map[string]any) *Envelope {
	return &Envelope{OK: true, Code: errs.OK, Data: data}
}

// Failure builds a failed envelope from any error; raw causes stay out.
func Failure(err error) *Envelope {
	e := errs.As(err)
	return &Envelope{Code: e.Code, Message: e.Message, Retryable: e.Retryable, NeedsHuman: e.NeedsHuman, Handoff: e.Handoff}
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

// Table is a list returned with `format: table`: every key once, then the
// rows' values in that order.
type Table struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
}

// ValueColumn names the one column of a table of items that are not objects.
const ValueColumn = "value"

// NewTable lays items out as a table, cutting them at max (0: no cut) like
// NewList. The columns are columns (the declared fields, in order), then
// any other key the items have, in sorted order; an item that is not an
// object is one value in the column "value". A key an item lacks is null.
func NewTable(items []any, truncated bool, max int, columns []string) Table {
	l := NewList(items, truncated, max)
	cols := append([]string(nil), columns...)
	index := make(map[string]int, len(cols))
	for i, c := range cols {
		index[c] = i
	}
	var extra []string
	for _, it := range l.Items {
		m, ok := it.(map[string]any)
		if !ok {
			if _, seen := index[ValueColumn]; !seen {
				index[ValueColumn] = -1
				extra = append(extra, ValueColumn)
			}
			continue
		}
		for k := range m {
			if _, seen := index[k]; !seen {
				index[k] = -1
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		index[k] = len(cols)
		cols = append(cols, k)
	}
	rows := make([][]any, len(l.Items))
	for i, it := range l.Items {
		row := make([]any, len(cols))
		if m, ok := it.(map[string]any); ok {
			for k, v := range m {
				row[index[k]] = v
			}
		} else {
			row[index[ValueColumn]] = it
		}
		rows[i] = row
	}
	if cols == nil {
		cols = []string{}
	}
	return Table{Columns: cols, Rows: rows, Count: l.Count, Truncated: l.Truncated}
}
