package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// ArgsHash is the hash Claim compares: SHA-256 (hex) of args encoded as
// canonical JSON (object keys sorted, numbers kept exactly as written). Pass
// the arguments after defaults are applied and without task_id, so the same
// request always hashes the same.
func ArgsHash(args any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	return ArgsHashJSON(b)
}

// ArgsHashJSON is ArgsHash for arguments already encoded as JSON.
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
