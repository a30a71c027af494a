package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// syncBuffer is a bytes.Buffer safe for the reader and writer goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// FuzzStdioReader feeds any bytes to the stdio connection, then one good
// request: the connection never fails, every line it writes back is a
// JSON-RPC error answer (-32700 or -32600), and the good request still
// comes through.
func FuzzStdioReader(f *testing.F) {
	for _, s := range []string{
		"hello world", "42", "\x00\x00", "[]", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":`, `{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0"}`,
		"\r\n\r\n", strings.Repeat("x", 300), `{"jsonrpc":"2.0","id":1,"result":{}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	const last = `{"jsonrpc":"2.0","id":"fuzz-last","method":"ping"}`
	f.Fuzz(func(t *testing.T, in []byte) {
		out := &syncBuffer{}
		c := newLineConn(bytes.NewReader(append(append(in, '\n'), last+"\n"...)), out, 256)
		defer c.Close()
		sawLast := false
		for {
			msg, err := c.Read(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Read failed: %v", err)
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.ID.Raw() == "fuzz-last" {
				sawLast = true
			}
		}
		if !sawLast {
			t.Fatalf("the request after %q was not read", in)
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if l == "" {
				continue
			}
			var m struct {
				Version string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.Version != "2.0" || len(m.ID) == 0 ||
				(m.Error.Code != jsonrpc.CodeParseError && m.Error.Code != jsonrpc.CodeInvalidRequest) || m.Error.Message == "" {
				t.Fatalf("written line is not a JSON-RPC error answer: %q", l)
			}
		}
	})
}
