package dbstore_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestPacketWarning: a max_allowed_packet below the 1 GiB
// docs/replicas.md asks for (MariaDB's default is 16 MiB) is warned of,
// naming the value and the doc; 1 GiB or more is not.
func TestPacketWarning(t *testing.T) {
	for packet, warn := range map[int64]bool{1 << 20: true, 16 << 20: true, 64 << 20: true, dbstore.WantPacket - 1: true,
		dbstore.WantPacket: false, 2 << 30: false} {
		w := dbstore.PacketWarning(packet)
		if (w != "") != warn {
			t.Errorf("max_allowed_packet %d: warning %q, want one: %v", packet, w, warn)
		}
		if warn && (!strings.Contains(w, "max_allowed_packet is "+strconv.FormatInt(packet, 10)+" bytes") || !strings.Contains(w, "docs/replicas.md") || !strings.Contains(w, "max_allowed_packet = 1G")) {
			t.Errorf("max_allowed_packet %d: %q", packet, w)
		}
	}
}

// TestPacketRead: Open reads the database's max_allowed_packet, the
// value a connection of its own reads.
func TestPacketRead(t *testing.T) {
	dsn := testmysql.DSN(t)
	s, err := dbstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want int64
	if err := db.QueryRow("SELECT @@max_allowed_packet").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if s.Packet() != want || want <= 0 {
		t.Errorf("Packet %d, the database says %d", s.Packet(), want)
	}
}
