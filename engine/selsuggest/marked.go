package selsuggest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/selector"
)

//go:embed one.js
var oneSource string

var oneJS = strings.Replace(oneSource, "/* describe.js */", DescribeJS, 1)

// MarkAttr marks elements for the resolver's same-element check: the
// element a locator is verified for carries MarkAttr="N".
const MarkAttr = "data-tw-suggest"

// Marked proposes locators for the element of tab's document (open shadow
// roots included) that carries MarkAttr="n", by suggest's own rules: the
// candidates describe.js lists, each resolved on the page and kept only
// when it matches exactly that element, none holding a secret or a
// session token, arranged as a primary and fallbacks. engine/repair
// proposes a broken target's repair with it. No locator is an empty list.
func Marked(ctx context.Context, tab *rod.Page, n int, secrets []string) ([]selector.Locator, *Element, error) {
	res, err := tab.Context(ctx).Eval(oneJS, n)
	if err != nil {
		return nil, nil, fmt.Errorf("read the element: %w", err)
	}
	var e *Element
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &e); err != nil {
		return nil, nil, fmt.Errorf("read the element: %w", err)
	}
	if e == nil {
		return nil, nil, fmt.Errorf("the element marked %d is gone", n)
	}
	good, err := verify(ctx, tab, nil, "", []Element{*e})
	if err != nil {
		return nil, nil, err
	}
	locs := clean(good[0], secrets)
	if len(locs) == 0 {
		return nil, e, nil
	}
	return Arrange(locs), e, nil
}
