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

	"github.com/toolwright/toolwright/engine/browser/provider/webdriver"
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
// contract (providertest, run by engine/browser/provider/all's TestContract: pages,
// allowed hosts and popups, a session per environment, reattach) does not
// look at: the WebDriver requests. Each environment asks for one session,
// kept alive while the environment is open and deleted once when it closes
// (and at shutdown); a session that ends behind the manager's back makes
// its environment unavailable.
func TestWebDriverProvider(t *testing.T) {
	driver := newWDLog(t, testsite.ChromeDriver(t))
	old := webdriver.KeepAlive
	webdriver.KeepAlive = 100 * time.Millisecond
	t.Cleanup(func() { webdriver.KeepAlive = old })
	s := newSite(t, html(`<p id="p">hello from the site</p>`))
	m := newTestManager(t, Options{Provider: webdriver.Name, Endpoints: []string{driver.URL}})

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
