package dbstore

import (
	"context"
	"fmt"
)

// WantPacket is the max_allowed_packet docs/replicas.md asks of the
// database: an event's lines, and a sealed record, go in one statement
// each, and an event of a payload near --max-hook-body (32 MiB) needs
// more than MariaDB's default of 16 MiB.
const WantPacket = 1 << 30

// PacketWarning is what the server logs at start for a database whose
// max_allowed_packet is packet bytes: "" when it is at least WantPacket.
// It is a warning, not a refusal: a smaller packet refuses only the
// largest events (WRITE_FAILED, naming the packet size).
func PacketWarning(packet int64) string {
	if packet >= WantPacket {
		return ""
	}
	return fmt.Sprintf("the database's max_allowed_packet is %d bytes (%.0f MiB), below the 1 GiB docs/replicas.md asks for: "+
		"an event of a payload near --max-hook-body (32 MiB), or a large sealed record, will be refused WRITE_FAILED; set max_allowed_packet = 1G",
		packet, float64(packet)/(1<<20))
}

// readPacket reads the database's max_allowed_packet: the largest
// statement this connection may send, as the driver reads it at connect.
func readPacket(ctx context.Context, s *Store) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&n)
	return n, err
}

// Packet is the database's max_allowed_packet, read when it was opened.
func (s *Store) Packet() int64 { return s.packet }
