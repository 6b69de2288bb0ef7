package keyperm

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Fix is what to do about an exposed key.
const Fix = `let only you reach it: icacls FILE /inheritance:r /grant:r "%USERNAME%:F"`

// reach is what an allowing entry must not grant others: reading or
// writing the data, or the generic rights that include them.
const reach = windows.FILE_READ_DATA | windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA |
	windows.GENERIC_READ | windows.GENERIC_WRITE | windows.GENERIC_ALL |
	windows.WRITE_DAC | windows.WRITE_OWNER

// Exposed says which account other than the owner, SYSTEM and the
// Administrators may read or write path ("its ACL lets S-1-5-32-545
// read or write it"), "" when none may. A file without a DACL grants
// everyone everything.
func Exposed(path string) (string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", err
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return "", err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return "", err
	}
	if dacl == nil {
		return "its ACL is empty (everyone may read and write it)", nil
	}
	system, err := windows.CreateWellKnownSid(windows.WinLocalSystemSid)
	if err != nil {
		return "", err
	}
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		return "", err
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return "", err
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Mask&reach == 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if sid.Equals(owner) || sid.Equals(system) || sid.Equals(admins) {
			continue
		}
		name := sid.String()
		if acct, dom, _, err := sid.LookupAccount(""); err == nil {
			name = dom + `\` + acct
		}
		return fmt.Sprintf("its ACL lets %s read or write it", name), nil
	}
	return "", nil
}
