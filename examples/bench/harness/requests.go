package main

import (
	"encoding/json"
	"strings"
)

// stepRequests is the number of CDP requests a trace step record says the
// step made, when the engine records it (a numeric field whose JSON name
// mentions cdp or requests, not held_requests); false when it does not.
func stepRequests(step any) (int, bool) {
	raw, err := json.Marshal(step)
	if err != nil {
		return 0, false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return 0, false
	}
	for k, v := range m {
		k = strings.ToLower(k)
		// (held_requests counts the page's requests the guard refused, not CDP's.)
		if n, ok := v.(float64); ok && !strings.Contains(k, "held") && (strings.Contains(k, "cdp") || strings.Contains(k, "request")) {
			return int(n), true
		}
	}
	return 0, false
}
