package install

import (
	"fmt"
	"strings"
)

// unifiedDiff shows the change from old to new as a unified diff of lines
// (what --dry-run prints). A side that does not exist is /dev/null.
func unifiedDiff(path string, old []byte, oldExists bool, new []byte, newExists bool) string {
	a, b := lines(old), lines(new)
	from, to := "a/"+path, "b/"+path
	if !oldExists {
		from = "/dev/null"
	}
	if !newExists {
		to = "/dev/null"
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	ops := diffLines(a, b)
	// Hunks with three lines of context, as diff -u.
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aLen, bLen := ops[start].a, ops[start].b, 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[start:end] {
			out.WriteString(string(op.kind) + op.text + "\n")
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line index in old and new where the op stands
}

// diffLines is a longest-common-subsequence diff: configuration files are
// small, and the common prefix and suffix are matched first.
func diffLines(a, b []string) []diffOp {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	// lcs[i][j]: length of the LCS of ma[i:] and mb[j:].
	lcs := make([][]int, len(ma)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	for k := 0; k < p; k++ {
		ops = append(ops, diffOp{' ', a[k], k, k})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, diffOp{' ', ma[i], p + i, p + j})
			i++
			j++
		case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', ma[i], p + i, p + j})
			i++
		default:
			ops = append(ops, diffOp{'+', mb[j], p + i, p + j})
			j++
		}
	}
	for k := 0; k < s; k++ {
		ops = append(ops, diffOp{' ', a[len(a)-s+k], len(a) - s + k, len(b) - s + k})
	}
	return ops
}
