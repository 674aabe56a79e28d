// The ADBC project's validation suite (github.com/apache/arrow-adbc/go/adbc/validation) run
// against chwire's driver through Go's driver manager (drivermgr, which loads the shared
// library with cgo), against the live server. `make adbc-test` runs it; the library comes from
// CHWIRE_ADBC_DRIVER and the server from CHWIRE_TEST_URL (the native port).
//
// The suite's tables (bulk_ingest, sample_test) live in a database of their own,
// adbc_validation, created and dropped here. Results use chwire's "clickhouse" Arrow mapping
// (String as utf8, as the suite's expected schemas have it); docs/ADBC.md lists the cases
// and the quirks below.
package adbctest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/drivermgr"
	"github.com/apache/arrow-adbc/go/adbc/validation"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/suite"
)

const database = "adbc_validation"

type quirks struct {
	url     string // the server's URL without a database
	lib     string
	version string
	mem     *memory.CheckedAllocator
}

func (q *quirks) SetupDriver(t *testing.T) adbc.Driver {
	q.mem = memory.NewCheckedAllocator(memory.DefaultAllocator)
	return &drivermgr.Driver{}
}

func (q *quirks) TearDownDriver(t *testing.T, _ adbc.Driver) { q.mem.AssertSize(t, 0) }

func (q *quirks) options(db string) map[string]string {
	return map[string]string{
		"driver":               q.lib,
		"entrypoint":           "AdbcDriverChwireInit",
		adbc.OptionKeyURI:      q.url + "/" + db,
		"chwire.arrow_mapping": "clickhouse",
	}
}

func (q *quirks) DatabaseOptions() map[string]string { return q.options(database) }

// ClickHouse's placeholders declare their type: {name:Type}. The suite binds an int64 and a
// string column to the query's two placeholders (by position).
func (q *quirks) BindParameter(index int) string {
	return fmt.Sprintf("{p%d:%s}", index, []string{"Nullable(Int64)", "Nullable(String)"}[index])
}

func (q *quirks) SupportsBulkIngest(string) bool     { return true }
func (q *quirks) SupportsConcurrentStatements() bool { return false }
func (q *quirks) SupportsCurrentCatalogSchema() bool { return true }

// Go's drivermgr (v1.12) does not expose GetOption on its objects (no adbc.GetSetOptions):
// the suite then checks that it is absent and skips the current catalog/schema checks.
func (q *quirks) SupportsGetSetOptions() bool           { return false }
func (q *quirks) SupportsPartitionedData() bool         { return false }
func (q *quirks) SupportsStatistics() bool              { return false }
func (q *quirks) SupportsTransactions() bool            { return false }
func (q *quirks) SupportsGetParameterSchema() bool      { return true }
func (q *quirks) SupportsDynamicParameterBinding() bool { return true }
func (q *quirks) Catalog() string                       { return "clickhouse" }
func (q *quirks) DBSchema() string                      { return database }
func (q *quirks) Alloc() memory.Allocator               { return q.mem }

// TestSqlExecuteSchema expects `SELECT 1` to be int32 or int64: ClickHouse types the
// literal as UInt8 (uint8). Skipped, see docs/ADBC.md.
func (q *quirks) SupportsExecuteSchema() bool { return false }

// The incompatible-schema case expects INTERNAL for a CREATE of an existing table, where the
// driver answers ALREADY_EXISTS (the server's TABLE_ALREADY_EXISTS). Skipped, see docs/ADBC.md.
func (q *quirks) SupportsErrorIngestIncompatibleSchema() bool { return false }

func (q *quirks) GetMetadata(code adbc.InfoCode) interface{} {
	switch code {
	case adbc.InfoDriverName:
		return "ADBC chwire driver (ClickHouse native protocol)"
	case adbc.InfoDriverVersion:
		return "0.1.0"
	case adbc.InfoDriverArrowVersion:
		return "59"
	case adbc.InfoDriverADBCVersion:
		return int64(1001000)
	case adbc.InfoVendorName:
		return "ClickHouse"
	case adbc.InfoVendorVersion:
		return q.version
	}
	return nil
}

func (q *quirks) exec(db string, sql ...string) error {
	drv := &drivermgr.Driver{}
	d, err := drv.NewDatabase(q.options(db))
	if err != nil {
		return err
	}
	defer d.Close()
	cnxn, err := d.Open(context.Background())
	if err != nil {
		return err
	}
	defer cnxn.Close()
	for _, s := range sql {
		stmt, err := cnxn.NewStatement()
		if err != nil {
			return err
		}
		if err := stmt.SetSqlQuery(s); err != nil {
			return err
		}
		_, err = stmt.ExecuteUpdate(context.Background())
		stmt.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (q *quirks) CreateSampleTable(tableName string, r arrow.RecordBatch) error {
	drv := &drivermgr.Driver{}
	d, err := drv.NewDatabase(q.DatabaseOptions())
	if err != nil {
		return err
	}
	defer d.Close()
	cnxn, err := d.Open(context.Background())
	if err != nil {
		return err
	}
	defer cnxn.Close()
	stmt, err := cnxn.NewStatement()
	if err != nil {
		return err
	}
	defer stmt.Close()
	if err := stmt.SetOption(adbc.OptionKeyIngestTargetTable, tableName); err != nil {
		return err
	}
	if err := stmt.SetOption(adbc.OptionKeyIngestMode, adbc.OptionValueIngestModeReplace); err != nil {
		return err
	}
	if err := stmt.Bind(context.Background(), r); err != nil {
		return err
	}
	_, err = stmt.ExecuteUpdate(context.Background())
	return err
}

// The ClickHouse type of each column is in its field's metadata.
func (q *quirks) SampleTableSchemaMetadata(_ string, dt arrow.DataType) arrow.Metadata {
	switch dt.ID() {
	case arrow.INT64:
		return arrow.NewMetadata([]string{"clickhouse.type"}, []string{"Nullable(Int64)"})
	case arrow.STRING:
		return arrow.NewMetadata([]string{"clickhouse.type"}, []string{"Nullable(String)"})
	}
	return arrow.Metadata{}
}

func (q *quirks) DropTable(cnxn adbc.Connection, name string) error {
	stmt, err := cnxn.NewStatement()
	if err != nil {
		return err
	}
	defer stmt.Close()
	if err := stmt.SetSqlQuery("DROP TABLE IF EXISTS `" + strings.ReplaceAll(name, "`", "\\`") + "`"); err != nil {
		return err
	}
	_, err = stmt.ExecuteUpdate(context.Background())
	return err
}

func newQuirks(t *testing.T) *quirks {
	lib := os.Getenv("CHWIRE_ADBC_DRIVER")
	if lib == "" {
		t.Skip("CHWIRE_ADBC_DRIVER (the driver library's path) is not set")
	}
	url := os.Getenv("CHWIRE_TEST_URL")
	if url == "" {
		url = "tcp://default@127.0.0.1:19000/default"
	}
	if !strings.HasPrefix(url, "tcp") {
		t.Skip("the validation suite runs over the native protocol")
	}
	// The server's URL without its database (the suite's own goes there).
	if i := strings.LastIndex(url, "/"); i > len("tcp://") {
		url = url[:i]
	}
	q := &quirks{url: url, lib: lib}
	if err := q.exec("default", "DROP DATABASE IF EXISTS "+database, "CREATE DATABASE "+database); err != nil {
		t.Fatalf("creating %s: %v", database, err)
	}
	t.Cleanup(func() { _ = q.exec("default", "DROP DATABASE IF EXISTS "+database) })
	q.version = serverVersion(t, q)
	return q
}

func serverVersion(t *testing.T, q *quirks) string {
	drv := &drivermgr.Driver{}
	d, err := drv.NewDatabase(q.options("default"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cnxn, err := d.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cnxn.Close()
	stmt, _ := cnxn.NewStatement()
	defer stmt.Close()
	_ = stmt.SetSqlQuery("SELECT version()")
	rdr, _, err := stmt.ExecuteQuery(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	rdr.Next()
	// A copy: the value points into the batch, released with the reader.
	return strings.Clone(rdr.RecordBatch().Column(0).ValueStr(0))
}

func TestValidation(t *testing.T) {
	q := newQuirks(t)
	t.Run("Database", func(t *testing.T) { suite.Run(t, &validation.DatabaseTests{Quirks: q}) })
	t.Run("Connection", func(t *testing.T) { suite.Run(t, &validation.ConnectionTests{Quirks: q}) })
	t.Run("Statement", func(t *testing.T) { suite.Run(t, &validation.StatementTests{Quirks: q}) })
}
