package mcpserver

import (
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionKey names ss for what a native tool keeps per session (the
// engine's Request.Session): its MCP session id, or, on a transport whose
// sessions have none (stdio, in memory), a number of this server's. The
// first call of a session also starts watching for its end, when the
// OnSessionEnd functions are told.
func (s *Server) sessionKey(ss *mcp.ServerSession) string {
	if k, ok := s.keys.Load(ss); ok {
		return k.(string)
	}
	key := ss.ID()
	if key == "" {
		key = "session-" + strconv.FormatInt(s.nextKey.Add(1), 10)
	}
	if k, loaded := s.keys.LoadOrStore(ss, key); loaded {
		return k.(string)
	}
	go func() {
		_ = ss.Wait() // the client left, the session was closed or timed out idle
		s.keys.Delete(ss)
		s.endMu.Lock()
		fns := append([]func(string){}, s.onEnd...)
		s.endMu.Unlock()
		for _, fn := range fns {
			fn(key)
		}
	}()
	return key
}

// OnSessionEnd tells fn the key of each session (Request.Session) that
// ends after it made a call: what a native tool kept for it can go.
func (s *Server) OnSessionEnd(fn func(key string)) {
	s.endMu.Lock()
	defer s.endMu.Unlock()
	s.onEnd = append(s.onEnd, fn)
}
