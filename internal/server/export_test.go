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

// SetProofSweep sets the time between the replicas' sweeps of records
// without a log proof, and returns the function that puts it back.
func SetProofSweep(d time.Duration) func() {
	old := proofSweep
	proofSweep = d
	return func() { proofSweep = old }
}
