package repair

import (
	"fmt"
	"sort"
	"strings"
)

// feature is one thing two fingerprints can agree on. Strong features
// name the element itself (its id, test id, name, label, link, text);
// weak ones say where it is and what kind it is, which a similar element
// nearby shares.
type feature struct {
	name   string
	weight float64
	strong bool
	get    func(*Print) string
	// against is taken off when both have the feature and it differs: a
	// field with another name attribute, or another test id, is another
	// element, whatever else it shares.
	against float64
}

var features = []feature{
	{name: "id", weight: 5, strong: true, get: func(p *Print) string { return p.ID }},
	{name: "test id", weight: 5, strong: true, get: func(p *Print) string { return p.TestID }, against: 4},
	{name: "name", weight: 4, strong: true, get: func(p *Print) string { return p.Name }, against: 4},
	{name: "link", weight: 3, strong: true, get: func(p *Print) string { return p.Href }},
	{name: "label", weight: 3, strong: true, get: func(p *Print) string { return p.Label }},
	// A field's accessible name is mostly its label, a button's its text:
	// the same words are one piece of evidence, counted once (roleName,
	// textOnly).
	{name: "role and name", weight: 3, strong: true, get: roleName},
	{name: "text", weight: 3, strong: true, get: textOnly},
	{name: "placeholder", weight: 2, strong: true, get: func(p *Print) string { return p.Placeholder }},
	{name: "tag", weight: 1, get: func(p *Print) string { return p.Tag }},
	{name: "type", weight: 1, get: func(p *Print) string { return p.Type }},
	{name: "landmark", weight: 1, get: func(p *Print) string { return p.Landmark }},
	{name: "heading", weight: 1, get: func(p *Print) string { return p.Heading }},
	{name: "row shape", weight: 1, get: func(p *Print) string { return p.Row }},
	{name: "position", weight: 0.5, get: func(p *Print) string { return p.Pos }},
}

func roleName(p *Print) string {
	if p.Role == "" || p.Acc == "" || strings.EqualFold(p.Acc, p.Label) {
		return ""
	}
	return p.Role + "\x00" + strings.ToLower(p.Acc)
}

func textOnly(p *Print) string {
	if p.Text == "" || strings.EqualFold(p.Text, p.Acc) {
		return ""
	}
	return strings.ToLower(p.Text)
}

// Thresholds of a proposal: the best candidate needs strong features worth
// minStrong and minScore in all, and must lead the next by margin. An
// element that shares only its kind and its place (tag, role, landmark,
// heading, position: at most 4.5) is never proposed.
const (
	minStrong = 3
	minScore  = 7
	margin    = 2
	// strongAlone: strong evidence that needs no agreeing context; below
	// it, a landmark or heading that differs rules the candidate out.
	strongAlone = 6
)

// Scored is one candidate's agreement with the last fingerprint.
type Scored struct {
	Index  int      // its place in the scan
	Score  float64  // the weights of the features that agreed, less those that disagreed
	Strong float64  // the strong features' share of Score
	Agreed []string // the features that agreed, strong ones first
	Differ []string // the features both had that differ
}

// Score compares a candidate's fingerprint with the target's last one.
// Only features the old fingerprint has count.
func Score(old, cand *Print) Scored {
	var s Scored
	for _, f := range features {
		a, b := f.get(old), f.get(cand)
		switch {
		case a == "":
		case strings.EqualFold(a, b):
			s.Score += f.weight
			s.Agreed = append(s.Agreed, f.name)
			if f.strong {
				s.Strong += f.weight
			}
		case b != "":
			s.Differ = append(s.Differ, f.name)
			s.Score -= f.against
		}
	}
	return s
}

// good reports whether s is enough to propose its element.
func (s Scored) good() bool {
	if s.Strong < minStrong || s.Score < minScore {
		return false
	}
	if s.Strong < strongAlone {
		for _, d := range s.Differ {
			if d == "landmark" || d == "heading" {
				return false
			}
		}
	}
	return true
}

// Verdict is what the scores of a scan come to.
type Verdict struct {
	Best *Scored // the one candidate to propose; nil when there is none
	// Close counts the good candidates within margin of the best (2 or
	// more: ambiguous).
	Close int
	// Why says, when nothing is proposed, why not.
	Why string
}

// Judge picks the one candidate to propose among scored, or says why
// there is none: no candidate good enough, or several close together.
func Judge(scored []Scored) Verdict {
	var good []Scored
	for _, s := range scored {
		if s.good() {
			good = append(good, s)
		}
	}
	if len(good) == 0 {
		return Verdict{Why: "no element matches the last fingerprint well enough" + nearest(scored)}
	}
	sort.SliceStable(good, func(i, j int) bool { return good[i].Score > good[j].Score })
	close := 1
	for _, g := range good[1:] {
		if good[0].Score-g.Score < margin {
			close++
		}
	}
	if close > 1 {
		return Verdict{Close: close, Why: fmt.Sprintf("ambiguous: %d candidates match the last fingerprint about as well (%s)", close, strings.Join(good[0].Agreed, ", "))}
	}
	return Verdict{Best: &good[0], Close: 1}
}

// nearest names what the closest candidate shared, so a maintainer sees
// how far off it was.
func nearest(scored []Scored) string {
	var best *Scored
	for i := range scored {
		if best == nil || scored[i].Score > best.Score {
			best = &scored[i]
		}
	}
	if best == nil || len(best.Agreed) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the closest shares only %s)", strings.Join(best.Agreed, ", "))
}
