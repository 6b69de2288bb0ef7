package server

import "time"

// SetSlotWait sets how long a hook waits for a slot, and returns the
// function that restores it.
func SetSlotWait(d time.Duration) func() {
	old := slotWait
	slotWait = d
	return func() { slotWait = old }
}

// SlotsInUse is how many append slots are held.
func (s *Server) SlotsInUse() int { return len(s.slots) }
