package htmlview

import "unicode/utf8"

// The labels' geometry in CSS pixels; style.css gives .label the same
// height and font. A label's width is set from its text (labelCharW per
// character, a little more than the 11 px monospace font's 6.6 px), and
// its text is cut with an ellipsis if a font is wider still, so the
// rectangles laid out here are the ones the browser draws.
const (
	labelH        = 16
	labelCharW    = 7
	labelPad      = 8
	labelMaxRunes = 56
	labelGap      = 1  // between a label and its box, or two labels
	gutterGap     = 24 // between the picture and the labels beside it
	maxShifts     = 40 // rows tried above and below a box before the gutter
)

// Label is a target's name and locator drawn on the picture, placed so no
// two labels overlap and none leaves the picture's frame.
type Label struct {
	Target, Status string
	Text, Title    string // Text may be cut; Title is the whole of it
	X, Y, W        float64
}

// Leader is a line from a box to its label when the label could not sit
// next to the box.
type Leader struct {
	Status         string
	X1, Y1, X2, Y2 float64
}

// Shot is the frame of one page's picture: the screenshot, and to its
// right a gutter of the labels that found no room on it.
type Shot struct {
	Width, Height float64
	Labels        []Label
	Leaders       []Leader
}

type rect struct{ x, y, w, h float64 }

func (a rect) overlaps(b rect) bool {
	return a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h
}

// grow is a with a margin of d on every side.
func (a rect) grow(d float64) rect { return rect{a.x - d, a.y - d, a.w + 2*d, a.h + 2*d} }

// layoutShot places one label per boxed target (at its first box). Each
// label goes, in order of preference, above, below, right or left of its
// box, or over its corner, first where it covers no other target's box,
// then anywhere free; else a row further up or down; else in the gutter,
// level with its box as far as the labels already there allow, with a
// leader line. So labels never overlap each other, never leave the frame,
// and the frame is as large as what is drawn in it.
func layoutShot(p ReportPage) Shot {
	s := Shot{Width: p.Width, Height: p.Height}
	var placed, others []rect
	for _, t := range p.Targets {
		for _, b := range t.Boxes {
			others = append(others, rect{b.X, b.Y, b.W, b.H})
		}
	}
	gutterW, gutterBottom := 0.0, float64(-labelGap)
	for _, t := range p.Targets {
		if len(t.Boxes) == 0 {
			continue
		}
		b := t.Boxes[0]
		title := t.Name
		if t.Locator != "" {
			title += " · " + t.Locator
		}
		text := title
		if utf8.RuneCountInString(text) > labelMaxRunes {
			text = string([]rune(text)[:labelMaxRunes-1]) + "…"
		}
		w := float64(utf8.RuneCountInString(text)*labelCharW + labelPad)
		if w > p.Width {
			w = p.Width
		}
		l := Label{Target: t.Name, Status: t.Status, Text: text, Title: title, W: w}
		own := rect{b.X, b.Y, b.W, b.H}
		fits := func(x, y float64, avoidBoxes bool) (rect, bool) {
			x = max(0, min(x, p.Width-w))
			r := rect{x, y, w, labelH}
			if y < 0 || y+labelH > p.Height {
				return r, false
			}
			for _, q := range placed {
				if r.overlaps(q.grow(labelGap)) {
					return r, false
				}
			}
			if avoidBoxes {
				for _, q := range others {
					if q != own && r.overlaps(q) {
						return r, false
					}
				}
			}
			return r, true
		}
		near := [][2]float64{
			{b.X, b.Y - labelH - labelGap},
			{b.X, b.Y + b.H + labelGap},
			{b.X + b.W + labelGap, b.Y},
			{b.X - w - labelGap, b.Y},
			{b.X, b.Y},
		}
		var at rect
		found, far := false, false
		for _, avoid := range []bool{true, false} {
			for _, c := range near {
				if at, found = fits(c[0], c[1], avoid); found {
					break
				}
			}
			if found {
				break
			}
		}
		for k := 1; !found && k <= maxShifts; k++ {
			step := float64(k) * (labelH + labelGap)
			for _, y := range []float64{b.Y + b.H + labelGap + step, b.Y - labelH - labelGap - step} {
				if at, found = fits(b.X, y, false); found {
					far = true
					break
				}
			}
		}
		if !found {
			y := max(0, b.Y, gutterBottom+labelGap)
			at = rect{p.Width + gutterGap, y, w, labelH}
			gutterW = max(gutterW, w)
			gutterBottom = y + labelH
			far = true
		}
		placed = append(placed, at)
		l.X, l.Y = at.x, at.y
		s.Labels = append(s.Labels, l)
		if far {
			s.Leaders = append(s.Leaders, leader(t.Status, own, at, p.Width, p.Height))
		}
	}
	if gutterW > 0 {
		s.Width = p.Width + gutterGap + gutterW
		s.Height = max(p.Height, gutterBottom)
	}
	return s
}

// leader is the line from box b's edge nearest its label at to the label
// (a box beyond the picture is cut at its edge).
func leader(status string, b, at rect, width, height float64) Leader {
	midY := min(b.y+b.h/2, height)
	switch {
	case at.x >= b.x+b.w: // to the right, the gutter included
		return Leader{status, min(b.x+b.w, width), midY, at.x, at.y + labelH/2}
	case at.x+at.w <= b.x: // to the left
		return Leader{status, b.x, midY, at.x + at.w, at.y + labelH/2}
	}
	x := max(b.x, min(at.x+at.w/2, b.x+b.w))
	if at.y > b.y { // below
		return Leader{status, x, min(b.y+b.h, height), x, at.y}
	}
	return Leader{status, x, b.y, x, at.y + labelH}
}
