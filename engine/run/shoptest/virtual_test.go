package shoptest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/harness"
)

// TestAListThePageDrawsInPartIsTruncated: a grid that draws only the rows
// in view (a virtualized table) read 14 of its 200 rows, truncated false:
// the agent was told that was the stock. Now a list read is truncated
// when the page says it holds more than it drew (aria-rowcount on the
// grid, aria-setsize on a list's items) and keeps the room of the rest.
// A paginated table that tells the size of the whole set, a list whose
// items are all drawn, and a read of the header's cells are whole. A click
// on an item the grid did not draw says so.
func TestAListThePageDrawsInPartIsTruncated(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{"pick": `
name: pick
description: Click the nth item of the virtualized grid.
risk: read
params:
  nth: {type: integer, description: Which item, min: 0, max: 199, required: true}
steps:
  - goto: ${{ config.shop_base }}/virtual.html
  - click: {target: tr.virt.stock_items, nth: "${{ params.nth }}"}
`, "lists": `
name: lists
description: Read the lists of the virtualized page.
risk: read
steps:
  - goto: ${{ config.shop_base }}/virtual.html
  - extract: {from: tr.virt.stock_items, list: true, into: stock}
  - extract: {from: tr.virt.stock_rows_by_role, list: true, into: stock_by_role}
  - extract: {from: tr.virt.stock_headers, list: true, into: headers}
  - extract: {from: tr.virt.orders, list: true, into: orders}
  - extract: {from: tr.virt.feed, list: true, into: feed}
  - extract: {from: tr.virt.tags, list: true, into: tags}
output:
  stock: ${{ vars.stock }}
  stock_by_role: ${{ vars.stock_by_role }}
  headers: ${{ vars.headers }}
  orders: ${{ vars.orders }}
  feed: ${{ vars.feed }}
  tags: ${{ vars.tags }}
`})
	env := h.OK(h.Call("lists", `{}`))
	for _, c := range []struct {
		list      string
		count     int // 0: any
		truncated bool
	}{
		{"stock", 0, true},
		{"stock_by_role", 0, true}, // read element by element (a role locator)
		{"headers", 2, false},
		{"orders", 10, false},
		{"feed", 0, true},
		{"tags", 3, false},
	} {
		l := harness.List(t, env, c.list)
		if l.Truncated != c.truncated || (c.count > 0 && l.Count != c.count) || l.Count == 0 {
			t.Errorf("%s: %d items, truncated %v; want %d, truncated %v: %s", c.list, l.Count, l.Truncated, c.count, c.truncated, env.JSON())
		}
	}
	h.Code(h.Call("pick", `{"nth": 30}`), "target_not_found",
		"target tr.virt.stock_items has 14 matches; nth 30 does not exist: the page draws only the items in view and says it holds 186 more")
	h.OK(h.Call("pick", `{"nth": 3}`))
}
