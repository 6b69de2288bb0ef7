package oracle

import (
	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
)

// Project applies an event's key_projection to its input before the input
// is keyed, as runback's projectInput does: with a non-empty keep, only the
// top-level members named by the first segment of a keep path stay; then
// each drop path ("a.b.c") is deleted, descending through arrays element
// by element. The input itself is not changed; a copy is returned. It
// fails where runback's code would throw (keep not an array, a path that
// is not a string, drop not iterable).
func Project(input, projection *js.Value) (*js.Value, error) {
	keep := js.Prop(projection, "keep")
	drop := js.Prop(projection, "drop")
	empty := func(v *js.Value) bool {
		if !v.Truthy() {
			return true
		}
		l := js.Prop(v, "length")
		return l.Kind == js.Number && l.Num == 0
	}
	if empty(keep) && empty(drop) {
		return input, nil
	}
	if input.Kind != js.Object {
		return input, nil
	}
	work := input.Clone()
	if keep.Truthy() && js.Prop(keep, "length").Truthy() {
		if keep.Kind != js.Array {
			return nil, &js.TypeError{Msg: "keep.map is not a function"}
		}
		top := map[string]bool{}
		for i := range keep.Items {
			k := &keep.Items[i]
			if k.Kind != js.String {
				return nil, &js.TypeError{Msg: "k.split is not a function"}
			}
			top[js.Split(k.Str, '.')[0]] = true
		}
		kept := work.Members[:0:0]
		for _, m := range work.Members {
			if top[m.Key] {
				kept = append(kept, m)
			}
		}
		work.Members = kept
	}
	if drop.Truthy() && js.Prop(drop, "length").Truthy() {
		var paths []string
		switch drop.Kind {
		case js.Array:
			for i := range drop.Items {
				if drop.Items[i].Kind != js.String {
					return nil, &js.TypeError{Msg: "p.split is not a function"}
				}
				paths = append(paths, drop.Items[i].Str)
			}
		case js.String:
			paths = js.CodePoints(drop.Str)
		default:
			return nil, &js.TypeError{Msg: "drop is not iterable"}
		}
		for _, p := range paths {
			dropPath(&work, js.Split(p, '.'))
		}
	}
	return &work, nil
}

func dropPath(node *js.Value, segs []string) {
	switch node.Kind {
	case js.Array:
		for i := range node.Items {
			dropPath(&node.Items[i], segs)
		}
		return
	case js.Object:
	default:
		return
	}
	if len(segs) == 1 {
		node.Delete(segs[0])
		return
	}
	// "head in node" also holds for Object.prototype's names; their values
	// are functions (nothing to descend into), and "__proto__" would reach
	// Object.prototype itself, which a cassette must not be able to edit:
	// both are no-ops here (docs/runback.md §4).
	if m := node.Get(segs[0]); m != nil {
		dropPath(m, segs[1:])
	}
}
