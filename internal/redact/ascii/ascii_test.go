package ascii

import "testing"

func TestFold(t *testing.T) {
	if !EqualFold("Token", "tOKEN") || EqualFold("token", "tokens") || EqualFold("\u212a", "k") {
		t.Error("EqualFold")
	}
	if !ContainsFold("X-API-KEY", "api") || ContainsFold("x", "api") {
		t.Error("ContainsFold")
	}
	if !HasPrefixFold("Bearer x", "bearer") || !InFold("NO", []string{"yes", "no"}) {
		t.Error("HasPrefixFold, InFold")
	}
	if !IsDigits("0123") || IsDigits("") || IsDigits("12a") {
		t.Error("IsDigits")
	}
	for c := 0; c < 256; c++ {
		b := byte(c)
		if IsAlnum(b) != (('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')) {
			t.Errorf("IsAlnum(%#x)", b)
		}
	}
}
