package shellcmd

import (
	"strings"
	"testing"
)

// BenchmarkParse: a typical agent command, and the largest command line
// read (MaxLen of short commands: the cost a policy on commands adds to
// a call at most, inside the gate's time budget).
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"typical", `cd /w/app && go test ./... -run TestX -count=1 2>&1 | tail -20`},
		{"wrapped", `sudo -u app env X=1 bash -lc "find . -name '*.o' -exec rm -f {} + && echo $(date)"`},
		{"1MiB", strings.Repeat("echo a; ", MaxLen/8)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.src)))
			for b.Loop() {
				_, _ = Parse(c.src)
			}
		})
	}
}
