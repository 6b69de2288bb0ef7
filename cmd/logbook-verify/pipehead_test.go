package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestNotJSONPipeReadNoFurther pipes an endless stream of NUL bytes to
// logbook-verify, as a record (the cassette sniff reads it first) and as a
// --bundle. Bytes that cannot begin a JSON text are refused from the
// stream's first chunk: the verdict is NOT_JSON (BUNDLE_INVALID) at offset
// 0, and the stream is read no further. Before, it was read to the 1 GiB
// limit (1.2 GB piped: 1.8 GB peak for a record, 1 GB for a bundle); the
// count of bytes the writer got into the pipe holds the bound.
func TestNotJSONPipeReadNoFurther(t *testing.T) {
	defer func(m int64) { maxRecord = m }(maxRecord)
	maxRecord = 64 << 20 // what a failure reads before it is seen
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "REFUSED NOT_JSON: offset 0"},
		{[]string{"--trust", "/dev/null", "--bundle"}, "REFUSED BUNDLE_INVALID: not strict JSON: offset 0"},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		written := make(chan int64)
		go func() {
			var n int64
			zero := make([]byte, 64<<10)
			for {
				m, err := w.Write(zero)
				n += int64(m)
				if err != nil {
					break
				}
			}
			w.Close()
			written <- n
		}()
		var stdout, stderr bytes.Buffer
		code := run(append(c.args, fmt.Sprintf("/proc/self/fd/%d", r.Fd())), &stdout, &stderr)
		r.Close() // the writer's next write fails: EPIPE
		n := <-written
		t.Logf("%v: exit %d, %d KiB written into the pipe: %s", c.args, code, n>>10, strings.TrimSpace(stdout.String()))
		if code != 1 || !strings.HasPrefix(stdout.String(), c.want) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, stdout.String(), stderr.String(), c.want)
		}
		if n > 2<<20 {
			t.Fatalf("%v: %d MiB read from the pipe before the refusal, want at most its first chunk (+ the pipe's buffer)", c.args, n>>20)
		}
	}
}
