package repair

import (
	"fmt"
	"slices"
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
	// same, when set, says whether two values of get agree (else: equal
	// but for case).
	same func(a, b string) bool
	// compare, when set, compares instead of get: has reports whether the
	// old fingerprint has the feature at all; agree and differ whether the
	// candidate shares it, or has it otherwise. page counts what the
	// scanned candidates have.
	compare func(old, cand *Print, page *Page) (has, agree, differ bool)
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
	// A data attribute the page's own script reads (data-action=export,
	// data-col=date): another value of the same one is another element.
	{name: "data attribute", weight: 3, strong: true, compare: sameData, against: 2},
	// A class name no other element on the page has now (js-change-password,
	// chat); a shared one (btn) says nothing.
	{name: "class", weight: 3, strong: true, compare: uniqueClass},
	{name: "tag", weight: 1, get: func(p *Print) string { return p.Tag }},
	{name: "type", weight: 1, get: func(p *Print) string { return p.Type }},
	{name: "landmark", weight: 1, get: func(p *Print) string { return p.Landmark }, same: sameLandmark},
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

// textOnly is p's text where roleName does not already count it: an
// element without a role (a heading's or a price's text) keeps its text.
func textOnly(p *Print) string {
	if p.Text == "" || (roleName(p) != "" && strings.EqualFold(p.Text, p.Acc)) {
		return ""
	}
	return strings.ToLower(p.Text)
}

// sameLandmark: the same landmark, or the same kind where one of the two
// has no name ("form" and "form Profile": a form that was given a label).
func sameLandmark(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	ka, na, _ := strings.Cut(a, " ")
	kb, nb, _ := strings.Cut(b, " ")
	return ka == kb && (na == "" || nb == "")
}

// sameData: the candidate has one of old's data attributes with its value
// (agree), or only other values of them (differ).
func sameData(old, cand *Print, _ *Page) (has, agree, differ bool) {
	for _, d := range old.Data {
		k, _, _ := strings.Cut(d, "=")
		for _, c := range cand.Data {
			if c == d {
				return true, true, false
			}
			if ck, _, _ := strings.Cut(c, "="); ck == k {
				differ = true
			}
		}
	}
	return len(old.Data) > 0, false, differ
}

// uniqueClass: the candidate has one of old's class names, and no other
// candidate on the page has it.
func uniqueClass(old, cand *Print, page *Page) (has, agree, differ bool) {
	if page == nil {
		return len(old.Classes) > 0, false, false
	}
	for _, c := range old.Classes {
		if page.classes[c] == 1 && slices.Contains(cand.Classes, c) {
			return true, true, false
		}
	}
	return len(old.Classes) > 0, false, false
}

// Page is what the scanned candidates of a page have between them.
type Page struct {
	classes map[string]int // how many candidates have each class name
}

// NewPage counts what cands have between them.
func NewPage(cands []Print) *Page {
	p := &Page{classes: map[string]int{}}
	for _, c := range cands {
		for _, name := range c.Classes {
			p.classes[name]++
		}
	}
	return p
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

// Score compares a candidate's fingerprint with the target's last one,
// among the candidates page counts (nil: a class name is never known to
// be unique). Only features the old fingerprint has count.
func Score(old, cand *Print, page *Page) Scored {
	var s Scored
	for _, f := range features {
		var has, agree, differ bool
		if f.compare != nil {
			has, agree, differ = f.compare(old, cand, page)
		} else {
			a, b := f.get(old), f.get(cand)
			has = a != ""
			if f.same != nil {
				agree = has && b != "" && f.same(a, b)
			} else {
				agree = strings.EqualFold(a, b)
			}
			differ = !agree && b != ""
		}
		switch {
		case !has:
		case agree:
			s.Score += f.weight
			s.Agreed = append(s.Agreed, f.name)
			if f.strong {
				s.Strong += f.weight
			}
		case differ:
			s.Differ = append(s.Differ, f.name)
			s.Score -= f.against
		}
	}
	return s
}

// good reports whether s is enough to propose its element: strong
// evidence worth minStrong, and minScore in all, or less when its place
// says the same (corroborated).
func (s Scored) good() bool {
	if s.Strong < minStrong || (s.Score < minScore && !s.corroborated()) {
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

// corroborated: the candidate is the same kind of element (tag) in the
// same landmark under the same heading: strong evidence (its role and
// name, its text) in the same place as before, which a similar element
// elsewhere lacks.
func (s Scored) corroborated() bool {
	return slices.Contains(s.Agreed, "tag") && slices.Contains(s.Agreed, "landmark") && slices.Contains(s.Agreed, "heading")
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
