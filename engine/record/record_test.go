package record_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/testrun"
)

const lumenPassword = "lamp-Keeper-2048"

// TestRecordSearch: a person signs in (the password is a configured
// secret), searches, marks the result rows, three of their fields and the
// next-page control, turns one page and presses Finish. The workflow
// validates unedited, uses the secret by name, makes the query a bounded
// parameter and reads the rows over max_pages pages; its replay in a fresh
// environment returns the ten rows the person saw.
func TestRecordSearch(t *testing.T) {
	t.Parallel() // its own site, project and browser context
	p := newProject(t, map[string]string{"lumen_password": lumenPassword})
	start := time.Now()
	s := p.start("signin.html")
	h := s.hand
	h.click("#email")
	h.typeText("ann@example.com")
	h.click("#password")
	h.typeText(lumenPassword)
	h.clickJS(`[...document.querySelectorAll("button")].find((b) => b.textContent === "Sign in")`)
	h.wait(`location.pathname.endsWith("/search.html") && !!document.querySelector("#q")`)
	h.click("#q")
	h.typeText("lamp")
	h.enter()
	h.wait(`document.querySelectorAll("#results tbody tr").length === 5`)
	h.toolbar("rows")
	// A click that marks nothing says why, and the mode stays.
	h.click("h1")
	if s := h.status(); !strings.Contains(s, "not in a repeating row") {
		t.Errorf("the toolbar after a click on the heading in Rows mode: %q, want it to say why nothing was marked", s)
	}
	h.click("#results tbody tr:nth-child(2) td.name")
	h.click("#results tbody tr:nth-child(2) td.sku")
	h.click("#results tbody tr:nth-child(2) td.name")
	h.click("#results tbody tr:nth-child(2) td.price")
	// What is marked is outlined: the first row, its fields, and the Next
	// button the recorder found by itself.
	h.wait(`document.querySelector("#results tbody tr").style.outline.includes("dashed") && document.querySelector("#results tbody tr td.price").style.outline.includes("solid") && document.querySelector("#next").style.outline.includes("dashed")`)
	if out := os.Getenv("RECORD_SCREENSHOT"); out != "" {
		// The picture of the recorder in README.md: the toolbar in the
		// middle of marking a row's fields.
		png, err := h.p.Screenshot(false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.toolbar("rows") // rows done
	h.toolbar("next")
	h.click("#next")
	h.click("#next") // the page turns: the person sees page 2
	h.wait(`document.querySelector("#page").textContent === "Page 2 of 3"`)
	acted := time.Since(start)
	d, env, diffs := s.finish("search_lamps")
	total := time.Since(start)
	t.Logf("record → validated, replayed tool: %s (the person's part %s, the rest %s)", total.Round(time.Millisecond), acted.Round(time.Millisecond), (total - acted).Round(time.Millisecond))
	t.Logf("workflow:\n%s", d.Workflow)
	if len(diffs) > 0 {
		t.Fatalf("the replay differs from what was seen: %v\nenvelope %+v", diffs, env)
	}
	for _, want := range []string{
		"${{ secrets.lumen_password }}", "${{ config.lumen_base }}/signin.html", "paginate:", "max_pages: ${{ params.max_pages }}",
		"risk: write", "max_length: 80", "target: lumen.email,",
	} {
		if !strings.Contains(d.Workflow, want) {
			t.Errorf("workflow lacks %q", want)
		}
	}
	if strings.Contains(d.Workflow, "sleep") {
		t.Errorf("a recorded workflow waits for conditions, never sleeps")
	}
	var data struct {
		Rows struct {
			Count int
			Items []map[string]string
		}
	}
	b, _ := json.Marshal(env.Data)
	_ = json.Unmarshal(b, &data)
	if data.Rows.Count != 10 || data.Rows.Items[5]["name"] != "Table lamp" {
		t.Errorf("replay rows: %s", b)
	}
	if d.Args["search_products"] != "lamp" || d.Args["max_pages"] != 2 || d.Args["email"] != "ann@example.com" {
		t.Errorf("args %v", d.Args)
	}
	for _, f := range []string{p.cfg.Selectors, p.cfg.Workflows + "/search_lamps.yaml", p.dir + "/tests/search_lamps.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), lumenPassword) {
			t.Errorf("%s holds the password", f)
		}
	}
	if _, ps := testrun.Decode("tests/search_lamps.yaml", []byte(d.Test)); len(ps) > 0 {
		t.Errorf("the test file does not decode: %v\n%s", ps.Err(), d.Test)
	}
	sel, _ := os.ReadFile(p.cfg.Selectors)
	if !strings.HasPrefix(string(sel), mapHeader) {
		t.Errorf("the selector map lost its comments:\n%s", sel)
	}
	t.Logf("selectors:\n%s\ntest:\n%s", sel, d.Test)
}
