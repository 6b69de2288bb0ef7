package chain

import (
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestLink: the written step hashes (without "hash") to the hash it
// carries, links to prev, and a "hash" key inside data is left alone.
func TestLink(t *testing.T) {
	s := Step{At: "2026-01-01T00:00:00Z", Kind: "note", Summary: "x",
		Data: strictjson.Obj(strictjson.Member{Key: "hash", Value: strictjson.Str(strings.Repeat("x", 64))})}
	line, h, err := Link(s, 3, EmptyTip)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strictjson.Parse(line, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.GetString("hash"); got != h {
		t.Fatalf("carries %s, returned %s", got, h)
	}
	if again, _ := Hash(v); again != h {
		t.Fatalf("rehash %s, want %s", again, h)
	}
	if p, _ := v.GetString("prev"); p != EmptyTip {
		t.Fatalf("prev %s", p)
	}
	if d, _ := v.Get("data").GetString("hash"); d != strings.Repeat("x", 64) {
		t.Fatalf("data.hash changed to %q", d)
	}
}
