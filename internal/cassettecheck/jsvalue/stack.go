package jsvalue

// stackChunk is how many items one chunk of a stack holds.
const stackChunk = 256

// stack holds the items of every array (or members of every object) being
// read, innermost last, in fixed chunks that are kept and reused. A
// finished container's items are copied out once into a slice of exactly
// their number: growing each container's slice by append would leave every
// outgrown copy behind, about five times the final size for a long one.
type stack[T any] struct {
	chunks [][]T
	n      int
}

func (s *stack[T]) push(v T) {
	c := s.n / stackChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, stackChunk))
	}
	s.chunks[c][s.n%stackChunk] = v
	s.n++
}

// at returns item i (0 is the bottom of the stack).
func (s *stack[T]) at(i int) *T { return &s.chunks[i/stackChunk][i%stackChunk] }

// popFrom removes the items from i up and returns them in a new slice.
func (s *stack[T]) popFrom(i int) []T {
	out := make([]T, s.n-i)
	var zero T
	for j := i; j < s.n; j++ {
		p := s.at(j)
		out[j-i] = *p
		*p = zero // let the collector have what it pointed to
	}
	s.n = i
	return out
}

// drop removes the items from i up, as an error unwinds.
func (s *stack[T]) drop(i int) {
	var zero T
	for j := i; j < s.n; j++ {
		*s.at(j) = zero
	}
	s.n = i
}
