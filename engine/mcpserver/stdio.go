package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// afterAbort bounds how long a drained session waits for the answers of the
// calls cancelled when the grace ran out.
const afterAbort = 5 * time.Second

// ServeIO serves one MCP session as newline-delimited JSON-RPC on r and w
// until r ends or ctx ends. No input ends the session: a line that is not
// JSON gets a -32700 reply, one that is not a JSON-RPC message (a batch
// included: MCP 2025-06-18 dropped batching) or is longer than MaxBodyBytes
// gets -32600, and the next line is read as usual. When r ends or ctx ends,
// no new request is read; the calls already running get ShutdownGrace to
// answer, are cancelled after it, and their answers are written before the
// session closes.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	s.log.Info("serving MCP over stdio", "tools", len(s.eng.Workflows().Names()))
	c := newLineConn(r, w, int(s.o.MaxBodyBytes))
	c.stop = ctx.Done()
	c.drain = func() {
		if !c.waitAnswered(s.o.ShutdownGrace) {
			s.log.Warn("cancelling calls still running at shutdown", "calls", c.unanswered())
			s.abort()
			c.waitAnswered(afterAbort)
		}
	}
	// The session's own context never ends from outside: the connection
	// decides when it is over (after the drain), so answers still go out.
	err := s.mcp.Run(context.WithoutCancel(ctx), connTransport{c})
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}

// connTransport hands the SDK one ready connection.
type connTransport struct{ c mcp.Connection }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// line is one input line (without its newline), or a line that was longer
// than the limit (its bytes dropped), or the end of input.
type line struct {
	data    []byte
	tooLong bool
	err     error // io.EOF or a read error: no more lines
}

// lineConn is an mcp.Connection over newline-delimited JSON that answers
// bad input itself instead of ending the session, and that holds the end of
// input back until every request it read has been answered (or drain gave
// up).
type lineConn struct {
	w   io.Writer
	wmu sync.Mutex
	max int

	lines  chan line
	closed chan struct{}
	once   sync.Once
	rc     io.Closer // the reader, when it can be closed

	stop  <-chan struct{} // serving ends: read no more, drain
	drain func()          // waits for the answers of the requests read

	mu       sync.Mutex
	pending  map[jsonrpc.ID]int // requests read and not answered yet
	answered chan struct{}      // closed and replaced whenever pending empties
}

func newLineConn(r io.Reader, w io.Writer, max int) *lineConn {
	if max <= 0 {
		max = DefaultMaxBodyBytes
	}
	c := &lineConn{
		w: w, max: max,
		lines:    make(chan line),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]int{},
		answered: make(chan struct{}),
	}
	if rc, ok := r.(io.Closer); ok {
		c.rc = rc
	}
	go c.readLines(r)
	return c
}

// readLines splits r into lines of at most max bytes. A longer line is
// dropped up to its newline and reported once; a last line without a
// newline still counts.
func (c *lineConn) readLines(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	tooLong := false
	send := func(l line) bool {
		select {
		case c.lines <- l:
			return true
		case <-c.closed:
			return false
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > c.max+2 { // +2: the line's own \r\n
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' || (err != nil && (tooLong || len(buf) > 0)) {
			l := line{data: bytes.Clone(buf), tooLong: tooLong}
			if !send(l) {
				return
			}
			buf, tooLong = buf[:0], false
		}
		if err != nil {
			send(line{err: err})
			return
		}
	}
}

// Read returns the next JSON-RPC message, answering bad lines on the way.
// At the end of input (or when serving stops) it first waits for the
// answers of the requests already read, then reports io.EOF.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop:
			return nil, c.finish()
		case l := <-c.lines:
			if l.err != nil {
				return nil, c.finish()
			}
			msg, id, code, reason := decodeLine(l, c.max)
			if msg == nil {
				if code != 0 {
					c.reply(id, code, reason)
				}
				continue
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				c.mu.Lock()
				c.pending[req.ID]++
				c.mu.Unlock()
			}
			return msg, nil
		}
	}
}

// finish drains and ends the read side.
func (c *lineConn) finish() error {
	if c.drain != nil {
		c.drain()
	}
	return io.EOF
}

// decodeLine turns one line into a message, or into the JSON-RPC error
// that answers it (code 0 and no message: a blank line, nothing to say).
func decodeLine(l line, max int) (msg jsonrpc.Message, id jsonrpc.ID, code int64, reason string) {
	if l.tooLong {
		return nil, id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the line is longer than %d bytes (send one JSON-RPC message per line, at most %d bytes)", max, max)
	}
	b := bytes.TrimSpace(l.data)
	if len(b) == 0 {
		return nil, id, 0, ""
	}
	if !json.Valid(b) {
		return nil, id, jsonrpc.CodeParseError, "parse error: the line is not one JSON value (send one JSON-RPC message per line)"
	}
	switch b[0] {
	case '[':
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send one message per line"
	case '{':
	default:
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"
	}
	var head struct {
		Version *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(b, &head) // valid JSON object: only field types can fail
	var rawID any
	if len(head.ID) > 0 && json.Unmarshal(head.ID, &rawID) == nil {
		if v, err := jsonrpc.MakeID(rawID); err == nil {
			id = v
		}
	}
	switch {
	case head.Version == nil || *head.Version != "2.0":
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	case len(head.ID) > 0 && !id.IsValid() && string(head.ID) != "null":
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: "id" must be a string or an integer`
	}
	var method string
	if len(head.Method) > 0 && json.Unmarshal(head.Method, &method) != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: "method" must be a string`
	}
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: want a request ("method", optional "id" and "params") or a response ("id" with "result" or "error")`
	}
	if len(head.Method) > 0 && method == "" {
		return nil, id, jsonrpc.CodeInvalidRequest, `invalid request: "method" is empty`
	}
	return m, id, 0, ""
}

// reply writes a JSON-RPC error answer to a line that was not a message.
func (c *lineConn) reply(id jsonrpc.ID, code int64, message string) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	if !id.IsValid() {
		// EncodeMessage leaves out an invalid id; JSON-RPC wants "id": null.
		b = append([]byte(`{"jsonrpc":"2.0","id":null,`), bytes.TrimPrefix(b, []byte(`{"jsonrpc":"2.0",`))...)
	}
	_ = c.writeLine(b)
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Write sends one message; an answer settles its request.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	err = c.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.settle(resp.ID)
	}
	return err
}

func (c *lineConn) settle(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.pending[id]
	if !ok {
		return
	}
	if n > 1 {
		c.pending[id] = n - 1
		return
	}
	delete(c.pending, id)
	if len(c.pending) == 0 {
		close(c.answered)
		c.answered = make(chan struct{})
	}
}

func (c *lineConn) unanswered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.pending {
		n += k
	}
	return n
}

// waitAnswered waits up to d until every request read has been answered.
func (c *lineConn) waitAnswered(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		c.mu.Lock()
		n, ch := len(c.pending), c.answered
		c.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ch:
		case <-c.closed:
			return false
		case <-t.C:
			return false
		}
	}
}

// Close ends the connection; it may be called more than once.
func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if c.rc != nil {
			_ = c.rc.Close()
		}
	})
	return nil
}

// SessionID is empty: stdio has one session.
func (c *lineConn) SessionID() string { return "" }
