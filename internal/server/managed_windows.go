package server

import "fmt"

// rootOnly: Windows has no root and no mode bits; who may change the
// file is in its ACL, which is not read here. The file is never taken as
// managed on Windows (docs/platforms.md).
func rootOnly(path string) error {
	return fmt.Errorf("%s: on Windows who may change it is not checked, so it is not taken as managed", path)
}
