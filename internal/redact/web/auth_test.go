package web

import "testing"

func TestIsUserPass64(t *testing.T) {
	for v, want := range map[string]bool{
		"dXNlcjpwYXNz":     true,  // user:pass
		"dXNlcjpwdw==":     true,  // user:pw
		"dXNlcjpwdw":       true,  // unpadded
		"YWRtaW46UzNjcjN0": true,  // admin:S3cr3t
		"dXNlcm5hbWU=":     false, // username: no colon
		"dXNlcjpwdw===":    false, // too much padding
		"dXNl=cjpwdw":      false, // padding inside
		"AAECAwQFBgc=":     false, // binary
		"Authentication":   false,
	} {
		if got := isUserPass64(v); got != want {
			t.Errorf("isUserPass64(%q) = %v, want %v", v, got, want)
		}
	}
}
