package review

import (
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
)

// FromRecord reviews a sealed record under the verifier's verdict res
// (record.Verify, then the policy checks). A refused record is still shown
// when it can be read, under its refusal: the reviewer sees what it
// claims, told that nothing vouches for it.
func FromRecord(data []byte, res record.Result, pinnedAny bool) (*Review, error) {
	r := &Review{Verdict: verdictOf(res, pinnedAny), Turns: []Turn{}}
	ses, steps, err := ReadRecord(data)
	if err != nil {
		if !res.OK {
			return r, nil // NOT_JSON: nothing to show beyond the verdict
		}
		return nil, err
	}
	r.Session = ses
	r.Turns, r.Summary = Build(steps)
	return r, nil
}

// FromInProgress reviews a session's in-progress file.
func FromInProgress(data []byte) (*Review, error) {
	ses, steps, pr, err := ReadInProgress(data)
	if err != nil {
		return nil, err
	}
	r := &Review{Session: ses}
	r.Verdict = Verdict{OK: pr.Broken == "", State: "in progress"}
	switch {
	case pr.Broken != "":
		r.Verdict.Code = string(format.ChainBroken)
		r.Verdict.Detail = pr.Broken
		r.Verdict.Line = fmt.Sprintf("IN PROGRESS, CHAIN BROKEN: %s (not sealed: nothing is signed yet)", pr.Broken)
	default:
		r.Verdict.Detail = fmt.Sprintf("%d steps link and hash", pr.Steps)
		r.Verdict.Line = fmt.Sprintf("IN PROGRESS steps=%d: the chain holds, but nothing is signed until the session is sealed", pr.Steps)
	}
	if pr.Torn {
		r.Verdict.Line += "; the last line is cut (a write in progress, or a writer that died)"
	}
	r.Turns, r.Summary = Build(steps)
	return r, nil
}

func verdictOf(res record.Result, pinnedAny bool) Verdict {
	v := Verdict{OK: res.OK, State: "sealed", Code: string(res.Code), Detail: res.Detail, RecordID: res.RecordID, KeyID: res.KeyID, Pinned: res.Pinned}
	if !res.OK {
		v.Line = fmt.Sprintf("REFUSED %s: %s", res.Code, res.Detail)
		if res.Code != format.NotJSON {
			v.Line += " — the rows below are what the file claims; nothing vouches for them"
		}
		return v
	}
	signer := "unpinned (integrity only: pass --pubkey to check who signed)"
	if pinnedAny {
		signer = "pinned"
	}
	v.Line = fmt.Sprintf("OK recordId=%s keyId=%s steps=%d signer=%s", res.RecordID, res.KeyID, res.StepCount, signer)
	return v
}

// SetAssurance puts the checkpoint assurance level the verifier gave an
// accepted record (docs/checkpoint.md: local, server, logged) into the
// verdict and its line, right after the verdict.
func (r *Review) SetAssurance(level string) {
	if level == "" || !r.Verdict.OK || r.Verdict.State != "sealed" {
		return
	}
	r.Verdict.Assurance = level
	r.Verdict.Line = strings.Replace(r.Verdict.Line, " signer=", " level="+level+" signer=", 1)
}
