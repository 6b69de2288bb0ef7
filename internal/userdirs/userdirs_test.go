package userdirs

import "testing"

func TestDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	unix := env(map[string]string{"HOME": "/home/u", "APPDATA": `C:\x`})
	win := env(map[string]string{"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\Users\u\AppData\Roaming`})
	for _, c := range []struct {
		goos       string
		getenv     func(string) string
		home, conf string
	}{
		{"linux", unix, "/home/u", "/home/u/.config/logbook"},
		{"darwin", unix, "/home/u", "/home/u/.config/logbook"},
		{"windows", win, `C:\Users\u`, `C:\Users\u\AppData\Roaming\logbook`},
		{"linux", env(nil), "", ""},
		{"windows", env(nil), "", ""},
	} {
		if h := Home(c.goos, c.getenv); h != c.home {
			t.Errorf("Home(%s) = %q, want %q", c.goos, h, c.home)
		}
		if d := Config(c.goos, c.getenv); d != c.conf {
			t.Errorf("Config(%s) = %q, want %q", c.goos, d, c.conf)
		}
	}
}
