package policy

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var testSecrets = map[string]string{
	"acme_password": "hunter2&<x>/y z",
	"acme_user":     "bob@example.com",
	"token":         "tok_123456",
	"token_long":    "tok_1234567890",
	"empty":         "",
}

func TestRedact(t *testing.T) {
	r := NewRedactor(testSecrets)
	pw := testSecrets["acme_password"]
	jsonGo, _ := json.Marshal(pw)
	for _, c := range []struct{ name, in, want string }{
		{"none", "nothing to see", "nothing to see"},
		{"empty input", "", ""},
		{"raw", "user bob@example.com signed in", "user [redacted:acme_user] signed in"},
		{"twice", "tok_123456 and tok_123456", "[redacted:token] and [redacted:token]"},
		{"longest first", "key tok_1234567890!", "key [redacted:token_long]!"},
		{"prefix of longer", "key tok_1234567", "key [redacted:token]7"},
		{"query escaped", "https://x/?p=" + url.QueryEscape(pw), "https://x/?p=[redacted:acme_password]"},
		{"path escaped", "https://x/" + url.PathEscape(pw), "https://x/[redacted:acme_password]"},
		{"query escaped %20", "p=" + strings.ReplaceAll(url.QueryEscape(pw), "+", "%20"), "p=[redacted:acme_password]"},
		{"json go", `{"p":` + string(jsonGo) + `}`, `{"p":"[redacted:acme_password]"}`},
		{"json plain", `{"p":"hunter2&<x>/y z"}`, `{"p":"[redacted:acme_password]"}`},
		{"json slash", `{"p":"hunter2&<x>\/y z"}`, `{"p":"[redacted:acme_password]"}`},
		{"user url", "mailto:" + url.QueryEscape("bob@example.com"), "mailto:[redacted:acme_user]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := r.Redact(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := string(r.RedactBytes([]byte(c.in))); got != c.want {
				t.Errorf("RedactBytes(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	if got := r.Names(); !cmp.Equal(got, []string{"acme_password", "acme_user", "token", "token_long"}) {
		t.Errorf("names %v", got)
	}
	var nilR *Redactor
	if nilR.Redact("tok_123456") != "tok_123456" {
		t.Error("nil redactor changed text")
	}
	if NewRedactor(nil).Redact("x") != "x" {
		t.Error("empty redactor changed text")
	}
}

func TestRedactMarkerSafe(t *testing.T) {
	// values that could reappear around a marker get a second pass
	r := NewRedactor(map[string]string{"a": "zzzz", "b": "]tail"})
	if got := r.Redact("zzzztail"); strings.Contains(got, "]tail") {
		t.Errorf("got %q", got)
	}
}

type inner struct {
	Note string
	At   time.Time
	n    int
}

type outer struct {
	Name  string
	Tags  []string
	In    *inner
	Extra map[string]any
	Err   error
}

func TestRedactAny(t *testing.T) {
	r := NewRedactor(testSecrets)
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	in := map[string]any{
		"user":    "bob@example.com",
		"n":       3.5,
		"ok":      true,
		"nil":     nil,
		"list":    []any{"tok_123456", 1, map[string]any{"tok_123456": "k"}},
		"strs":    []string{"a", "tok_123456"},
		"raw":     json.RawMessage(`{"t":"tok_123456"}`),
		"err":     errors.New("login as bob@example.com failed"),
		"struct":  outer{Name: "tok_123456", Tags: []string{"bob@example.com"}, In: &inner{Note: "tok_123456", At: at, n: 7}, Err: errors.New("tok_123456")},
		"pointer": &inner{Note: "x tok_123456", At: at},
	}
	orig := in["list"].([]any)[0]
	got := r.RedactAny(in).(map[string]any)
	want := map[string]any{
		"user":    "[redacted:acme_user]",
		"n":       3.5,
		"ok":      true,
		"nil":     nil,
		"list":    []any{"[redacted:token]", 1, map[string]any{"[redacted:token]": "k"}},
		"strs":    []string{"a", "[redacted:token]"},
		"raw":     json.RawMessage(`{"t":"[redacted:token]"}`),
		"err":     "login as [redacted:acme_user] failed",
		"struct":  outer{Name: "[redacted:token]", Tags: []string{"[redacted:acme_user]"}, In: &inner{Note: "[redacted:token]", At: at, n: 7}},
		"pointer": &inner{Note: "x [redacted:token]", At: at},
	}
	gotErr := got["struct"].(outer).Err
	s := got["struct"].(outer)
	s.Err = nil
	got["struct"] = s
	if d := cmp.Diff(want, got, cmp.AllowUnexported(inner{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if gotErr == nil || strings.Contains(gotErr.Error(), "tok_123456") {
		t.Errorf("error field: %v", gotErr)
	}
	if in["list"].([]any)[0] != orig {
		t.Error("RedactAny changed its input")
	}
}

func TestRedactingHandler(t *testing.T) {
	r := NewRedactor(testSecrets)
	var buf bytes.Buffer
	log := slog.New(RedactingHandler(slog.NewJSONHandler(&buf, nil), r)).With("user", "bob@example.com")
	log.WithGroup("g").Info("sign in with tok_123456",
		"err", errors.New("bad password hunter2&<x>/y z"),
		slog.Group("req", "url", "https://x/?t=tok_123456", "n", 3),
		"args", map[string]any{"t": "tok_123456"},
		"d", time.Second)
	out := buf.String()
	for _, v := range testSecrets {
		if v != "" && strings.Contains(out, v) {
			t.Fatalf("log leaks %q: %s", v, out)
		}
	}
	for _, want := range []string{`"msg":"sign in with [redacted:token]"`, `"user":"[redacted:acme_user]"`, `"url":"https://x/?t=[redacted:token]"`, `"n":3`, `"d":1000000000`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s: %s", want, out)
		}
	}
}

func TestRedactConcurrent(t *testing.T) {
	r := NewRedactor(testSecrets)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if got := r.Redact("a tok_123456 b"); got != "a [redacted:token] b" {
					t.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzRedact(f *testing.F) {
	f.Add("hunter2", "tok_1234", "prefix ", " suffix", uint8(0))
	f.Add("p@ss w/rd&", "abcd", `{"x":"`, `"}`, uint8(1))
	f.Add("aaaa", "aaab", "aaa", "b", uint8(2))
	f.Fuzz(func(t *testing.T, s1, s2, pre, post string, mode uint8) {
		secrets := map[string]string{"s1": s1, "s2": s2}
		r := NewRedactor(secrets)
		var in string
		switch mode % 4 {
		case 0:
			in = pre + s1 + post
		case 1:
			in = pre + s1 + s2 + post + s1
		case 2:
			in = pre + url.QueryEscape(s1) + post
		case 3:
			b, _ := json.Marshal(pre + s1 + post)
			in = string(b)
		}
		out := r.Redact(in) // must not panic
		if !bytes.Equal(r.RedactBytes([]byte(in)), []byte(out)) {
			t.Fatalf("RedactBytes differs from Redact")
		}
		for _, v := range []string{s1, s2} {
			if len(v) < 4 || !strings.Contains(in, v) || !strings.Contains(out, v) {
				continue
			}
			// A value that is part of a marker cannot be hidden by markers.
			if strings.Contains("[redacted:s1][redacted:s2]", v) {
				continue
			}
			t.Fatalf("secret %q survives:\nin:  %q\nout: %q", v, in, out)
		}
	})
}

func BenchmarkRedact(b *testing.B) {
	secrets := map[string]string{}
	for i := range 20 {
		secrets["secret_"+string(rune('a'+i))] = strings.Repeat(string(rune('A'+i)), 8) + "-pw-" + string(rune('a'+i))
	}
	r := NewRedactor(secrets)
	page := strings.Repeat("<tr><td class=sku>B-12</td><td>Hex bolt, zinc, 10 mm</td><td>0.12</td></tr>\n", 300)
	withSecret := page + secrets["secret_c"]
	b.Run("4KB-clean", func(b *testing.B) {
		s := page[:4096]
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			r.Redact(s)
		}
	})
	b.Run("16KB-one-secret", func(b *testing.B) {
		s := withSecret[len(withSecret)-16384:]
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			r.Redact(s)
		}
	})
	b.Run("short", func(b *testing.B) {
		for b.Loop() {
			r.Redact("fill acme.login.password")
		}
	})
}

// TestRedactLegacyCharsetsAndHex: the forms issue 22 (1) found leaking. A
// form in a page without a charset submits in windows-1252 (ü as %FC, € as
// %80, space as +), ISO-8859-1 sends € as &#8364;, a page shows a value in
// hex (lower or upper), and base64 reaches a URL with + / = percent-encoded.
// Before: each passed through whole.
func TestRedactLegacyCharsetsAndHex(t *testing.T) {
	const secret = "Grüße€ Qz7/x+y"
	r := NewRedactor(map[string]string{"pw": secret})
	b64 := base64.StdEncoding.EncodeToString([]byte(secret))
	for _, c := range []struct{ name, in string }{
		{"windows-1252 form", "/r?q=Gr%FC%DFe%80+Qz7%2Fx%2By&go=1"},
		{"windows-1252 lower", "/r?q=Gr%fc%dfe%80%20Qz7%2fx%2by"},
		{"iso-8859-1 form", "/r?q=Gr%FC%DFe%26%238364%3B+Qz7%2Fx%2By"},
		{"hex lower", "title " + hex.EncodeToString([]byte(secret)) + " end"},
		{"hex upper", "/h?v=" + strings.ToUpper(hex.EncodeToString([]byte(secret)))},
		{"base64 in a query", "/b?v=" + url.QueryEscape(b64)},
		{"base64 encodeURIComponent lower", "/b?v=" + strings.NewReplacer("%2B", "%2b", "%2F", "%2f", "%3D", "%3d").Replace(url.QueryEscape(b64))},
		{"base64url in a query", "/b?v=" + base64.RawURLEncoding.EncodeToString([]byte(secret))},
	} {
		got := r.Redact(c.in)
		if !strings.Contains(got, "[redacted:pw]") || strings.Contains(got, "Qz7") || strings.Contains(got, "%FC") || strings.Contains(strings.ToLower(got), "%fc") {
			t.Errorf("%s: Redact(%q) = %q", c.name, c.in, got)
		}
	}
	// a plain-ASCII secret has no legacy forms beyond its UTF-8 ones
	for _, f := range legacyForms("plain-ascii") {
		t.Errorf("an ASCII value has a legacy form %q", f)
	}
	if b, ok := windows1252('€'); !ok || b != 0x80 {
		t.Errorf("windows-1252 of €: %x %v", b, ok)
	}
	if _, ok := latin1('€'); ok {
		t.Error("ISO-8859-1 has no €")
	}
}

// TestRedactCut: the start of a secret (4 characters or more, in any of
// its forms) that a cut left at the end of a text is redacted; a shorter
// one, and a secret's start elsewhere in the text, are not.
func TestRedactCut(t *testing.T) {
	r := NewRedactor(map[string]string{"tok": "Lq9-wZr4-secret/part"})
	for in, want := range map[string]string{
		`value="Lq9-wZr4-sec`:      `value="[redacted:tok]`,
		`value="Lq9-wZr4-secret\/`: `value="[redacted:tok]`,
		`value="Lq9`:               `value="Lq9`,
		`Lq9-wZr4 then more`:       `Lq9-wZr4 then more`,
		`a Lq9-wZr4-secret/part b`: `a [redacted:tok] b`,
	} {
		if got := r.RedactCut(in); got != want {
			t.Errorf("RedactCut(%q) = %q, want %q", in, got, want)
		}
	}
}
