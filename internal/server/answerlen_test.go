package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
)

// TestJSONAnswerLength: a JSON answer larger than net/http's 2 KiB
// buffer, and a refusal, carry their Content-Length and come unchunked
// (writeJSON encodes before it writes: one write, no chunk framing).
func TestJSONAnswerLength(t *testing.T) {
	f, ix, _ := indexed(t)
	if err := ix.Put(context.Background(), synthSessions(40)...); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"limit=30", "limit=nine"} {
		req, _ := http.NewRequest("GET", f.ts.URL+"/v1/sessions?"+q, nil)
		req.Header.Set("Authorization", "Bearer rt")
		resp, err := f.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if q == "limit=30" && (resp.StatusCode != 200 || len(b) < 4<<10) {
			t.Fatalf("%s: %d, %d bytes: want 200 and over 4 KiB", q, resp.StatusCode, len(b))
		}
		if resp.ContentLength != int64(len(b)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("%s: Content-Length %d, Transfer-Encoding %v, for %d bytes", q, resp.ContentLength, resp.TransferEncoding, len(b))
		}
	}
}

// TestSearchAnswerJSON: SearchAnswer.AppendJSON, which writeJSON takes
// instead of encoding/json, writes what encoding/json writes.
func TestSearchAnswerJSON(t *testing.T) {
	var views []index.View
	for _, s := range synthSessions(40)[:3] {
		views = append(views, index.ViewOf(s))
	}
	for _, a := range []server.SearchAnswer{{}, {Sessions: []index.View{}}, {Sessions: views, Next: "eyJzIjoibmV3ZXN0In0"},
		{Sessions: views[:1], Next: "<\"\\\u2028\xff>"}} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(a); err != nil {
			t.Fatal(err)
		}
		if got := string(a.AppendJSON(nil)) + "\n"; got != want.String() {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
}
