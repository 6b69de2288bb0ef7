package shapes

import "testing"

// TestShapeTables guards the dispatch in token: each table must hold only
// prefixes that start with the byte it is filed under.
func TestShapeTables(t *testing.T) {
	n := 0
	for c := range 256 {
		for _, sh := range shapesFor(byte(c)) {
			n++
			if sh.prefix[0] != byte(c) {
				t.Errorf("prefix %q filed under %q", sh.prefix, byte(c))
			}
		}
	}
	if n < 60 {
		t.Errorf("%d shapes, want at least 60", n)
	}
	starts := []string{"SG.", "eyJ"}
	for c := range 256 {
		for _, sh := range shapesFor(byte(c)) {
			starts = append(starts, sh.prefix)
		}
	}
	for _, p := range starts {
		if !MayStart(p, 0) {
			t.Errorf("shapeSeconds does not let %q start a token", p)
		}
	}
	for _, c := range "MNO" { // Discord: base64 of a user id, "1".."9" then a digit
		for _, d := range "DTjz" {
			if !MayStart(string(c)+string(d), 0) {
				t.Errorf("shapeSeconds does not let %c%c start a token", c, d)
			}
		}
	}
}
