package checkpoint

import "golang.org/x/mod/sumdb/note"

// SignText signs any text, for tests of what Open refuses.
func SignText(s *Signer, text string) []byte {
	b, err := note.Sign(&note.Note{Text: text}, s.ns)
	if err != nil {
		panic(err)
	}
	return b
}
