package browser

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"
)

// newWDLog sits in front of a real chromedriver and records the WebDriver
// requests that reach it ("POST /session", "GET /session/ID/timeouts", ...).
func newWDLog(t *testing.T, driver string) *site {
	u, _ := url.Parse(driver)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // keep-alives cut off by a closing connection
	return newSite(t, rp)
}

// sessionPath is "/session/ID" of env's session URL.
func sessionPath(t *testing.T, env *Env) string {
	t.Helper()
	u, err := url.Parse(env.session)
	if err != nil || !strings.HasPrefix(u.Path, "/session/") {
		t.Fatalf("environment session %q is not a WebDriver session URL", env.session)
	}
	return u.Path
}

// devtoolsAnswers says whether the DevTools endpoint of env's browser still
// answers /json/version.
func devtoolsAnswers(env *Env) bool {
	u, err := url.Parse(env.Endpoint())
	if err != nil {
		return false
	}
	c := http.Client{Timeout: 2 * time.Second}
	res, err := c.Get("http://" + u.Host + "/json/version")
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// browser.provider webdriver on Debian's chromedriver, what the provider
// contract (providertest, run by engine/app's TestProviderContract: pages,
// allowed hosts and popups, a session per environment, reattach) does not
// look at: the WebDriver requests. Each environment asks for one session,
// kept alive while the environment is open and deleted once when it closes
// (and at shutdown); a session that ends behind the manager's back makes
// its environment unavailable.
func TestWebDriverProvider(t *testing.T) {
	driver := newWDLog(t, testsite.ChromeDriver(t))
	old := wdKeepAlive
	wdKeepAlive = 100 * time.Millisecond
	t.Cleanup(func() { wdKeepAlive = old })
	s := newSite(t, html(`<p id="p">hello from the site</p>`))
	m := newTestManager(t, Options{Provider: ProviderWebDriver, Endpoints: []string{driver.URL}})

	a := mustOpen(t, m, "", "a")
	if !strings.HasPrefix(a.session, driver.URL+"/session/") {
		t.Fatalf("environment session %q, want one at %s", a.session, driver.URL)
	}
	mustNavigate(t, a, s.URL+"/page")
	m.Release(a)
	b := mustOpen(t, m, "", "b")
	if n := driver.count("POST /session"); n != 2 {
		t.Fatalf("%d sessions asked for, want 2", n)
	}

	// Kept alive while open.
	pa := sessionPath(t, a)
	eventually(t, 30*time.Second, "keep-alive requests for a's session", func() bool { return driver.count("GET "+pa+"/timeouts") >= 2 })

	// close_env deletes the session, which ends its browser; b goes on.
	if err := m.Close(testCtx(t, time.Minute), a.ID); err != nil {
		t.Fatal(err)
	}
	if n := driver.count("DELETE " + pa); n != 1 {
		t.Fatalf("a's session deleted %d times, want once", n)
	}
	eventually(t, 30*time.Second, "a's browser to end", func() bool { return !devtoolsAnswers(a) })
	wantCode(t, a.Err(), errs.EnvNotFound)
	mustNavigate(t, b, s.URL+"/again")

	// A session ended behind the manager's back: b's environment is unavailable.
	m.Release(b)
	pb := sessionPath(t, b)
	req, _ := http.NewRequest(http.MethodDelete, strings.TrimSuffix(driver.URL, "/")+pb, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	eventually(t, 30*time.Second, "b to notice its session ended", func() bool { return b.Err() != nil })
	wantCode(t, b.Err(), errs.EnvUnavailable)
	_, err = m.Acquire(testCtx(t, 5*time.Second), b.ID)
	wantCode(t, err, errs.EnvNotFound)

	// Shutdown deletes the sessions still open.
	c := mustOpen(t, m, "", "c")
	m.Release(c)
	pc := sessionPath(t, c)
	sctx, scancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer scancel()
	if err := m.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if n := driver.count("DELETE " + pc); n != 1 {
		t.Fatalf("c's session deleted %d times at shutdown, want once", n)
	}
	eventually(t, 30*time.Second, "c's browser to end", func() bool { return !devtoolsAnswers(c) })
}

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
