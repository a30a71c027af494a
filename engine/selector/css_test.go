package selector

import (
	"encoding/json"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// cssCorpus: selectors authors write, valid (modern CSS included) and not.
// valid is what Chromium's querySelectorAll says; TestCSSAgreesWithChromium
// checks every entry against the real browser.
var cssCorpus = []struct {
	sel   string
	valid bool
}{
	{"input[name=email]", true},
	{"#login-form button[type=submit]", true},
	{"#results tbody tr", true},
	{"td.sku", true},
	{"button#place-order", true},
	{"a[href^='https://'], a[href$=\".pdf\"]", true},
	{"[data-testid~=save i]", true},
	{"[lang|=en]", true},
	{"[title*=\"sign in\" i]", true},
	{"[title*=\"sign in\" s]", false}, // Chromium knows only the i flag
	{"form:has(> input[type=email])", true},
	{"li:has(+ li.active)", true},
	{"section:has(h2, h3) > p", true},
	{":is(h1, h2, h3):not(.hidden)", true},
	{":where(nav, footer) a:hover", true},
	{":is(.ok, :frobnicate)", true}, // :is() forgives an invalid entry
	{"li:nth-child(2n+1 of .item)", true},
	{"li:nth-child(odd)", true},
	{"li:nth-last-child(-n + 3)", true},
	{"tr:nth-of-type(2n)", true},
	{"p:nth-child(+5)", true},
	{"input:not([type=hidden], [disabled])", true},
	{"*|a", true},
	{"svg|rect", false}, // undeclared namespace prefix
	{"div > p ~ span + em", true},
	{"input:checked, input:focus-visible, :focus-within", true},
	{"p::before", true},
	{"p:first-line", true},
	{"::-webkit-scrollbar", true},
	{"input::placeholder", true},
	{"button:enabled:hover", true},
	{"a.\\31 23", true},
	{"#\\31 23", true},
	{"dialog[open]", true},
	{":root", true},
	{":scope > li", true},
	{"div/* a comment */ > p", true},
	{"my-element::part(label)", true},
	{":host", true},
	{":lang(en)", true},
	{"  .padded  ", true},
	{"#123", false},
	{".1col", false},
	{"div >", false},
	{"> p", false},
	{"a:contains(Sign in)", false},
	{"button:has-text(\"Save\")", false},
	{"li:eq(2)", false},
	{"input:visible", false},
	{"div >>> span", false},
	{"[name=email", true}, // CSS closes what the end of the selector leaves open
	{"[data-id=1]", false},
	{"[name email]", false},
	{"a:hovr", false},
	{"li:nth-child(2n+)", false},
	{"li:nth-child(foo)", false},
	{"p:not()", false},
	{"div,", false},
	{"div, , p", false},
	{"a[href='x]", true},
	{"a[href='x\n']", false},
	{"{{ css }}", false},
	{"div::befor", false},
	{"form:has()", false},
	{"", false},
	{"a..b", false},
	{"!important", false},
	{":has(:is(a, b))", true},
	{"a:not(:has(b))", true},
	{"li:nth-child(n)", true},
	{"li:nth-child(-n-1)", true},
	{"li:nth-child(2n - 1)", true},
	{"li:nth-child( 3 )", true},
	{"input:user-invalid", true},
	{":popover-open", true},
	{":state(checked)", true},
	{":dir(rtl)", true},
	{"::slotted(span)", true},
	{":host(.dark)", true},
	{":host-context(body.dark)", true},
	{"div:empty, a:any-link, :defined, :modal, :autofill", true},
	{":placeholder-shown, :read-only, :read-write, :required, :optional", true},
	{":focus:not(:focus-visible)", true},
	{"a[href]:not([href=\"\"])", true},
	{"* > *", true},
	{"h1 + *", true},
	{"[aria-label=\"Close dialog\"]", true},
	{"DIV.Foo", true},
	{".café", true},
	{".a\\:b", true},
	{"#a\\.b", true},
	{":is()", true},
	{":where()", true},
	{"& > p", true},
	{"li:nth-child(2n+1 of)", false},
	{":not(p::before)", false},
	{"a:hover::before:hover", false},
	{"::-webkit-scrollbar:horizontal", true},
	{"my-el::part(thumb):hover", true},
	{"a >> b", false},
	{"a:nth-child(2 n)", false},
	{"#", false},
	{".", false},
	{"a[=x]", false},
	{"a[x==y]", false},
	{"p:has(> > a)", false},
	{"::-webkit-input-placeholder", true},
	{":-webkit-autofill", true},
	{"input:indeterminate, option:default, :in-range, :out-of-range", true},
	{":target, :visited, :link, :active", true},
	{"video:playing, video:paused", false}, // not in this Chromium yet
	{":fullscreen, :picture-in-picture", true},
	{"details[open] > summary", true},
	{"[data-state=\"open\"] [role=option][aria-selected=true]", true},
}

func TestCSSChecker(t *testing.T) {
	for _, c := range cssCorpus {
		msg, at, ok := CheckCSS(c.sel)
		if ok != c.valid {
			t.Errorf("CheckCSS(%q) = %v (%s at %d), want valid=%v", c.sel, ok, msg, at, c.valid)
		}
	}
}

// TestCSSAgreesWithChromium asks real Chromium about every selector of the
// corpus, so the checker's verdicts are Chromium's, not our guess.
func TestCSSAgreesWithChromium(t *testing.T) {
	t.Parallel() // its own browser context
	b := testsite.Browser(t)
	p := testsite.NewPage(t, b, "")
	for _, c := range cssCorpus {
		arg, _ := json.Marshal(c.sel)
		res, err := p.Eval(`(s) => { try { document.querySelectorAll(s); return true } catch (e) { return false } }`, json.RawMessage(arg))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Value.Bool(); got != c.valid {
			t.Errorf("Chromium says %q valid=%v, the corpus says %v", c.sel, got, c.valid)
		}
	}
}
