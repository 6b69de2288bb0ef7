package gate

import "sync"

// sync1 is sync.OnceValues, named for what it is here: the CEL
// environment is made once per process, on first use, never at start-up.
func sync1[T any](f func() (T, error)) func() (T, error) { return sync.OnceValues(f) }
