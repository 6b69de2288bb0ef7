package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

// TestCached: a file goes out with its content's tag and no-cache; asked
// again with that tag it is 304 Not Modified, with no body; a file whose
// content differs has another tag; a file that is not there is 404, with
// no tag.
func TestCached(t *testing.T) {
	fsys := fstest.MapFS{"js/a.js": {Data: []byte("one")}, "js/b.js": {Data: []byte("two")}, "s.css": {Data: []byte("p{}")}}
	c := NewCached(fsys)
	get := func(name, tag string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/"+name, nil)
		if tag != "" {
			r.Header.Set("If-None-Match", tag)
		}
		w := httptest.NewRecorder()
		c.Serve(w, r, name)
		return w
	}
	a := get("js/a.js", "")
	tag := a.Header().Get("ETag")
	if a.Code != 200 || a.Body.String() != "one" || tag == "" || a.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("first GET: %d %q ETag %q Cache-Control %q", a.Code, a.Body, tag, a.Header().Get("Cache-Control"))
	}
	if ct := a.Header().Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if again := get("js/a.js", tag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("asked again with its tag: %d, %d bytes; want 304, none", again.Code, again.Body.Len())
	}
	b := get("js/b.js", tag)
	if b.Code != 200 || b.Body.String() != "two" || b.Header().Get("ETag") == tag {
		t.Errorf("another file asked with the first's tag: %d %q ETag %q", b.Code, b.Body, b.Header().Get("ETag"))
	}
	if ct := get("s.css", "").Header().Get("Content-Type"); ct != "text/css; charset=utf-8" {
		t.Errorf("a style sheet's Content-Type %q", ct)
	}
	if missing := get("js/c.js", ""); missing.Code != 404 || missing.Header().Get("ETag") != "" {
		t.Errorf("a missing file: %d ETag %q", missing.Code, missing.Header().Get("ETag"))
	}
}
