package install

import "fmt"

// rootOnly: Windows has no root and no mode bits; who may replace a
// binary is in its ACL, which is not read here. A managed install is
// refused on Windows (docs/platforms.md).
func rootOnly(path string) error {
	return fmt.Errorf("%s: on Windows who may replace it is not checked, so --managed is not offered", path)
}
