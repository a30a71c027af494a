package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// ArgsHashJSON is the hash Claim compares: SHA-256 (hex) of the arguments
// (encoded as JSON) re-encoded as canonical JSON (object keys sorted,
// numbers kept exactly as written). Pass the arguments after defaults are
// applied and without task_id, so the same request always hashes the same.
func ArgsHashJSON(raw []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	b, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
