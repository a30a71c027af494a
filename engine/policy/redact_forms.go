package policy

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// The encodings a secret may take on its way out of a browser or a page
// script, each written the way that encoder writes it. forms lists them all;
// TestRedactBrowserEncodings pins the JavaScript ones against Chromium.

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// keepEncoder percent-encodes every byte of a value but alnum and keep,
// space as "+" when plus is set, hex digits upper or lower case.
type keepEncoder struct {
	keep  string
	plus  bool
	lower bool
}

func (e keepEncoder) encode(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c < utf8.RuneSelf && (strings.IndexByte(alnum, c) >= 0 || strings.IndexByte(e.keep, c) >= 0):
			b.WriteByte(c)
		case c == ' ' && e.plus:
			b.WriteByte('+')
		default:
			b.WriteString(pct(c, e.lower))
		}
	}
	return b.String()
}

// setEncoder percent-encodes only C0 controls, DEL, non-ASCII bytes and the
// bytes of set, the way the WHATWG URL parser encodes one component.
type setEncoder struct {
	set   string
	lower bool
}

func (e setEncoder) encode(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(e.set, c) >= 0 {
			b.WriteString(pct(c, e.lower))
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func pct(c byte, lower bool) string {
	if lower {
		return fmt.Sprintf("%%%02x", c)
	}
	return fmt.Sprintf("%%%02X", c)
}

// The percent-encode sets of the WHATWG URL standard (what `new URL()`,
// location and every href in a browser do to each component).
const (
	fragmentSet = " \"<>`"
	querySet    = " \"#<>"
	specialSet  = querySet + "'"
	pathSet     = querySet + "?`{}^"
	userinfoSet = pathSet + "/:;=@[\\]|"
	// Chromium also encodes | in paths and ' in user and password.
	chromePathSet     = pathSet + "|"
	chromeUserinfoSet = userinfoSet + "'"
)

// percentForms are the percent-encodings of v.
func percentForms(v string) []string {
	var out []string
	for _, lower := range []bool{false, true} {
		for _, e := range []keepEncoder{
			{keep: "-_.!~*'()", lower: lower},             // encodeURIComponent
			{keep: "-_.!~*'();/?:@&=+$,#", lower: lower},  // encodeURI
			{keep: "*-._", plus: true, lower: lower},      // URLSearchParams, HTML form submission
			{keep: "*-._", lower: lower},                  // form with %20
			{keep: "-_.~", plus: true, lower: lower},      // Go's url.QueryEscape, PHP urlencode
			{keep: "-_.~", lower: lower},                  // RFC 3986 unreserved only (rawurlencode)
			{keep: "-_.~$&+:=@", lower: lower},            // Go's url.PathEscape
			{keep: "", lower: lower},                      // every byte
			{keep: "-_.!~*'()", plus: true, lower: lower}, // encodeURIComponent, space as +
		} {
			out = append(out, e.encode(v))
		}
		// The URL parser drops tabs and newlines, and a path turns \ into /.
		parsed := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v)
		for _, set := range []string{fragmentSet, querySet, specialSet, pathSet, userinfoSet, chromePathSet, chromeUserinfoSet} {
			e := setEncoder{set: set, lower: lower}
			out = append(out, e.encode(v), e.encode(parsed))
		}
		slashed := strings.ReplaceAll(parsed, "\\", "/")
		out = append(out, setEncoder{set: pathSet, lower: lower}.encode(slashed), setEncoder{set: chromePathSet, lower: lower}.encode(slashed))
		out = append(out, jsEscape(v, lower))
	}
	// Go's own: query, path segment, path, fragment, user and password
	out = append(out, url.QueryEscape(v), url.PathEscape(v), (&url.URL{Path: v}).EscapedPath(),
		(&url.URL{Fragment: v}).EscapedFragment(), url.User(v).String(), url.UserPassword("u", v).String()[2:])
	// encoded twice (a URL carried in another URL's query)
	uc := keepEncoder{keep: "-_.!~*'()"}
	out = append(out, uc.encode(uc.encode(v)), url.QueryEscape(url.QueryEscape(v)))
	return out
}

// jsEscape is JavaScript's legacy escape(): alnum and @*_+-./ stay, other
// Latin-1 characters become %XX, the rest %uXXXX.
func jsEscape(v string, lower bool) string {
	var b strings.Builder
	for _, u := range utf16Units(v) {
		switch {
		case u < 0x80 && strings.IndexByte(alnum+"@*_+-./", byte(u)) >= 0:
			b.WriteByte(byte(u))
		case u < 0x100:
			b.WriteString(pct(byte(u), lower))
		case lower:
			fmt.Fprintf(&b, "%%u%04x", u)
		default:
			fmt.Fprintf(&b, "%%u%04X", u)
		}
	}
	return b.String()
}

// utf16Units are v's UTF-16 code units, as JavaScript sees a string.
func utf16Units(v string) []uint16 {
	var out []uint16
	for _, r := range v {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// htmlForms are the HTML-escaped forms of v: the minimal escapes serializers
// use (a browser's outerHTML, Go's html.EscapeString, template engines),
// every named character reference, and every non-alnum character as a
// decimal or hexadecimal reference, and every character (letters too) as one.
func htmlForms(v string) []string {
	var out []string
	for _, e := range htmlEscapers {
		out = append(out, e.Replace(v))
	}
	for _, q := range []string{"&quot;", "&#34;", "&#x22;"} {
		for _, a := range []string{"&#39;", "&#x27;", "&apos;"} {
			out = append(out, strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, q, "'", a).Replace(v))
		}
	}
	var named, dec, hexl, hexu, alld, allxl, allxu strings.Builder
	for _, r := range v {
		fmt.Fprintf(&alld, "&#%d;", r)
		fmt.Fprintf(&allxl, "&#x%x;", r)
		fmt.Fprintf(&allxu, "&#x%X;", r)
		if r < utf8.RuneSelf && strings.IndexByte(alnum, byte(r)) >= 0 {
			named.WriteRune(r)
			dec.WriteRune(r)
			hexl.WriteRune(r)
			hexu.WriteRune(r)
			continue
		}
		if n, ok := namedRefs[r]; ok {
			named.WriteString(n)
		} else {
			named.WriteRune(r)
		}
		fmt.Fprintf(&dec, "&#%d;", r)
		fmt.Fprintf(&hexl, "&#x%x;", r)
		fmt.Fprintf(&hexu, "&#x%X;", r)
	}
	return append(out, named.String(), dec.String(), hexl.String(), hexu.String(), alld.String(), allxl.String(), allxu.String())
}

// namedRefs are HTML's named character references for ASCII punctuation
// (and no-break space).
var namedRefs = map[rune]string{
	'!': "&excl;", '"': "&quot;", '#': "&num;", '$': "&dollar;", '%': "&percnt;", '&': "&amp;",
	'\'': "&apos;", '(': "&lpar;", ')': "&rpar;", '*': "&ast;", '+': "&plus;", ',': "&comma;",
	'.': "&period;", '/': "&sol;", ':': "&colon;", ';': "&semi;", '<': "&lt;", '=': "&equals;",
	'>': "&gt;", '?': "&quest;", '@': "&commat;", '[': "&lsqb;", '\\': "&bsol;", ']': "&rsqb;",
	'^': "&Hat;", '_': "&lowbar;", '`': "&grave;", '{': "&lcub;", '|': "&verbar;", '}': "&rcub;",
	'\t': "&Tab;", '\n': "&NewLine;", '\u00a0': "&nbsp;",
}

// stringForms are v as it appears inside a JSON or JavaScript string
// literal: JSON.stringify, Go's encoding/json (with and without HTML
// escaping), "\/", ASCII-only JSON (\uXXXX), a single-quoted literal, every
// non-alnum character as \xXX or \uXXXX, and JSON inside JSON.
func stringForms(v string) []string {
	j, _ := json.Marshal(v) // Go's form: <, >, & as \u003c...
	jg := string(j[1 : len(j)-1])
	jp := jsonPlain(v)
	// JSON of the JSON-escaped value (a JSON document kept as a string)
	out := []string{jg, jp, strings.ReplaceAll(jp, "/", `\/`), jsonPlain(jp)}
	for _, lower := range []bool{true, false} {
		h4, h2 := "\\u%04X", "\\x%02X"
		if lower {
			h4, h2 = "\\u%04x", "\\x%02x"
		}
		var ascii, xs, us strings.Builder
		for _, r := range jp {
			if r >= utf8.RuneSelf {
				for _, u := range utf16Units(string(r)) {
					fmt.Fprintf(&ascii, h4, u)
				}
				continue
			}
			ascii.WriteRune(r)
		}
		for _, u := range utf16Units(v) {
			switch {
			case u < 0x80 && strings.IndexByte(alnum, byte(u)) >= 0:
				xs.WriteByte(byte(u))
				us.WriteByte(byte(u))
			case u < 0x100:
				fmt.Fprintf(&xs, h2, u)
				fmt.Fprintf(&us, h4, u)
			default:
				fmt.Fprintf(&xs, h4, u)
				fmt.Fprintf(&us, h4, u)
			}
		}
		out = append(out, ascii.String(), xs.String(), us.String())
	}
	// a single-quoted JavaScript literal: \\ and \' (and JSON's control escapes)
	sq := strings.NewReplacer(`\"`, `"`, `'`, `\'`).Replace(jp)
	return append(out, sq)
}

// jsonPlain is v escaped as JSON.stringify does, without quotes.
func jsonPlain(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	jp := strings.TrimSuffix(b.String(), "\n")
	return jp[1 : len(jp)-1]
}

// minBase64Core is the shortest stable run of base64 that is matched for a
// secret at an unknown offset inside a longer encoded value.
const minBase64Core = 8

// base64Forms are v in standard and URL-safe base64, padded and not, and
// the part of the encoding that does not depend on what comes before v when
// v starts one or two bytes into a 3-byte group ("user:" + v in a Basic
// authorization header, say).
func base64Forms(v string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(v)))
		for off := 1; off <= 2; off++ {
			// Encode v after off filler bytes; the first group mixes the
			// filler in, the last may mix in what follows: keep the middle.
			s := enc.EncodeToString(append(make([]byte, off), v...))
			n := len(v) + off
			full := n / 3 * 4 // characters of complete groups
			if full <= 4 {
				continue
			}
			if core := s[4:full]; len(core) >= minBase64Core {
				out = append(out, core)
			}
		}
		// v at offset 0 followed by more bytes: its complete groups stay.
		if full := len(v) / 3 * 4; full >= minBase64Core {
			out = append(out, enc.EncodeToString([]byte(v))[:full])
		}
	}
	return out
}

// forms are the encodings of v that are caught, and the usual layerings:
// a percent-encoded value the URL parser encodes again (an href written
// with encodeURIComponent whose ' the parser turns into %27), and a
// percent- or string-escaped value inside HTML (page.html, &amp;).
func forms(v string) []string {
	pcts := percentForms(v)
	strs := stringForms(v)
	out := append([]string{v}, pcts...)
	for _, p := range pcts {
		for _, set := range []string{fragmentSet, querySet, specialSet, chromePathSet, chromeUserinfoSet} {
			out = append(out, setEncoder{set: set}.encode(p))
		}
	}
	out = append(out, strs...)
	for _, f := range append(append([]string{}, pcts...), strs...) {
		if strings.ContainsAny(f, "&<>\"'\u00a0") {
			for _, e := range htmlEscapers {
				out = append(out, e.Replace(f))
			}
		}
	}
	out = append(out, htmlForms(v)...)
	out = append(out, legacyForms(v)...)
	if len(v) >= 3 {
		b64 := base64Forms(v)
		out = append(out, b64...)
		// base64 in a URL: its + / = percent-encoded, upper and lower hex
		for _, b := range b64 {
			if strings.ContainsAny(b, "+/=") {
				for _, lower := range []bool{false, true} {
					out = append(out, keepEncoder{keep: "-_.!~*'()", lower: lower}.encode(b))
				}
			}
		}
		out = append(out, hexForms(v)...)
	}
	return out
}

// hexForms are v's UTF-8 bytes in hex, lower and upper case (a page that
// shows a value as hex in its title or URL, a token derived that way).
func hexForms(v string) []string {
	h := hex.EncodeToString([]byte(v))
	return []string{h, strings.ToUpper(h)}
}

// legacyForms are v percent-encoded from the bytes of a legacy charset: a
// form in a page without a charset submits in windows-1252 (ü is %FC), and
// a server may speak ISO-8859-1. A character the charset cannot hold is sent
// as an HTML numeric reference (€ in ISO-8859-1 is &#8364;), as browsers
// do. Only a value with a character beyond ASCII has such forms.
func legacyForms(v string) []string {
	var out []string
	for _, cs := range []func(rune) (byte, bool){windows1252, latin1} {
		b, ok := legacyBytes(v, cs)
		if !ok {
			continue
		}
		for _, lower := range []bool{false, true} {
			for _, e := range []keepEncoder{
				{keep: "*-._", plus: true, lower: lower},     // HTML form submission
				{keep: "*-._", lower: lower},                 // form with %20
				{keep: "-_.!~*'()", lower: lower},            // encodeURIComponent-like
				{keep: "-_.~", plus: true, lower: lower},     // urlencode
				{keep: "-_.~", lower: lower},                 // rawurlencode
				{keep: "", lower: lower},                     // every byte
				{keep: "-_.!~*'();/?:@&=+$,#", lower: lower}, // encodeURI-like
			} {
				out = append(out, e.encode(b))
			}
			for _, set := range []string{querySet, specialSet, pathSet, fragmentSet} {
				out = append(out, setEncoder{set: set, lower: lower}.encode(b))
			}
		}
	}
	return out
}

// legacyBytes is v in a single-byte charset (characters it lacks as &#N;),
// and false when v is plain ASCII (the UTF-8 forms already cover it).
func legacyBytes(v string, cs func(rune) (byte, bool)) (string, bool) {
	var b strings.Builder
	wide := false
	for _, r := range v {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		wide = true
		if c, ok := cs(r); ok {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "&#%d;", r)
		}
	}
	return b.String(), wide
}

// latin1 is ISO-8859-1: U+0080 to U+00FF are their own byte.
func latin1(r rune) (byte, bool) {
	if r < 0x100 {
		return byte(r), true
	}
	return 0, false
}

// cp1252High are the characters windows-1252 puts at 0x80 to 0x9F (0 where
// it has none); 0xA0 to 0xFF are ISO-8859-1's.
var cp1252High = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// windows1252 is the WHATWG windows-1252 encoder (what "no charset",
// "latin1" and "iso-8859-1" mean to a browser); its five unassigned bytes
// 0x81, 0x8D, 0x8F, 0x90, 0x9D stand for the C1 controls of the same value.
func windows1252(r rune) (byte, bool) {
	if r >= 0xA0 && r < 0x100 {
		return byte(r), true
	}
	for i, c := range cp1252High {
		if c == r && c != 0 || c == 0 && r == rune(0x80+i) {
			return byte(0x80 + i), true
		}
	}
	return 0, false
}
