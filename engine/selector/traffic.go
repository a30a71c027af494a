package selector

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Traffic follows the requests of one page from the moment the page is
// handed to a call, so a wait for network quiet knows the requests already
// in flight when it starts (a fetch a click began), not only those that
// start while it waits.
//
// Long-lived and decorative requests never end a wait for quiet, as in
// rod's WaitRequestIdle: WebSockets, event streams, media, images, fonts.
//
// A request ends when the browser reports its end, or when the document
// that made it is gone (its frame navigated to another document, or was
// removed): the browser does not always report the end of a request the
// page being left began (a wiki's edit stash, sent as the page unloads),
// and such a request must not keep a wait busy for ever.
//
// It also keeps the HTTP status of each frame's document as the browser
// reported it (DocumentStatus), so a goto knows its page's status without
// asking the page, whose scripts may keep it busy for a while after load.
type Traffic struct {
	src      EventSource // the page's events, in the order the browser sent them
	mu       sync.Mutex
	inflight map[proto.NetworkRequestID]request
	seq      uint64        // requests started so far
	changed  chan struct{} // closed and replaced when a request starts or ends
	docs     map[proto.PageFrameID]document
	live     bool // the Network domain is enabled: requests are counted
	// refused are the latest requests the page's scripts sent to change
	// something (see sends) that the server answered with an HTTP error,
	// oldest first, at most maxRefused.
	refused []Refusal
}

// maxRefused bounds Traffic.refused: a step is judged by the first
// refusal after its mark, and a page that keeps failing a poll must not
// grow the list.
const maxRefused = 16

// document is a frame's latest document response (loader, status), the
// loader of the document it committed last and how many it committed
// while followed.
type document struct {
	loader, committed proto.NetworkLoaderID
	status            int
	commits           uint64
	// method is the HTTP method of the request loader answered (GET after
	// a redirect), url its URL; req is the latest document request asked
	// for, and its method.
	method, url string
	req         proto.NetworkLoaderID
	reqMethod   string
}

// request is a request in flight: its start number and the document
// (frame and loader) that made it; sent is set for a request a page's
// script sent to change something (sends).
type request struct {
	n      uint64
	frame  proto.PageFrameID
	loader proto.NetworkLoaderID
	sent   *Refusal // its method and path, kept (with n and the status) once answered with an error
}

// A Refusal is a request a page's script sent to change something that
// the server answered with an HTTP error (RefusedSince).
type Refusal struct {
	n      uint64
	id     proto.NetworkRequestID
	Method string
	Path   string // the URL's path: its query may carry a session's token
	Status int
}

// sends reports whether a request of type typ with method is one a
// page's script sent to change something on the server, whose answer
// tells whether that happened: a fetch or XMLHttpRequest with a method
// other than GET, HEAD or OPTIONS (a save, a delete, a sign-in by
// script). Beacons (analytics) and reports are not: nobody waits for
// their answer, and neither does a person.
func sends(typ proto.NetworkResourceType, method string) bool {
	if typ != proto.NetworkResourceTypeXHR && typ != proto.NetworkResourceTypeFetch {
		return false
	}
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// ignoredTypes are the resource types a wait for quiet does not wait for.
var ignoredTypes = map[proto.NetworkResourceType]bool{
	proto.NetworkResourceTypeWebSocket:   true,
	proto.NetworkResourceTypeEventSource: true,
	proto.NetworkResourceTypeMedia:       true,
	proto.NetworkResourceTypeImage:       true,
	proto.NetworkResourceTypeFont:        true,
}

// traffics holds the Traffic of each watched page, by target id.
var traffics sync.Map // proto.TargetTargetID → *Traffic

// An EventSource delivers a page's events in the order the browser sent
// them, and tells when every event sent before an answer the caller holds
// has been delivered (browser.Env.Events). rod's own event stream does
// not: it hands events to each subscriber on goroutines of its own, so an
// answer can overtake the events sent before it by any time a loaded
// machine takes to run those goroutines.
type EventSource interface {
	Observe(fn func(method string, params []byte)) (stop func())
	Sync(ctx context.Context) error
}

// WatchTraffic follows page's requests, as src delivers them, until stop
// is called; Map.Wait's network_idle condition uses it for that page, and
// RequestsSince sees every request the page reported before the answers
// its caller holds. Without a source (nil) the page is not watched: a
// network_idle wait then counts only the requests that start while it
// waits (rod's WaitRequestIdle).
func WatchTraffic(page *rod.Page, src EventSource) (stop func()) {
	if src == nil {
		return func() {}
	}
	t := &Traffic{src: src, inflight: map[proto.NetworkRequestID]request{}, changed: make(chan struct{}), docs: map[proto.PageFrameID]document{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// The page's events are followed from now on: what a document is
	// (its status, that it committed) holds whenever its event comes, so
	// the navigation a call begins with, right after this, is not missed
	// while the Network domain is being enabled. Requests in flight are
	// counted only once it is.
	unobserve := src.Observe(t.see)
	go func() {
		defer close(done)
		// Enabling the Network domain is a request of its own: it runs
		// here, so the caller never waits on a page that is stuck (a
		// dialog open while it loads) and stop always ends it. It stays
		// enabled for the page's life. A request begun before it is
		// enabled is not counted: a navigation under way while the domain
		// is being enabled can report its start and never its end.
		if err := (proto.NetworkEnable{}).Call(page.Context(ctx)); err != nil {
			return
		}
		t.mu.Lock()
		t.live = true
		t.mu.Unlock()
	}()
	traffics.Store(page.TargetID, t)
	return func() {
		traffics.CompareAndDelete(page.TargetID, t)
		cancel()
		<-done
		unobserve()
	}
}

// see follows one event of the page (EventSource.Observe).
func (t *Traffic) see(method string, params []byte) {
	var e struct {
		RequestID proto.NetworkRequestID    `json:"requestId"`
		Type      proto.NetworkResourceType `json:"type"`
		FrameID   proto.PageFrameID         `json:"frameId"`
		LoaderID  proto.NetworkLoaderID     `json:"loaderId"`
		Frame     struct {
			ID       proto.PageFrameID     `json:"id"`
			LoaderID proto.NetworkLoaderID `json:"loaderId"`
		} `json:"frame"`
		Response struct {
			Status int    `json:"status"`
			URL    string `json:"url"`
		} `json:"response"`
		Request struct {
			Method string `json:"method"`
			URL    string `json:"url"`
		} `json:"request"`
	}
	if !seenEvents[method] || json.Unmarshal(params, &e) != nil {
		return // most of a page's events: not decoded
	}
	switch method {
	case "Network.requestWillBeSent":
		if !ignoredTypes[e.Type] {
			r := request{frame: e.FrameID, loader: e.LoaderID}
			if sends(e.Type, e.Request.Method) {
				r.sent = &Refusal{Method: e.Request.Method, Path: pathOf(e.Request.URL, "a request")}
			}
			t.start(e.RequestID, r)
		}
		if e.Type == proto.NetworkResourceTypeDocument {
			t.doc(e.FrameID, func(d *document) { d.req, d.reqMethod = e.LoaderID, e.Request.Method })
		}
	case "Network.loadingFinished", "Network.loadingFailed":
		t.end(func(id proto.NetworkRequestID, _ request) bool { return id == e.RequestID })
	case "Network.responseReceived":
		if e.Response.Status >= 400 {
			t.answer(e.RequestID, e.Response.Status)
		}
		if e.Type == proto.NetworkResourceTypeDocument {
			t.doc(e.FrameID, func(d *document) {
				d.loader, d.status, d.method, d.url = e.LoaderID, e.Response.Status, "", e.Response.URL
				if d.req == e.LoaderID {
					d.method = d.reqMethod
				}
			})
		}
	case "Page.frameNavigated":
		t.doc(e.Frame.ID, func(d *document) { d.committed, d.commits = e.Frame.LoaderID, d.commits+1 })
		// The frame's document before this one is gone, and its requests.
		t.end(func(_ proto.NetworkRequestID, r request) bool {
			return r.frame == e.Frame.ID && r.loader != e.Frame.LoaderID
		})
	case "Page.frameDetached":
		t.mu.Lock()
		delete(t.docs, e.FrameID)
		t.mu.Unlock()
		t.end(func(_ proto.NetworkRequestID, r request) bool { return r.frame == e.FrameID })
	}
}

// seenEvents are the events see follows.
var seenEvents = map[string]bool{
	"Network.requestWillBeSent": true, "Network.loadingFinished": true, "Network.loadingFailed": true,
	"Network.responseReceived": true, "Page.frameNavigated": true, "Page.frameDetached": true,
}

// doc changes what is known of frame's document.
func (t *Traffic) doc(frame proto.PageFrameID, change func(*document)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.docs[frame]
	change(&d)
	t.docs[frame] = d
}

// DocumentStatus is the HTTP status of the document page's main frame
// shows, as the browser reported its response (Traffic watches page); 0
// when it is not known so: the page is not watched, or its document came
// without a response the browser reported (about:blank, data:, the
// back/forward cache), or a 304 (the status the page saw is the cached
// one's). The events the page sent before the answers the caller holds
// are counted.
func DocumentStatus(ctx context.Context, page *rod.Page) int {
	a, _ := DocumentAnswer(ctx, page)
	return a.Status
}

// DocumentMark counts the documents page's main frame committed since its
// events were first followed (WatchTraffic): a mark that moved says
// another document came (a navigation) between two marks; ok is false
// when the page is not watched, when no mark tells. The events the page
// sent before the answers the caller holds are counted.
func DocumentMark(ctx context.Context, page *rod.Page) (mark uint64, ok bool) {
	t := trafficOf(page)
	if t == nil || t.src.Sync(ctx) != nil {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.docs[page.FrameID].commits, true
}

// Answer is how the server answered the document a page's main frame
// shows (DocumentAnswer).
type Answer struct {
	Mark   uint64 // DocumentMark's mark
	Status int    // DocumentStatus's status (0: not known)
	Method string // the HTTP method of the request it answered ("": not known)
	Path   string // its URL's path, for messages
}

// DocumentAnswer is how the server answered the document page's main frame
// shows; ok is DocumentMark's.
func DocumentAnswer(ctx context.Context, page *rod.Page) (a Answer, ok bool) {
	t := trafficOf(page)
	if t == nil || t.src.Sync(ctx) != nil {
		return Answer{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.docs[page.FrameID]
	a.Mark = d.commits
	if a.Status = d.answered(); a.Status != 0 {
		a.Method, a.Path = d.method, pathOf(d.url, "the page")
	}
	return a, true
}

// pathOf is raw's path, for messages (the query left out: it may carry a
// session's token); or else when raw has none.
func pathOf(raw, or string) string {
	if u, err := url.Parse(raw); err == nil && u.Path != "" {
		return u.Path
	}
	return or
}

// answer notes that request id was answered with HTTP error status: kept
// as a refusal when a page's script sent it to change something.
func (t *Traffic) answer(id proto.NetworkRequestID, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.inflight[id]
	if !ok || r.sent == nil {
		return
	}
	f := *r.sent
	f.n, f.id, f.Status = r.n, id, status
	if len(t.refused) == maxRefused {
		t.refused = append(t.refused[:0], t.refused[1:]...)
	}
	t.refused = append(t.refused, f)
}

// RefusedSince is the first request page's scripts sent to change
// something (a fetch or XMLHttpRequest that is not a GET) after mark
// (RequestMark) and up to until that the server answered with an HTTP
// error (4xx, 5xx); ok false when there is none, or no Traffic watches
// page. It counts the events delivered so far: a caller that waited for
// the requests to end (RequestsSince) has their answers.
func RefusedSince(page *rod.Page, mark, until uint64) (f Refusal, ok bool) {
	t := trafficOf(page)
	if t == nil {
		return Refusal{}, false
	}
	return t.refusedSince(mark, until)
}

// refusedSince is RefusedSince on the events seen so far.
func (t *Traffic) refusedSince(mark, until uint64) (Refusal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range t.refused {
		if f.n > mark && f.n <= until {
			return f, true
		}
	}
	return Refusal{}, false
}

// answered is the HTTP status of the response d committed, when the
// browser reported it (see DocumentStatus); else 0.
func (d document) answered() int {
	if d.loader == "" || d.loader != d.committed || d.status == http.StatusNotModified {
		return 0
	}
	return d.status
}

// start notes request id in flight (a redirect keeps its id: no new start).
func (t *Traffic) start(id proto.NetworkRequestID, r request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, known := t.inflight[id]; known || !t.live {
		return
	}
	t.seq++
	r.n = t.seq
	t.inflight[id] = r
	t.notify()
}

// end forgets the requests in flight that over says are over.
func (t *Traffic) end(over func(proto.NetworkRequestID, request) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.inflight)
	maps.DeleteFunc(t.inflight, over)
	if len(t.inflight) != n {
		t.notify()
	}
}

// notify wakes the waits; t.mu is held.
func (t *Traffic) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// inFlight is how many requests are in flight now.
func (t *Traffic) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inflight)
}

// idle returns once no request has been in flight for quiet, counted from
// the call at the earliest, or when ctx ends (its error).
func (t *Traffic) idle(ctx context.Context, quiet time.Duration) error {
	since := time.Now()
	for {
		t.mu.Lock()
		busy, changed := len(t.inflight) > 0, t.changed
		t.mu.Unlock()
		var tm *time.Timer
		var timer <-chan time.Time
		if !busy {
			left := quiet - time.Since(since)
			if left <= 0 {
				return nil
			}
			tm = time.NewTimer(left)
			timer = tm.C
		}
		select {
		case <-ctx.Done():
		case <-timer:
		case <-changed:
			since = time.Now() // a request started or ended: quiet starts again when none is left
		}
		if tm != nil {
			tm.Stop()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// trafficOf is the Traffic watching page, nil when none does.
func trafficOf(page *rod.Page) *Traffic {
	if v, ok := traffics.Load(page.TargetID); ok {
		return v.(*Traffic)
	}
	return nil
}

// RequestMark is a mark of page's requests so far, for RequestsSince; 0
// when no Traffic watches page.
func RequestMark(page *rod.Page) uint64 {
	t := trafficOf(page)
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// busySince reports whether a request started after mark is in flight,
// once the events sent before the answers the caller holds are counted.
func (t *Traffic) busySince(ctx context.Context, mark uint64) bool {
	if t.src.Sync(ctx) != nil {
		return false
	}
	busy, _ := t.since(mark)
	return busy
}

// since reports whether a request started after mark is in flight, and
// the channel closed at the next start or end.
func (t *Traffic) since(mark uint64) (bool, chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.inflight {
		if r.n > mark {
			return true, t.changed
		}
	}
	return false, t.changed
}

// RequestsSince waits until no request page started after mark is in
// flight (a fetch a click began), or ctx ends (its error). It reports
// whether there was any to wait for. The requests the page reported
// before the answers the caller holds are known (a fetch a click handler
// began, before the answer to a call made after the click).
func RequestsSince(ctx context.Context, page *rod.Page, mark uint64) (bool, error) {
	t := trafficOf(page)
	if t == nil {
		return false, nil
	}
	if err := t.src.Sync(ctx); err != nil {
		return false, err
	}
	waited := false
	for {
		busy, changed := t.since(mark)
		if !busy {
			return waited, nil
		}
		waited = true
		select {
		case <-ctx.Done():
			return waited, ctx.Err()
		case <-changed:
		}
	}
}
