package scan

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
)

const pemBegin = "-----BEGIN "

// pem replaces the body of a private key block, up to its END line or,
// for a truncated block, to the end of the string. It returns where to
// resume scanning, or -1 when this is not a private key.
func (sc *Scanner) pem(i int) int {
	s := sc.s
	ls := i + len(pemBegin)
	le := strings.Index(s[ls:min(len(s), ls+64)], "-----")
	if le < 0 || !strings.Contains(s[ls:ls+le], "PRIVATE KEY") {
		return -1
	}
	bs := ls + le + len("-----")
	// A real block breaks the line (or, flattened, leaves a blank) after
	// its BEGIN line, the break possibly escaped as \n or continued with a
	// backslash; grep "-----BEGIN RSA PRIVATE KEY-----" does not.
	if rest := s[bs:]; rest != "" && !ascii.IsSpace(rest[0]) && !strings.HasPrefix(rest, `\n`) && !strings.HasPrefix(rest, `\r`) &&
		!(len(rest) > 1 && rest[0] == '\\' && ascii.IsSpace(rest[1])) {
		return -1
	}
	be := len(s)
	if k := strings.Index(s[bs:], "-----END "); k >= 0 {
		be = bs + k
	}
	// Keep the line breaks, real or escaped as \n, around the body.
	for bs < be {
		if ascii.IsSpace(s[bs]) {
			bs++
		} else if strings.HasPrefix(s[bs:be], `\n`) || strings.HasPrefix(s[bs:be], `\r`) {
			bs += 2
		} else {
			break
		}
	}
	for be > bs {
		if ascii.IsSpace(s[be-1]) {
			be--
		} else if strings.HasSuffix(s[bs:be], `\n`) || strings.HasSuffix(s[bs:be], `\r`) {
			be -= 2
		} else {
			break
		}
	}
	sc.add(bs, be)
	return max(be, bs)
}
