package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// decodeJSON reads the small JSON body of an admin, retention, hold or
// approval request into v: at most limit bytes, no member v does not
// name, nothing after the value. (A hook's body is read by readBody and
// parsed by the recorder, never by encoding/json.)
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}
