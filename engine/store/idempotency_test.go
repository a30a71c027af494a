package store

import "testing"

func TestArgsHash(t *testing.T) {
	a, err := ArgsHashJSON([]byte(`{"b": [1, 2.50, "x"], "a": {"z": 1, "y": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ArgsHashJSON([]byte(`{"a":{"y":null,"z":1},"b":[1,2.50,"x"]}`))
	c, _ := ArgsHashJSON([]byte(`{"a": {"z": 1, "y": null}, "b": [1, 2.5, "x"]}`))
	if len(a) != 64 {
		t.Fatalf("hash %q", a)
	}
	if c == "" || a == "" || b == "" {
		t.Fatal("empty hash")
	}
	d, _ := ArgsHashJSON([]byte(`{"a": {"z": 2, "y": null}, "b": [1, 2.5, "x"]}`))
	if c == d {
		t.Fatal("different arguments hash the same")
	}
	e, _ := ArgsHashJSON([]byte(`{"b":[1,2.5,"x"],"a":{"y":null,"z":1}}`))
	if c != e {
		t.Fatal("key order changes the hash")
	}
}
