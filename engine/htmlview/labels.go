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
	lay := &layout{width: p.Width, height: p.Height, gutterBottom: float64(-labelGap)}
	for _, t := range p.Targets {
		for _, b := range t.Boxes {
			lay.others = append(lay.others, rect{b.X, b.Y, b.W, b.H})
		}
	}
	for _, t := range p.Targets {
		if len(t.Boxes) == 0 {
			continue
		}
		b := t.Boxes[0]
		l := labelOf(t.Name, t.Locator, p.Width)
		if t.Proposal != "" {
			l = labelOf(t.Name, "proposed: "+t.Proposal, p.Width)
		}
		l.Target, l.Status = t.Name, t.BoxStatus()
		own := rect{b.X, b.Y, b.W, b.H}
		at, far := lay.place(own, l.W)
		l.X, l.Y = at.x, at.y
		s.Labels = append(s.Labels, l)
		if far {
			s.Leaders = append(s.Leaders, leader(t.BoxStatus(), own, at, p.Width, p.Height))
		}
	}
	if lay.gutterW > 0 {
		s.Width = p.Width + gutterGap + lay.gutterW
		s.Height = max(p.Height, lay.gutterBottom)
	}
	return s
}

// labelOf is a target's label text (its name and locator, cut with an
// ellipsis past labelMaxRunes), whole title and width (at most the
// picture's).
func labelOf(name, locator string, width float64) Label {
	title := name
	if locator != "" {
		title += " · " + locator
	}
	text := title
	if utf8.RuneCountInString(text) > labelMaxRunes {
		text = string([]rune(text)[:labelMaxRunes-1]) + "…"
	}
	w := float64(utf8.RuneCountInString(text)*labelCharW + labelPad)
	return Label{Text: text, Title: title, W: min(w, width)}
}

// layout is the labels placed so far on one picture, the targets' boxes,
// and the gutter beside the picture.
type layout struct {
	width, height         float64
	placed, others        []rect
	gutterW, gutterBottom float64
}

// place finds where a label of width w for the box own goes (see
// layoutShot); far says it is not beside its box, so a leader is drawn.
func (lay *layout) place(own rect, w float64) (at rect, far bool) {
	defer func() { lay.placed = append(lay.placed, at) }()
	b := own
	near := [][2]float64{
		{b.x, b.y - labelH - labelGap},
		{b.x, b.y + b.h + labelGap},
		{b.x + b.w + labelGap, b.y},
		{b.x - w - labelGap, b.y},
		{b.x, b.y},
	}
	for _, avoid := range []bool{true, false} {
		for _, c := range near {
			if at, ok := lay.fits(c[0], c[1], w, own, avoid); ok {
				return at, false
			}
		}
	}
	for k := 1; k <= maxShifts; k++ {
		step := float64(k) * (labelH + labelGap)
		for _, y := range []float64{b.y + b.h + labelGap + step, b.y - labelH - labelGap - step} {
			if at, ok := lay.fits(b.x, y, w, own, false); ok {
				return at, true
			}
		}
	}
	y := max(0, b.y, lay.gutterBottom+labelGap)
	lay.gutterW = max(lay.gutterW, w)
	lay.gutterBottom = y + labelH
	return rect{lay.width + gutterGap, y, w, labelH}, true
}

// fits is the label's rectangle at x (moved into the picture), y, and
// whether it is free there: inside the picture, clear of the labels
// placed, and (avoidBoxes) of every box but its own.
func (lay *layout) fits(x, y, w float64, own rect, avoidBoxes bool) (rect, bool) {
	x = max(0, min(x, lay.width-w))
	r := rect{x, y, w, labelH}
	if y < 0 || y+labelH > lay.height {
		return r, false
	}
	for _, q := range lay.placed {
		if r.overlaps(q.grow(labelGap)) {
			return r, false
		}
	}
	if avoidBoxes {
		for _, q := range lay.others {
			if q != own && r.overlaps(q) {
				return r, false
			}
		}
	}
	return r, true
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
