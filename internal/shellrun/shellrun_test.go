package shellrun

import (
	"reflect"
	"testing"
)

func TestArgv(t *testing.T) {
	for _, c := range []struct {
		goos, line string
		want       []string
	}{
		{"linux", "less -R", []string{"sh", "-c", "less -R"}},
		{"darwin", `less "a b"`, []string{"sh", "-c", `less "a b"`}},
		{"windows", `more "C:\x y"`, []string{"cmd.exe", "/d", "/s", "/c", `"more "C:\x y""`}},
	} {
		if got := Argv(c.goos, c.line); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Argv(%s, %q) = %q, want %q", c.goos, c.line, got, c.want)
		}
	}
	if got, want := Line("windows", "tsa.exe --x"), `cmd.exe /d /s /c "tsa.exe --x"`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
