// Package repair keeps what each target's element looked like when it last
// resolved (its fingerprint, in the store) and, once the target stops
// resolving, looks in the page for the element that matches that
// fingerprint best. It proposes a locator for it, by `selectors suggest`'s
// rules and verified to match that one element, only when exactly one
// element matches well; the proposal says which features agreed. Proposals
// are for the people who keep the selector map (the trace, `selectors
// check`), never for the agent.
package repair

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

//go:embed print.js
var printSource string

// printJS is print.js with describe.js (how suggest reads an element)
// spliced in, so a fingerprint's label and role are read as suggest reads them.
var printJS = strings.Replace(printSource, "/* describe.js */", selsuggest.DescribeJS, 1)

// MaxBytes bounds one fingerprint as JSON.
const MaxBytes = 2 << 10

// Print is an element's fingerprint: what print.js reads of it. It never
// holds a field's value.
type Print struct {
	Tag         string `json:"tag"`
	Type        string `json:"type,omitempty"`
	Role        string `json:"role,omitempty"`
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"` // the name attribute
	TestID      string `json:"testid,omitempty"`
	Href        string `json:"href,omitempty"` // the link's path, without query
	Placeholder string `json:"placeholder,omitempty"`
	Label       string `json:"label,omitempty"`
	Acc         string `json:"acc,omitempty"` // the accessible name (approximately)
	Text        string `json:"text,omitempty"`
	Landmark    string `json:"landmark,omitempty"` // "form Sign in": the nearest landmark and its name
	Heading     string `json:"heading,omitempty"`  // the nearest heading before it
	Pos         string `json:"pos,omitempty"`      // "2/3": among its parent's children of its tag
	Row         string `json:"row,omitempty"`      // a many target's row shape: "tr>td,td,td"
	// Data are its own data-* attributes as "action=export" (not test
	// ids, nor a framework's generated ones), at most 6.
	Data []string `json:"data,omitempty"`
	// Classes are the class names no other element of its document had,
	// not states (active) nor ones with a digit (mb-3, css-1q2w), at most 8.
	Classes []string `json:"classes,omitempty"`
}

// strings lists p's text fields, to clip or redact them all alike.
func (p *Print) strings() []*string {
	out := []*string{&p.Type, &p.Role, &p.ID, &p.Name, &p.TestID, &p.Href, &p.Placeholder, &p.Label, &p.Acc, &p.Text, &p.Landmark, &p.Heading, &p.Pos, &p.Row}
	for i := range p.Data {
		out = append(out, &p.Data[i])
	}
	for i := range p.Classes {
		out = append(out, &p.Classes[i])
	}
	return out
}

// Read reads el's fingerprint in one request (a function run on el);
// many: el is a row of a many target, whose shape is kept too.
func Read(ctx context.Context, el *rod.Element, many bool) (*Print, error) {
	res, err := el.Context(ctx).Eval(printJS, "print", map[string]any{"many": many})
	if err != nil {
		return nil, fmt.Errorf("read the fingerprint: %w", err)
	}
	var p Print
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &p); err != nil {
		return nil, fmt.Errorf("read the fingerprint: %w", err)
	}
	return &p, nil
}

// Seal redacts p's text with redact (secret values shown on the page
// never reach the store), bounds it to MaxBytes and returns it as JSON
// with its hash.
func (p *Print) Seal(redact func(string) string) (data []byte, hash string) {
	for _, s := range p.strings() {
		if redact != nil {
			*s = redact(*s)
		}
	}
	for n := 80; ; n /= 2 {
		data, _ = json.Marshal(p)
		if len(data) <= MaxBytes || n < 8 {
			break
		}
		for _, s := range p.strings() {
			*s = clipRunes(*s, n)
		}
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:12])
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
