package repair

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

// What a proposal came to.
const (
	Proposed  = "proposed"  // one element matched well: Locators are for it
	Ambiguous = "ambiguous" // several matched about as well: nothing proposed
	None      = "none"      // nothing matched well enough, or nothing to match
)

// maxCandidates bounds the elements a scan reads and scores.
const maxCandidates = 400

// markN is the suggest mark of the proposed element while its locators
// are checked: far above the marks `selectors suggest` counts from 0.
const markN = 1 << 20

// Proposal is a repair proposal for a target that stopped resolving.
type Proposal struct {
	Target string `json:"target"`
	Status string `json:"status"`
	// Locators are the proposed locator, primary first: each matched
	// exactly the proposed element on the page when it was proposed.
	Locators []selector.Locator `json:"locators,omitempty"`
	// Agreed are the features of the last fingerprint the element shares.
	Agreed  []string `json:"agreed,omitempty"`
	Score   float64  `json:"score,omitempty"`
	Message string   `json:"message"`
}

// Described lists the proposed locators as `selectors check` prints them.
func (p *Proposal) Described() []string {
	var out []string
	for _, l := range p.Locators {
		out = append(out, l.Describe())
	}
	return out
}

// Propose looks in tab's document (open shadow roots included) for the
// element that matches last, target's last fingerprint, and proposes a
// locator for it by suggest's rules (none holding one of secrets) when
// exactly one element matches well.
func Propose(ctx context.Context, tab *rod.Page, target string, last *Print, secrets []string) (*Proposal, error) {
	if last.Row != "" {
		// suggest proposes locators that match one element; a many
		// target's locator must match every row.
		return &Proposal{Target: target, Status: None, Message: "not proposed: the repair of a many target (rows) is not proposed yet"}, nil
	}
	arg := map[string]any{"print": last, "many": false, "max": maxCandidates}
	res, err := tab.Context(ctx).Eval(printJS, "scan", arg)
	if err != nil {
		return nil, fmt.Errorf("read the page's elements: %w", err)
	}
	var cands []Print
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &cands); err != nil {
		return nil, fmt.Errorf("read the page's elements: %w", err)
	}
	scored := make([]Scored, len(cands))
	page := NewPage(cands)
	for i := range cands {
		scored[i] = Score(last, &cands[i], page)
		scored[i].Index = i
	}
	v := Judge(scored)
	if v.Best == nil {
		status := None
		if v.Close > 1 {
			status = Ambiguous
		}
		return &Proposal{Target: target, Status: status, Message: v.Why}, nil
	}
	locs, err := locate(ctx, tab, arg, v.Best.Index, secrets)
	if err != nil {
		return nil, err
	}
	p := &Proposal{Target: target, Status: Proposed, Locators: locs, Agreed: v.Best.Agreed, Score: v.Best.Score}
	if len(locs) == 0 {
		p.Status = None
		p.Message = fmt.Sprintf("one element matches the last fingerprint (%s), but no locator matches it alone", strings.Join(p.Agreed, ", "))
		return p, nil
	}
	p.Message = fmt.Sprintf("%s matches one element, whose %s agree with the last fingerprint", strings.Join(p.Described(), ", then "), strings.Join(p.Agreed, ", "))
	return p, nil
}

// locate marks the i-th candidate of the scan arg and asks suggest for
// its locators; the mark is taken off again.
func locate(ctx context.Context, tab *rod.Page, arg map[string]any, i int, secrets []string) ([]selector.Locator, error) {
	mark := map[string]any{"i": i, "n": markN}
	for k, v := range arg {
		mark[k] = v
	}
	page := tab.Context(ctx)
	res, err := page.Eval(printJS, "mark", mark)
	if err != nil {
		return nil, fmt.Errorf("mark the element: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_, _ = tab.Context(uctx).Eval(printJS, "unmark", nil)
	}()
	if !res.Value.Bool() {
		return nil, fmt.Errorf("the page changed while it was read: the element is gone")
	}
	locs, _, err := selsuggest.Marked(ctx, tab, markN, secrets)
	return locs, err
}

// YAML is the proposal as selector-map YAML for target, to paste after
// review ("" when nothing is proposed).
func (p *Proposal) YAML() string {
	if p.Status != Proposed || len(p.Locators) == 0 {
		return ""
	}
	var b strings.Builder
	selsuggest.WriteEntries(&b, []selsuggest.Entry{{Name: p.Target, Description: "repaired: " + strings.Join(p.Agreed, ", ") + " agreed", Locators: p.Locators}})
	return b.String()
}
