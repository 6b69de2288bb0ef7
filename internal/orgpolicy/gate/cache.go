package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"

	"cel.dev/cel-go/cel"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/proto"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// A hook is a new process per call, and parsing and checking 50 rules
// costs it about 10 ms (cel-go's ANTLR parser, cold each time): more than
// the rest of the hook. So the checked rules are kept on disk, by policy
// digest, and a later hook only plans them (docs/policy.md §7).
//
// The file is DIGEST.celcache in the cache directory:
//
//	"logbook-celcache/1 " cacheTag "\n" DIGEST "\n"
//	then per rule: uint32 big-endian length, a serialized CheckedExpr
//	then sha256 of everything before it
//
// A file that does not match in any way is ignored and rewritten. The
// sum catches corruption, not tampering: whoever can write the cache can
// also replace the hook's binary or edit the hooks, and the record's
// defences against that are session.recorder and GATE_MISSING, not this
// file (docs/policy.md §9).
const cacheMagic = "logbook-celcache/1 "

// cacheTag changes when what is stored would be read differently: the
// cel-go version and the environment (rules.go's variables).
const cacheTag = "cel-go v0.33.2 env 2"

// CacheDir is where compiled policies are kept: $LOGBOOK_CACHE_DIR, else
// the user's cache directory's logbook/policy; "" when there is none.
func CacheDir(getenv func(string) string) string {
	if d := getenv("LOGBOOK_CACHE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "logbook", "policy")
}

// CompileCached is Compile with the checked rules read from, or written
// to, dir ("" : no cache). hit says the cache was used. A cache that
// cannot be written is not an error: the rules were compiled.
func CompileCached(p *orgpolicy.Policy, dir string) (prog *Program, hit bool, err error) {
	if dir == "" {
		prog, err = Compile(p)
		return prog, false, err
	}
	file := filepath.Join(dir, p.Digest+".celcache")
	if asts := readCache(file, p); asts != nil {
		if prog, err = plan(p, asts); err == nil {
			return prog, true, nil
		}
	}
	asts, err := check(p)
	if err != nil {
		return nil, false, err
	}
	if prog, err = plan(p, asts); err != nil {
		return nil, false, err
	}
	_ = writeCache(file, p, asts)
	return prog, false, nil
}

func readCache(file string, p *orgpolicy.Policy) []*cel.Ast {
	b, err := os.ReadFile(file)
	if err != nil || len(b) < sha256.Size {
		return nil
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil
	}
	head := cacheMagic + cacheTag + "\n" + p.Digest + "\n"
	if !bytes.HasPrefix(body, []byte(head)) {
		return nil
	}
	body = body[len(head):]
	asts := make([]*cel.Ast, 0, len(p.Rules))
	for len(body) >= 4 {
		n := binary.BigEndian.Uint32(body)
		if uint64(n) > uint64(len(body)-4) {
			return nil
		}
		var ce exprpb.CheckedExpr
		if proto.Unmarshal(body[4:4+n], &ce) != nil {
			return nil
		}
		asts = append(asts, cel.CheckedExprToAst(&ce))
		body = body[4+n:]
	}
	if len(body) != 0 || len(asts) != len(p.Rules) {
		return nil
	}
	return asts
}

func writeCache(file string, p *orgpolicy.Policy, asts []*cel.Ast) error {
	buf := []byte(cacheMagic + cacheTag + "\n" + p.Digest + "\n")
	for _, a := range asts {
		ce, err := cel.AstToCheckedExpr(a)
		if err != nil {
			return err
		}
		b, err := proto.Marshal(ce)
		if err != nil {
			return err
		}
		if len(b) > 1<<31 {
			return errors.New("rule too large to cache")
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(b)))
		buf = append(buf, b...)
	}
	sum := sha256.Sum256(buf)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return durable.WriteFileMode(file, append(buf, sum[:]...), 0o600)
}
