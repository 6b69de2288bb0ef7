package server_test

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"testing"

	"github.com/logbook-project/logbook/internal/cassettecheck"
)

// TestVerifyCassette: a runback cassette posted to /v1/verify gets the
// bytes `logbook-verify --json` prints for it, as a body or as form parts
// with pinned, revoked and HMAC keys.
func TestVerifyCassette(t *testing.T) {
	f := newServer(t, nil)
	read := func(name string) []byte {
		b, err := os.ReadFile("../../testdata/runback/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pub, err := cassettecheck.PublicKey(read("fixture.pub"))
	if err != nil {
		t.Fatal(err)
	}
	want := func(file string, opt cassettecheck.Options) string {
		return string(cassettecheck.JSON(cassettecheck.Verify(read(file), opt)))
	}
	for _, file := range []string{"valid_ed25519.json", "invalid_event_edited.json", "error_JSON_SYNTAX.json"} {
		code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/verify", read(file))
		if code != 200 || body != want(file, cassettecheck.Options{}) {
			t.Errorf("%s: %d\n%s", file, code, body)
		}
	}
	send := func(parts [][2]string) (int, string) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		for _, p := range parts {
			fw, _ := w.CreateFormFile(p[0], p[0])
			fw.Write([]byte(p[1]))
		}
		w.Close()
		resp, err := http.Post(f.ts.URL+"/v1/verify", w.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := send([][2]string{{"record", string(read("valid_ed25519.json"))}, {"pubkey", string(read("fixture.pub"))}})
	if code != 200 || body != want("valid_ed25519.json", cassettecheck.Options{Pinned: []ed25519.PublicKey{pub}}) || !bytes.Contains([]byte(body), []byte(`"verdict": "valid"`)) {
		t.Errorf("pinned: %d\n%s", code, body)
	}
	code, body = send([][2]string{{"record", string(read("valid_hmac.json"))}, {"hmacKey", string(read("hmac.key"))}, {"strict", "1"}})
	if code != 200 || !bytes.Contains([]byte(body), []byte(`"verdict": "valid"`)) || !bytes.Contains([]byte(body), []byte(`"strict": true`)) {
		t.Errorf("HMAC: %d\n%s", code, body)
	}
	code, body = send([][2]string{{"record", string(read("valid_hmac.json"))}, {"bogus", "x"}})
	if code == 200 {
		t.Errorf("unknown part: %d %s", code, body)
	}
}
