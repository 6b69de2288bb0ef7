package journalfile

// tip is the seq and hash of the last step a Journal wrote.
type tip struct {
	seq  int64
	hash string
}

// Tip is Tail without reading the file again when this Journal has just
// written the last step: a server that checkpoints after every append
// would otherwise parse the line it just wrote. The lock is held, so no
// one else can have written since.
func (j *Journal) Tip() (int64, string, error) {
	if j.tip != nil {
		return j.tip.seq, j.tip.hash, nil
	}
	return j.Tail()
}
