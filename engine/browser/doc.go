// Package browser holds toolwright's environments: isolated browser
// contexts, each with one page, opened in browsers that come from a
// Provider.
//
// # Providers
//
// Providers are packages of their own under engine/browser/provider, each
// registering itself from init with its name, the settings it reads under
// browser.NAME and its constructor (provider.Register, like database/sql
// drivers); engine/browser/provider/all imports the built-in ones and
// browser.provider picks one. What a provider can do beyond
// provider.Provider it declares through small optional interfaces the
// Manager type-asserts: Attacher (its browsers outlive this process, so
// environments are shared through the Registry), SessionKeeper (one
// browser session per environment, kept alive while it is open and ended
// when it closes; the session lives in the provider, which the Manager
// asks for it) and Starter (a browser of its own to start ahead of the
// first Open). Nothing above package provider tells providers apart by
// name (TestNoProviderNamesAboveTheSeam); one contract suite runs over the
// registry (internal/providertest, run by provider/all's TestContract).
//
// The local provider launches the system Chromium (browser.local.bin, or
// what package chromium finds: the headless shell when it is installed,
// else launcher.LookPath) on the first Open, headless, with a fresh profile
// that is removed when the browser closes, and again after a crash. It
// never downloads a browser. It is a Starter. The cdp provider attaches to
// remote browsers (a grid, a Kubernetes pool, Chrome started with
// --remote-debugging-port, a profile manager) by ws:// DevTools URLs or
// http://host:port (resolved through /json/version), one connection per
// endpoint, handing endpoints to new environments in turn; a dial is
// bounded and runs outside the provider's lock, so a hung endpoint never
// blocks opens on the others. It never closes a remote browser, only the
// contexts it made. It is an Attacher. The webdriver provider asks W3C
// WebDriver endpoints (Selenium Grid 4, chromedriver) for one Chromium
// session per environment and connects over the CDP address the session
// returns (se:cdp, or goog:chromeOptions.debuggerAddress); the session is
// kept alive while the environment is open and deleted when it closes, by
// whichever replica closes it. It is an Attacher and a SessionKeeper.
//
// # Several replicas (Options.Registry)
//
// With a Registry (the store's environment registry; app always sets it,
// and the Manager uses it when its provider is an Attacher) the
// environments of remote browsers are shared by all replicas. Each is a row: endpoint, browser context id, page target id,
// region, purpose, lease owner and expiry, last used, closed. Kept
// environments are made without disposeOnDetach, so they outlive the
// connection (and the replica) that made them; temporary ones and spares die
// with it. Acquire attaches to an environment another replica opened by its
// id (the page by its target id) and puts it under this replica's rules. A
// lease in the registry, renewed every third of Options.LeaseDuration while
// a call holds the environment, lets one call at a time use it across
// replicas; a replica that dies mid-call loses its lease when it runs out.
// max_environments and max_per_purpose count the registry, under one lock,
// and the idle reaper checks the registry's last use before it closes
// anything. Open reuses an idle kept environment of its region and purpose
// that another replica made before it opens one (reuseShared), and the
// reaper also closes registered environments idle for IdleTimeout that no
// replica has in memory any more (reapShared): the replica that takes the
// lease first disposes of the context or deletes the WebDriver session. A browser that is gone (its endpoint does not answer, or answers
// as another browser) marks its environments closed for every replica:
// env_not_found. Shutting a replica down lets go of its kept environments
// without closing them.
//
// The guard applies the same rules on every replica: a new page in a
// context another replica registered is put under the allowed-hosts rules
// here too before it runs, and a page whose context the registry cannot
// judge is never resumed by this replica.
//
// # Environments
//
// Each environment is one CDP browser context (own cookies, storage and
// cache; proxyServer from its region) with one page. Manager.Open reuses an
// idle environment of the same region and purpose or opens one;
// Manager.OpenTemporary always opens one, closed by Release. Both return
// the environment held for the caller, like Acquire: every Open,
// OpenTemporary and Acquire is paired with one Release. A held environment
// is never reused or reaped; a second Acquire waits under its ctx.
//
// Spares (Options.Spare, browser.spare): the manager keeps that many
// environments of the default region pre-opened — context, page and guard
// ready — and hands one to the next OpenTemporary (or an Open that finds no
// idle environment), and makes another in the background when a call ends
// (not while the next one runs). Spares count
// toward max_environments and give their room up to a call that needs it;
// they die with their browser and close on Shutdown. See spare.go.
//
// Limits: browser.max_environments in all and browser.max_per_purpose per
// purpose (temporary ones count); beyond them Open fails with
// env_unavailable. Environments idle for browser.idle_timeout are closed.
//
// # When a browser dies
//
// A killed process or a dropped DevTools connection is noticed at once (a
// browser that stops answering, within about 30s). Calls in flight and
// later calls on its environments fail with env_unavailable (retryable) in
// milliseconds; Env.Check maps whatever error rod returned. The manager
// forgets those environments: Get, Acquire and Close on their ids say
// env_not_found ("its browser stopped; open a new environment"), because
// retrying with the same id cannot help. The next Open starts (local) or
// dials (cdp) a fresh browser.
//
// A page whose renderer dies (Target.targetCrashed) while the browser lives
// on closes its environment at once: the call in flight fails with
// env_unavailable ("crashed") instead of waiting out its step, and Get says
// env_not_found afterwards. The browser's other environments go on.
//
// # Allowed hosts
//
// With Options.AllowURL set, every main-frame document request of every
// page in an environment — a goto, a server redirect, a clicked link, a
// script's location change, a window.open popup — is paused with the CDP
// Fetch domain before it leaves the browser, and one AllowURL refuses fails
// with net::ERR_BLOCKED_BY_CLIENT. The environment remembers it:
// Env.TakeBlocked returns the refused URL so the executor can answer
// host_not_allowed. A frame's document (an iframe, in process or out) is
// refused the same way (Env.BlockedFrame).
//
// With Options.HoldSubresources (policy.subresources: allowed_hosts) every
// other request of those pages and of their dedicated workers is held to
// AllowURL too: images, scripts, styles, fonts, fetch, XHR, beacons and
// event streams pause in the Fetch domain and fail when refused;
// WebSockets, which never reach the Fetch domain, are held by a
// Content-Security-Policy connect-src header (Options.ConnectSrc) the
// guard adds to every document and worker script it answers itself. Each
// refusal is counted (Env.TakeHeld) for the trace.
//
// New pages are caught from their first instant: the browser connection
// auto-attaches to every new page paused (waitForDebuggerOnStart) and lets
// it run once its rules are in place. On a remote browser shared with other
// clients, their pages are resumed and left alone at once.
//
// # The executor's part
//
//	env, err := m.Acquire(ctx, envID) // or m.Open / m.OpenTemporary
//	if err != nil { return err }      // env_not_found, env_unavailable, ctx errors
//	defer m.Release(env)
//	ctx, cancel := env.Bind(ctx)      // ends when the env closes or its browser dies
//	defer cancel()
//	page := env.Page().Context(ctx)
//	for each step {
//		err := runStep(page)
//		if u, ok := env.TakeBlocked(); ok { return host_not_allowed(u) }
//		if err = env.Check(err); err != nil { return err }
//	}
package browser
