package adbctest

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/drivermgr"
)

// A result stream used after its statement and its connection were released (Go's manager
// does not stop that) ends with an error saying so: no crash, no hang. So does a busy
// connection, and a cancelled query.
func TestStreamsOutlivingTheirStatementAndConnection(t *testing.T) {
	q := newQuirks(t)
	ctx := context.Background()
	for _, release := range []string{"statement", "connection"} {
		t.Run(release, func(t *testing.T) {
			db, err := (&drivermgr.Driver{}).NewDatabase(q.DatabaseOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			cnxn, err := db.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			stmt, _ := cnxn.NewStatement()
			_ = stmt.SetSqlQuery("SELECT number FROM system.numbers LIMIT 50000000")
			rdr, _, err := stmt.ExecuteQuery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !rdr.Next() {
				t.Fatalf("no first batch: %v", rdr.Err())
			}

			// Another statement while the result is open: busy, at once.
			other, _ := cnxn.NewStatement()
			_ = other.SetSqlQuery("SELECT 1")
			_, _, err = other.ExecuteQuery(ctx)
			var e adbc.Error
			if !errorAs(err, &e) || e.Code != adbc.StatusInvalidState || !strings.Contains(e.Msg, "busy") {
				t.Fatalf("a second query on a busy connection: %v", err)
			}
			other.Close()

			stmt.Close()
			if release == "connection" {
				cnxn.Close()
			}
			for rdr.Next() {
			}
			if rdr.Err() == nil || !strings.Contains(rdr.Err().Error(), "released") {
				t.Fatalf("the stream after its %s was released: err = %v", release, rdr.Err())
			}
			rdr.Release()
			if release == "statement" {
				// The connection serves the next query.
				s, _ := cnxn.NewStatement()
				_ = s.SetSqlQuery("SELECT 41 + 1")
				r, _, err := s.ExecuteQuery(ctx)
				if err != nil {
					t.Fatal(err)
				}
				r.Next()
				if got := r.RecordBatch().Column(0).ValueStr(0); got != "42" {
					t.Fatalf("got %s", got)
				}
				r.Release()
				s.Close()
				cnxn.Close()
			}
		})
	}
}

func errorAs(err error, e *adbc.Error) bool {
	switch v := err.(type) {
	case adbc.Error:
		*e = v
		return true
	case *adbc.Error:
		*e = *v
		return true
	}
	return false
}
