package files

import "errors"

// Matches reports whether the glob g (as --materials takes it) matches at
// least one file under cwd. It stops at the first file found.
func Matches(g, cwd string) (bool, error) {
	found := errors.New("found")
	err := expand(g, cwd, func(string) error { return found })
	if err == found {
		return true, nil
	}
	return false, err
}
