package translog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// schema is what Tessera's MySQL storage (v1, compatibility version 1)
// reads and writes: the schema version, the published checkpoint, the
// integrated tree state, the hash tiles and the entry bundles. Tessera
// leaves creating the tables to its user; the statements are idempotent.
var schema = []string{
	"CREATE TABLE IF NOT EXISTS `Tessera` (`id` TINYINT UNSIGNED NOT NULL, `compatibilityVersion` BIGINT UNSIGNED NOT NULL, PRIMARY KEY (`id`))",
	"INSERT IGNORE INTO `Tessera` (`id`, `compatibilityVersion`) VALUES (0, 1)",
	"CREATE TABLE IF NOT EXISTS `Checkpoint` (`id` TINYINT UNSIGNED NOT NULL, `note` MEDIUMBLOB NOT NULL, `published_at` BIGINT NOT NULL, PRIMARY KEY (`id`))",
	"CREATE TABLE IF NOT EXISTS `TreeState` (`id` TINYINT UNSIGNED NOT NULL, `size` BIGINT UNSIGNED NOT NULL, `root` TINYBLOB NOT NULL, PRIMARY KEY (`id`))",
	"CREATE TABLE IF NOT EXISTS `Subtree` (`level` TINYINT UNSIGNED NOT NULL, `index` BIGINT UNSIGNED NOT NULL, `nodes` MEDIUMBLOB NOT NULL, PRIMARY KEY (`level`, `index`))",
	"CREATE TABLE IF NOT EXISTS `TiledLeaves` (`tile_index` BIGINT UNSIGNED NOT NULL, `size` SMALLINT UNSIGNED NOT NULL, `data` LONGBLOB NOT NULL, PRIMARY KEY (`tile_index`))",
}

func openDB(ctx context.Context, dsn string) (*sql.DB, error) {
	if dsn == "" {
		return nil, fmt.Errorf("the mysql log driver needs a DSN (--log-dsn or $LOGBOOK_LOG_DSN)")
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	for _, s := range schema {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("create the log's tables: %v", redactDSN(err.Error(), dsn))
		}
	}
	return db, nil
}

// redactDSN keeps a password out of error messages.
func redactDSN(msg, dsn string) string {
	if at := strings.LastIndex(dsn, "@"); at > 0 {
		if c := strings.Index(dsn[:at], ":"); c >= 0 {
			return strings.ReplaceAll(msg, dsn[c+1:at], "***")
		}
	}
	return msg
}
