package store

import (
	"crypto/rand"
	"sync"
	"time"
)

// crockford is Crockford's base32 alphabet (no I, L, O, U), as in ULID.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidGen makes ULID-style ids: 48 bits of Unix milliseconds then 80 random
// bits. Within one millisecond (or when the clock steps back) the random part
// is incremented instead of drawn again, so ids from one process sort in the
// order they were made.
type ulidGen struct {
	mu     sync.Mutex
	lastMS uint64
	rnd    [10]byte
}

var ids ulidGen

func (g *ulidGen) next(now time.Time) [16]byte {
	ms := uint64(now.UnixMilli())
	g.mu.Lock()
	defer g.mu.Unlock()
	if ms <= g.lastMS {
		ms = g.lastMS
		// increment the 80-bit random part; on overflow borrow the next ms
		i := len(g.rnd) - 1
		for ; i >= 0; i-- {
			g.rnd[i]++
			if g.rnd[i] != 0 {
				break
			}
		}
		if i < 0 {
			ms++
			_, _ = rand.Read(g.rnd[:])
		}
	} else {
		_, _ = rand.Read(g.rnd[:]) // crypto/rand.Read never fails on supported platforms
	}
	g.lastMS = ms
	var b [16]byte
	b[0], b[1], b[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	b[3], b[4], b[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	copy(b[6:], g.rnd[:])
	return b
}

// encodeULID writes 128 bits as 26 Crockford base32 characters, most
// significant first (the first character carries only 3 bits).
func encodeULID(b [16]byte) string {
	var out [26]byte
	// treat b as a 130-bit number with two leading zero bits
	var acc uint32
	bits := 2 // the two leading zero bits
	j := 0
	for _, x := range b {
		acc = acc<<8 | uint32(x)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out[j] = crockford[(acc>>uint(bits))&31]
			j++
		}
	}
	return string(out[:])
}

func newID(prefix string) string { return prefix + encodeULID(ids.next(time.Now())) }

// NewTraceID makes a trace id: "tr_" and 26 Crockford base32 characters
// (ULID-style: time first, so ids sort by creation time).
func NewTraceID() string { return newID(TraceIDPrefix) }

// TraceIDPrefix starts every trace id (and the name of every call's folder
// of artifacts and downloads).
const TraceIDPrefix = "tr_"

// NewGrantID makes a grant id: "gr_" and a ULID-style suffix.
func NewGrantID() string { return newID("gr_") }
