// Command runback-agent is a small agent recorded and replayed with the
// runback package. Its "model" is a scripted fake: it asks for the weather
// tool, then answers from the tool's output. The run is recorded, sealed
// with a fresh Ed25519 key and verified; then the same agent code is
// replayed against the cassette, with the model and the tool unplugged,
// and the two cassette digests are printed: they match.
//
//	go run ./examples/runback-agent [-o cassette.json]   # and cassette.json.pub, to pin with logbook-verify --pubkey
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/logbook-project/logbook/runback"
)

// fakeModel is the scripted model: the first turn calls a tool, the
// second answers with what the tool said.
func fakeModel(turn int, toolOutput string) (any, error) {
	if turn == 0 {
		return map[string]any{"tool_call": map[string]any{"name": "weather", "input": map[string]any{"city": "Lisbon"}}}, nil
	}
	return map[string]any{"text": "In Lisbon: " + toolOutput}, nil
}

// agent is written once against runback.Session.
func agent(ctx context.Context, s runback.Session, question string) (string, error) {
	var history []string
	history = append(history, question)
	toolOutput := ""
	for turn := 0; turn < 2; turn++ {
		reply, err := s.Model(ctx, runback.ModelCall{Provider: "fake", Model: "scripted-1", Request: map[string]any{"messages": history}},
			func(context.Context) (any, error) { return fakeModel(turn, toolOutput) })
		if err != nil {
			return "", err
		}
		var r struct {
			Text     string `json:"text"`
			ToolCall *struct {
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"tool_call"`
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			return "", err
		}
		if r.ToolCall == nil {
			return r.Text + " (asked at " + s.Now().UTC().Format("15:04:05") + ")", nil
		}
		out, err := s.Tool(ctx, runback.ToolCall{Name: r.ToolCall.Name, CallID: fmt.Sprint("call-", turn), Input: r.ToolCall.Input},
			func(context.Context) (any, error) { return "18°C, clear", nil })
		if err != nil {
			return "", err
		}
		toolOutput = string(out)
		history = append(history, toolOutput)
	}
	return "", errors.New("no answer")
}

func main() {
	out := flag.String("o", "", "also write the sealed cassette to `FILE`, and its signer's public key to FILE.pub")
	flag.Parse()
	ctx := context.Background()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	check(err)

	rec := runback.NewRecorder(runback.Config{Name: "weather-agent"})
	check(rec.Start("What is the weather in Lisbon?"))
	answer, err := agent(ctx, rec, "What is the weather in Lisbon?")
	check(rec.End(answer, err))
	cassette, err := rec.Seal(runback.Ed25519Signer(priv))
	check(err)
	if *out != "" {
		check(os.WriteFile(*out, cassette, 0o644))
		spki, err := x509.MarshalPKIXPublicKey(priv.Public())
		check(err)
		check(os.WriteFile(*out+".pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}), 0o644))
		fmt.Printf("wrote %s and %s.pub: logbook-verify --pubkey %s.pub %s\n", *out, *out, *out, *out)
	}
	res, err := runback.Verify(cassette, runback.VerifyOptions{Pinned: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}})
	check(err)
	fmt.Println("recorded:", answer)
	fmt.Println("verdict: ", res.Verdict)

	rep, err := runback.NewReplayer(cassette, runback.Config{Name: "weather-agent"})
	check(err)
	again, err := agent(ctx, rep, "What is the weather in Lisbon?")
	check(err)
	fmt.Println("replayed:", again)
	fmt.Println("recorded digest:", rep.RecordedDigest())
	fmt.Println("replayed digest:", rep.Digest())
	if err := rep.Check(); err != nil {
		fmt.Fprintln(os.Stderr, "runback-agent:", err)
		os.Exit(1)
	}
	fmt.Println("digests match")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "runback-agent:", err)
		os.Exit(1)
	}
}
