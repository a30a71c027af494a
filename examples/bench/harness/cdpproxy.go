package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/rodref"
)

// cdpProxy sits between a DevTools client and Chromium and notes the time
// and method of every request the client sends, without changing a byte: it
// forwards the WebSocket handshake and frames as they are and reads the
// client's (masked) text frames on the way. It lets the benchmark count the
// CDP requests of each step of a workflow from outside the engine (the
// engine runs with browser.provider: cdp pointed at the proxy).
type cdpProxy struct {
	ln      net.Listener
	target  string // host:port of Chromium's DevTools
	path    string // /devtools/browser/ID
	mu      sync.Mutex
	records []cdpRecord
}

type cdpRecord struct {
	at     time.Time
	method string
	id     int64
	done   time.Time // when its response came back (zero: not yet, or an event)
}

// newCDPProxy proxies the DevTools WebSocket URL wsURL on a loopback port.
func newCDPProxy(wsURL string) (*cdpProxy, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &cdpProxy{ln: ln, target: u.Host, path: u.Path}
	go p.serve()
	return p, nil
}

// countThrough points cfg at a Chromium of its own behind a counting proxy
// (browser.provider: cdp); stop ends both.
func countThrough(cfg *config.Config) (*cdpProxy, func(), error) {
	u, kill, err := rodref.Launch(cfg.Browser.Bin)
	if err != nil {
		return nil, nil, err
	}
	p, err := newCDPProxy(u)
	if err != nil {
		kill()
		return nil, nil, err
	}
	cfg.Browser.Provider, cfg.Browser.Endpoints = "cdp", []string{p.URL()}
	return p, func() { p.Close(); kill() }, nil
}

// openApp loads the config at path and opens the app on it, without logs.
// With countCDP the app drives a Chromium of its own through a counting
// proxy, returned for the breakdown (nil otherwise). closeAll ends them all.
func openApp(path string, countCDP bool) (a *app.App, proxy *cdpProxy, closeAll func(), err error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, nil, err
	}
	stop := func() {}
	if countCDP {
		if proxy, stop, err = countThrough(cfg); err != nil {
			return nil, nil, nil, err
		}
	}
	if a, err = app.Open(cfg, slog.New(slog.DiscardHandler)); err != nil {
		stop()
		return nil, nil, nil, err
	}
	return a, proxy, func() { a.Close(context.Background()); stop() }, nil
}

// URL is the proxy's DevTools WebSocket URL.
func (p *cdpProxy) URL() string { return "ws://" + p.ln.Addr().String() + p.path }

func (p *cdpProxy) Close() { _ = p.ln.Close() }

// between returns the methods of the requests sent in [from, to).
func (p *cdpProxy) between(from, to time.Time) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.records {
		if !r.at.Before(from) && r.at.Before(to) {
			out = append(out, r.method)
		}
	}
	return out
}

func (p *cdpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.relay(c)
	}
}

func (p *cdpProxy) relay(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go func() {
		p.answers(bufio.NewReader(server), client)
		client.Close()
	}()
	r := bufio.NewReader(client)
	// The handshake, forwarded as it is (the Host header names the proxy;
	// Chromium accepts loopback hosts).
	if !forwardHeaders(r, server) {
		return
	}
	for {
		frame, payload, opcode, err := readFrame(r)
		if err != nil {
			return
		}
		if opcode == 1 { // text: one JSON request
			var m struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(payload, &m) == nil && m.Method != "" {
				p.mu.Lock()
				p.records = append(p.records, cdpRecord{at: time.Now(), method: m.Method, id: m.ID})
				p.mu.Unlock()
			}
		}
		if _, err := server.Write(frame); err != nil {
			return
		}
	}
}

// answers forwards what Chromium sends to the client and notes when each
// request's response arrives (matched by id, the latest request first).
func (p *cdpProxy) answers(r *bufio.Reader, client net.Conn) {
	if !forwardHeaders(r, client) { // the handshake's answer, as it is
		return
	}
	for {
		frame, payload, opcode, err := readFrame(r)
		if err != nil {
			return
		}
		if opcode == 1 {
			var m struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(payload, &m) == nil && m.Method == "" && m.ID != 0 {
				now := time.Now()
				p.mu.Lock()
				for i := len(p.records) - 1; i >= 0; i-- {
					if p.records[i].id == m.ID && p.records[i].done.IsZero() {
						p.records[i].done = now
						break
					}
				}
				p.mu.Unlock()
			}
		}
		if _, err := client.Write(frame); err != nil {
			return
		}
	}
}

// forwardHeaders copies HTTP header lines from r to w up to the blank line
// that ends them; false when either side failed.
func forwardHeaders(r *bufio.Reader, w io.Writer) bool {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		if _, err := io.WriteString(w, line); err != nil {
			return false
		}
		if line == "\r\n" {
			return true
		}
	}
}

// timeline is every request sent in [from, to): its start and its round
// trip, relative to from.
func (p *cdpProxy) timeline(from, to time.Time) []timed {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []timed
	for _, r := range p.records {
		if !r.at.Before(from) && r.at.Before(to) {
			t := timed{Method: r.method, AtMS: millis(r.at.Sub(from))}
			if !r.done.IsZero() {
				t.RoundTripMS = millis(r.done.Sub(r.at))
			}
			out = append(out, t)
		}
	}
	return out
}

// timed is one request of a timeline.
type timed struct {
	AtMS        float64 `json:"at_ms"`
	Method      string  `json:"method"`
	RoundTripMS float64 `json:"round_trip_ms"`
}

// readFrame reads one WebSocket frame sent by a client: its raw bytes, its
// unmasked payload and its opcode. Fragmented messages are not expected
// (rod sends every request in one frame); their parts pass through uncounted.
func readFrame(r *bufio.Reader) (raw, payload []byte, opcode byte, err error) {
	head := make([]byte, 2)
	if _, err = io.ReadFull(r, head); err != nil {
		return
	}
	raw = append(raw, head...)
	opcode = head[0] & 0x0f
	masked := head[1]&0x80 != 0
	n := uint64(head[1] & 0x7f)
	switch n {
	case 126:
		b := make([]byte, 2)
		if _, err = io.ReadFull(r, b); err != nil {
			return
		}
		raw = append(raw, b...)
		n = uint64(binary.BigEndian.Uint16(b))
	case 127:
		b := make([]byte, 8)
		if _, err = io.ReadFull(r, b); err != nil {
			return
		}
		raw = append(raw, b...)
		n = binary.BigEndian.Uint64(b)
	}
	if n > 64<<20 {
		return nil, nil, 0, fmt.Errorf("frame of %d bytes", n)
	}
	var key []byte
	if masked {
		key = make([]byte, 4)
		if _, err = io.ReadFull(r, key); err != nil {
			return
		}
		raw = append(raw, key...)
	}
	body := make([]byte, n)
	if _, err = io.ReadFull(r, body); err != nil {
		return
	}
	raw = append(raw, body...)
	payload = body
	if masked {
		payload = make([]byte, n)
		for i := range body {
			payload[i] = body[i] ^ key[i%4]
		}
	}
	return raw, payload, opcode, nil
}

// methodCounts turns a list of methods into "Method ×n" text, most first.
func methodCounts(methods []string) string {
	n := map[string]int{}
	var order []string
	for _, m := range methods {
		if n[m] == 0 {
			order = append(order, m)
		}
		n[m]++
	}
	parts := make([]string, len(order))
	for i, m := range order {
		if n[m] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", m, n[m])
		} else {
			parts[i] = m
		}
	}
	return strings.Join(parts, ", ")
}
