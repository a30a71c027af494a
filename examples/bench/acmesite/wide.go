package main

import (
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
)

// WideFields are the 8 columns of the wide page, in order; each cell has
// the class of its field (td.sku, td.name, ...).
var WideFields = []string{"sku", "name", "brand", "category", "price", "stock", "rating", "updated"}

// wideHandler serves /bench/wide?rows=N (1..1000, default 200): a plain
// table of N products × 8 fields with fixed content, for the extract-cost
// and model-bytes benchmarks. It is a benchmark page, not part of the demo.
func wideHandler(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("rows"))
	if err != nil || n < 1 {
		n = 200
	}
	n = min(n, 1000)
	brands := []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"}
	cats := []string{"Tools", "Fasteners", "Safety", "Electrical", "Plumbing", "Garden"}
	nouns := []string{"anvil", "hammer", "bolt set", "drill", "ladder", "rope", "glove pair", "valve"}
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wide catalog</title></head><body><main><h1>Wide catalog</h1>`)
	fmt.Fprintf(&b, `<p id="wide-count">%d products</p><table id="wide"><thead><tr>`, n)
	for _, f := range WideFields {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(f))
	}
	b.WriteString("</tr></thead><tbody>\n")
	for i := 1; i <= n; i++ {
		vals := []string{
			fmt.Sprintf("WID-%04d", i),
			fmt.Sprintf("%s %s %d", brands[i%len(brands)], nouns[i%len(nouns)], i),
			brands[i%len(brands)],
			cats[i%len(cats)],
			fmt.Sprintf("$%d.%02d", 5+(i*37)%400, (i*13)%100),
			strconv.Itoa((i * 7) % 120),
			fmt.Sprintf("%d.%d", 1+i%5, (i*3)%10),
			fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28),
		}
		b.WriteString("<tr>")
		for j, v := range vals {
			fmt.Fprintf(&b, `<td class="%s">%s</td>`, WideFields[j], html.EscapeString(v))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table></main></body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(b.String()))
}
