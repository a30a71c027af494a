package webdriver

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/errs"
)

// The CDP address of a session: Selenium Grid 4's se:cdp (reached through
// the grid's address as we reached it), else chromedriver's
// debuggerAddress (a localhost address of the driver's machine); a
// refusal keeps the W3C error code.
func TestParseNewSession(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, ep, body, id, cdp, code string
		status                        int
	}{
		{name: "grid se:cdp", ep: "http://grid.internal:4444", status: 200,
			body: `{"value":{"sessionId":"s1","capabilities":{"browserName":"chrome","se:cdp":"ws://172.18.0.5:4444/session/s1/se/cdp","se:cdpVersion":"120","goog:chromeOptions":{"debuggerAddress":"localhost:9222"}}}}`,
			id:   "s1", cdp: "ws://grid.internal:4444/session/s1/se/cdp"},
		{name: "chromedriver here", ep: "http://127.0.0.1:9515", status: 200,
			body: `{"value":{"sessionId":"s2","capabilities":{"goog:chromeOptions":{"debuggerAddress":"localhost:46455"}}}}`,
			id:   "s2", cdp: "http://localhost:46455"},
		{name: "chromedriver elsewhere", ep: "http://driver-3:9515/", status: 200,
			body: `{"value":{"sessionId":"s3","capabilities":{"goog:chromeOptions":{"debuggerAddress":"localhost:40001"}}}}`,
			id:   "s3", cdp: "http://driver-3:40001"},
		{name: "no cdp", ep: "http://127.0.0.1:4444", status: 200,
			body: `{"value":{"sessionId":"s4","capabilities":{"browserName":"firefox"}}}`, id: "s4", code: errs.EnvUnavailable},
		{name: "refused", ep: "http://127.0.0.1:4444", status: 500,
			body: `{"value":{"error":"session not created","message":"Could not start a new session. No matching node"}}`, code: errs.EnvUnavailable},
		{name: "not json", ep: "http://127.0.0.1:4444", status: 502, body: `<html>bad gateway</html>`, code: errs.EnvUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, cdp, err := parseNewSession(c.ep, c.status, []byte(c.body))
			if id != c.id || cdp != c.cdp || errs.CodeOf(err) != c.code && !(c.code == "" && err == nil) {
				t.Fatalf("got %q %q %v, want %q %q %s", id, cdp, err, c.id, c.cdp, c.code)
			}
			if c.name == "refused" && !strings.Contains(err.Error(), "session not created") {
				t.Errorf("the W3C error code is lost: %v", err)
			}
		})
	}
}
