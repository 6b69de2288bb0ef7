package journalfile

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// both reads the journal with ReadAll and with Stream and returns what
// each gave: the steps array, count, tip, the steps each saw, the error.
func both(t *testing.T, dir string) (all, streamed Steps, seenAll, seenStream []string, errAll, errStream error) {
	all, streamed, seenAll, seenStream, _, _, errAll, errStream = bothHeaders(t, dir)
	return
}

func bothHeaders(t *testing.T, dir string) (all, streamed Steps, seenAll, seenStream []string, hAll, hStream Header, errAll, errStream error) {
	t.Helper()
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	hAll, all, errAll = j.ReadAll(func(i int, v *strictjson.Value) error {
		s, _ := v.GetString("summary")
		seenAll = append(seenAll, fmt.Sprint(i, len(s)))
		return nil
	})
	var out bytes.Buffer
	hStream, streamed, errStream = j.Stream(func(i int, v *strictjson.Value) error {
		s, _ := v.GetString("summary")
		seenStream = append(seenStream, fmt.Sprint(i, len(s)))
		return nil
	}, &out)
	streamed.JSON = out.Bytes()
	return
}

// Stream gives the bytes ReadAll gives, for steps of every length: lines
// that span its read chunks, and one longer than a chunk.
func TestStreamMatchesReadAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var steps []chain.Step
	for i := 0; i < 3000; i++ {
		steps = append(steps, note("2026-05-01T00:00:00Z", strings.Repeat("x", i%700)))
		if i == 1500 {
			steps = append(steps, note("2026-05-01T00:00:01Z", strings.Repeat("é", streamChunk)))
		}
	}
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(hdr, steps); err != nil {
		t.Fatal(err)
	}
	j.Close()
	all, got, seenAll, seenStream, hAll, hStream, errAll, errStream := bothHeaders(t, dir)
	if errAll != nil || errStream != nil {
		t.Fatal(errAll, errStream)
	}
	if hAll != hStream || hStream.Session != "s1" {
		t.Fatalf("header %+v, ReadAll's %+v", hStream, hAll)
	}
	if !bytes.Equal(all.JSON, got.JSON) || all.Count != got.Count || all.LastHash != got.LastHash || all.Count != len(steps) {
		t.Fatalf("Stream: %d steps, tip %s, %d bytes; ReadAll: %d steps, tip %s, %d bytes",
			got.Count, got.LastHash, len(got.JSON), all.Count, all.LastHash, len(all.JSON))
	}
	if strings.Join(seenAll, ",") != strings.Join(seenStream, ",") {
		t.Fatal("each saw other steps")
	}
}

// A journal edited behind the recorder's back, or cut short, is refused by
// Stream with ReadAll's words.
func TestStreamRefusesAsReadAll(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func([]byte) []byte{
		"edited step": func(b []byte) []byte { return bytes.Replace(b, []byte("step 700"), []byte("step 7OO"), 1) },
		"not JSON": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"summary":"step 900 `), []byte(`"summary":step 900 `), 1)
		},
		"no header":   func(b []byte) []byte { return b[bytes.IndexByte(b, '\n')+1:] },
		"empty":       func([]byte) []byte { return nil },
		"header only": func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')] },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var steps []chain.Step
			for i := 0; i < 5000; i++ {
				steps = append(steps, note("2026-05-01T00:00:00Z", fmt.Sprintf("step %d %s", i, strings.Repeat("y", 300))))
			}
			j, err := Open(dir, "s1")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Append(hdr, steps); err != nil {
				t.Fatal(err)
			}
			j.Close()
			b, err := os.ReadFile(Path(dir, "s1"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(Path(dir, "s1"), edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
			all, got, _, _, errAll, errStream := both(t, dir)
			if fmt.Sprint(errAll) != fmt.Sprint(errStream) || all.Count != got.Count || all.LastHash != got.LastHash {
				t.Fatalf("ReadAll: %v (%d steps); Stream: %v (%d steps)", errAll, all.Count, errStream, got.Count)
			}
			if name != "header only" && errAll == nil {
				t.Fatal("no error")
			}
		})
	}
}
