// Benchmark peer for the Go ClickHouse clients ch-go and clickhouse-go v2.
// Implements the protocol of bench/PEERS.md (workloads W1–W8, W10q, W10i; compression
// none|lz4|zstd). wide.go has W7, W7i, W8 and the concurrent W10q/W10i.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

const (
	w1SQL = "SELECT number FROM system.numbers LIMIT 100000000"
	w2SQL = "SELECT number, toString(number) AS s, toFloat64(number) AS f, toDateTime(number) AS t FROM system.numbers LIMIT 10000000"
	w5SQL = "INSERT INTO chwire_bench_w5 (id, name, value, ts) VALUES"

	w5Total  = 10_000_000
	w5Block  = 100_000
	repeats  = 2000 // W3 and W4
	connects = 200  // W6

	// ch-go sends no ClientInfo for revisions 54032..54419; ClickHouse 18.16
	// (revision 54413) requires it, so pin the revision below that range there
	// (CHWIRE_BENCH_SERVER=18.16; against 26.9 ch-go announces its own revision).
	chgoProtocolVersion18 = 54031
)

type args struct {
	client, workload, compression, host string
	port, httpPort                      int
}

type result struct {
	wall  time.Duration
	rows  uint64
	check uint64
	extra string // more key=value pairs for the RESULT line (W10: latencies)
}

// errUnsupported makes main print an UNSUPPORTED line and exit 0.
type errUnsupported struct{ reason string }

func (e errUnsupported) Error() string { return e.reason }

func main() {
	var a args
	flag.StringVar(&a.client, "client", "", "ch-go | clickhouse-go")
	flag.StringVar(&a.workload, "workload", "", "W1..W8, W7i, W10q, W10i")
	flag.StringVar(&a.compression, "compression", "none", "none | lz4 | zstd")
	flag.StringVar(&a.host, "host", "127.0.0.1", "server host")
	flag.IntVar(&a.port, "port", 9000, "native TCP port")
	flag.IntVar(&a.httpPort, "http-port", 8123, "HTTP port (unused: both clients are native)")
	flag.Parse()

	if a.compression != "none" && a.compression != "lz4" && a.compression != "zstd" {
		fatalf("unknown compression %q", a.compression)
	}
	switch a.workload {
	case "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W7i", "W8", "W10q", "W10i":
	default:
		fatalf("unknown workload %q", a.workload)
	}

	ctx := context.Background()
	var (
		res result
		err error
	)
	switch a.client {
	case "ch-go":
		res, err = runChGo(ctx, a)
	case "clickhouse-go":
		res, err = runClickhouseGo(ctx, a)
	default:
		fatalf("unknown client %q", a.client)
	}
	var unsup errUnsupported
	if errors.As(err, &unsup) {
		fmt.Printf("UNSUPPORTED client=%s workload=%s compression=%s reason=%s\n",
			a.client, a.workload, a.compression, oneLine(unsup.reason))
		return
	}
	if err != nil {
		fatalf("%s %s %s: %v", a.client, a.workload, a.compression, err)
	}
	fmt.Printf("RESULT client=%s workload=%s compression=%s wall_s=%.6f rows=%d check=%d%s\n",
		a.client, a.workload, a.compression, res.wall.Seconds(), res.rows, res.check, res.extra)
}

func fatalf(format string, v ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", v...)
	os.Exit(1)
}

func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

func addr(a args) string { return net.JoinHostPort(a.host, strconv.Itoa(a.port)) }

// checkMixed verifies the W2 side columns: toFloat64(number) and toDateTime(number)
// must each add up to the same sum as number itself.
func checkMixed(sumN, sumF, sumT uint64) error {
	if sumF != sumN || sumT != sumN {
		return fmt.Errorf("W2 column mismatch: sum(number)=%d sum(f)=%d sum(t)=%d", sumN, sumF, sumT)
	}
	return nil
}

// ---------------------------------------------------------------- ch-go

func chgoOptions(a args) ch.Options {
	opt := ch.Options{
		Address:     addr(a),
		ReadTimeout: ch.NoTimeout,
		Compression: ch.CompressionDisabled,
	}
	if server18() {
		opt.ProtocolVersion = chgoProtocolVersion18
	}
	switch a.compression {
	case "lz4":
		opt.Compression = ch.CompressionLZ4
	case "zstd":
		opt.Compression = ch.CompressionZSTD
	}
	// The compression flag of the native protocol only says "compressed": the server picks
	// the method of its blocks from network_compression_method (ZSTD by default on 26.9).
	// Ask for the method the run names, as chwire does; lower case is what 18.16 takes.
	if a.compression != "none" {
		opt.Settings = append(opt.Settings, ch.Setting{Key: "network_compression_method", Value: a.compression})
	}
	return opt
}

func chgoDial(ctx context.Context, a args) (*ch.Client, error) {
	return ch.Dial(ctx, chgoOptions(a))
}

func server18() bool { return strings.HasPrefix(os.Getenv("CHWIRE_BENCH_SERVER"), "18.") }

func runChGo(ctx context.Context, a args) (result, error) {
	switch a.workload {
	case "W7", "W7i", "W8", "W10q", "W10i":
		return runChGoMore(ctx, a)
	}
	if a.workload == "W6" {
		var res result
		start := time.Now()
		for i := 0; i < connects; i++ {
			c, err := chgoDial(ctx, a)
			if err != nil {
				return res, err
			}
			var one proto.ColUInt8
			if err := c.Do(ctx, ch.Query{Body: "SELECT 1", Result: proto.Results{{Name: "1", Data: &one}}}); err != nil {
				return res, err
			}
			for _, v := range one {
				res.check += uint64(v)
			}
			res.rows += uint64(len(one))
			if err := c.Close(); err != nil {
				return res, err
			}
		}
		res.wall = time.Since(start)
		return res, nil
	}

	c, err := chgoDial(ctx, a)
	if err != nil {
		return result{}, err
	}
	defer c.Close()

	var res result
	start := time.Now()
	switch a.workload {
	case "W1":
		var n proto.ColUInt64
		err = c.Do(ctx, ch.Query{
			Body:   w1SQL,
			Result: proto.Results{{Name: "number", Data: &n}},
			OnResult: func(ctx context.Context, b proto.Block) error {
				res.rows += uint64(len(n))
				for _, v := range n {
					res.check += v
				}
				return nil
			},
		})
	case "W2":
		var (
			n                proto.ColUInt64
			s                proto.ColStr
			f                proto.ColFloat64
			t                proto.ColDateTime
			sumN, sumF, sumT uint64
			strBytes         uint64
		)
		err = c.Do(ctx, ch.Query{
			Body: w2SQL,
			Result: proto.Results{
				{Name: "number", Data: &n},
				{Name: "s", Data: &s},
				{Name: "f", Data: &f},
				{Name: "t", Data: &t},
			},
			OnResult: func(ctx context.Context, b proto.Block) error {
				res.rows += uint64(len(n))
				for _, v := range n {
					sumN += v
				}
				_ = s.ForEachBytes(func(_ int, b []byte) error {
					strBytes += uint64(len(b))
					return nil
				})
				for _, v := range f {
					sumF += uint64(v)
				}
				for _, v := range t.Data {
					sumT += uint64(v)
				}
				return nil
			},
		})
		if err == nil {
			err = checkMixed(sumN, sumF, sumT)
		}
		res.check = sumN + strBytes
	case "W3", "W4":
		ncols := 3
		if a.workload == "W4" {
			ncols = 10
		}
		body := selectN(ncols)
		cols := make([]proto.ColUInt64, ncols)
		results := make(proto.Results, ncols)
		for i := range cols {
			results[i] = proto.ResultColumn{Name: "number", Data: &cols[i]}
		}
		for q := 0; q < repeats && err == nil; q++ {
			err = c.Do(ctx, ch.Query{
				Body:   body,
				Result: results,
				OnResult: func(ctx context.Context, b proto.Block) error {
					res.rows += uint64(len(cols[0]))
					for i := range cols {
						for _, v := range cols[i] {
							res.check += v
						}
					}
					return nil
				},
			})
		}
	case "W5":
		var (
			id    proto.ColUInt64
			name  proto.ColStr
			value proto.ColFloat64
			ts    proto.ColDateTime
			next  uint64
			buf   []byte
		)
		err = c.Do(ctx, ch.Query{
			Body: w5SQL,
			Input: proto.Input{
				{Name: "id", Data: &id},
				{Name: "name", Data: &name},
				{Name: "value", Data: &value},
				{Name: "ts", Data: &ts},
			},
			OnInput: func(ctx context.Context) error {
				id.Reset()
				name.Reset()
				value.Reset()
				ts.Reset()
				if next >= w5Total {
					return io.EOF
				}
				end := min(next+w5Block, w5Total)
				for i := next; i < end; i++ {
					id.Append(i)
					buf = strconv.AppendUint(append(buf[:0], "name-"...), i, 10)
					name.AppendBytes(buf)
					value.Append(float64(i) * 0.5)
					ts.AppendRaw(proto.DateTime(1600000000 + i%86400))
					res.check += i
				}
				res.rows += end - next
				next = end
				return nil
			},
		})
	}
	res.wall = time.Since(start)
	return res, err
}

// selectN returns the W3/W4 query: ncols `number` columns.
func selectN(ncols int) string {
	limit := 1000
	if ncols == 10 {
		limit = 100
	}
	body := "SELECT number"
	for i := 1; i < ncols; i++ {
		body += ", number"
	}
	return body + " FROM system.numbers LIMIT " + strconv.Itoa(limit)
}

// -------------------------------------------------------- clickhouse-go

func chgoV2Options(a args) *clickhouse.Options {
	opt := &clickhouse.Options{
		Addr:     []string{addr(a)},
		Protocol: clickhouse.Native,
		Auth:     clickhouse.Auth{Database: "default", Username: "default"},
		// One connection, reused by W1–W5; W6 opens a fresh client per connect.
		MaxOpenConns: 1,
		MaxIdleConns: 1,
		ReadTimeout:  time.Hour,
	}
	switch a.compression {
	case "lz4":
		opt.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	case "zstd":
		opt.Compression = &clickhouse.Compression{Method: clickhouse.CompressionZSTD}
	}
	if a.compression != "none" && !server18() {
		// As for ch-go: the server's blocks follow network_compression_method. Not against
		// 18.16, whose default is LZ4 anyway: at its revision clickhouse-go sends settings
		// typed and refuses this one ("unsupported data type").
		opt.Settings = clickhouse.Settings{"network_compression_method": a.compression}
	}
	return opt
}

func runClickhouseGo(ctx context.Context, a args) (result, error) {
	switch a.workload {
	case "W7", "W7i", "W8", "W10q", "W10i":
		return runClickhouseGoMore(ctx, a)
	}
	if a.workload == "W6" {
		var res result
		start := time.Now()
		for i := 0; i < connects; i++ {
			conn, err := clickhouse.Open(chgoV2Options(a))
			if err != nil {
				return res, err
			}
			var one uint8
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				return res, err
			}
			res.check += uint64(one)
			res.rows++
			if err := conn.Close(); err != nil {
				return res, err
			}
		}
		res.wall = time.Since(start)
		return res, nil
	}

	conn, err := clickhouse.Open(chgoV2Options(a))
	if err != nil {
		return result{}, err
	}
	defer conn.Close()
	// clickhouse.Open dials lazily: establish the connection before the clock starts.
	if err := conn.Ping(ctx); err != nil {
		return result{}, err
	}

	var res result
	start := time.Now()
	switch a.workload {
	case "W1":
		err = cgQuery(ctx, conn, w1SQL, func(rows driver.Rows) error {
			var n uint64
			for rows.Next() {
				if err := rows.Scan(&n); err != nil {
					return err
				}
				res.check += n
				res.rows++
			}
			return nil
		})
	case "W2":
		var sumN, sumF, sumT, strBytes uint64
		err = cgQuery(ctx, conn, w2SQL, func(rows driver.Rows) error {
			var (
				n uint64
				s string
				f float64
				t time.Time
			)
			for rows.Next() {
				if err := rows.Scan(&n, &s, &f, &t); err != nil {
					return err
				}
				sumN += n
				strBytes += uint64(len(s))
				sumF += uint64(f)
				sumT += uint64(t.Unix())
				res.rows++
			}
			return nil
		})
		if err == nil {
			err = checkMixed(sumN, sumF, sumT)
		}
		res.check = sumN + strBytes
	case "W3", "W4":
		ncols := 3
		if a.workload == "W4" {
			ncols = 10
		}
		body := selectN(ncols)
		vals := make([]uint64, ncols)
		dest := make([]any, ncols)
		for i := range vals {
			dest[i] = &vals[i]
		}
		for q := 0; q < repeats && err == nil; q++ {
			err = cgQuery(ctx, conn, body, func(rows driver.Rows) error {
				for rows.Next() {
					if err := rows.Scan(dest...); err != nil {
						return err
					}
					for _, v := range vals {
						res.check += v
					}
					res.rows++
				}
				return nil
			})
		}
	case "W5":
		var batch driver.Batch
		batch, err = conn.PrepareBatch(ctx, w5SQL)
		if err != nil {
			return res, err
		}
		defer batch.Close()
		ids := make([]uint64, w5Block)
		names := make([]string, w5Block)
		values := make([]float64, w5Block)
		tss := make([]time.Time, w5Block)
		for next := uint64(0); next < w5Total && err == nil; next += w5Block {
			end := min(next+w5Block, w5Total)
			k := int(end - next)
			for j := 0; j < k; j++ {
				i := next + uint64(j)
				ids[j] = i
				names[j] = "name-" + strconv.FormatUint(i, 10)
				values[j] = float64(i) * 0.5
				tss[j] = time.Unix(int64(1600000000+i%86400), 0)
				res.check += i
			}
			if err = batch.Column(0).Append(ids[:k]); err != nil {
				break
			}
			if err = batch.Column(1).Append(names[:k]); err != nil {
				break
			}
			if err = batch.Column(2).Append(values[:k]); err != nil {
				break
			}
			if err = batch.Column(3).Append(tss[:k]); err != nil {
				break
			}
			res.rows += uint64(k)
			err = batch.Flush()
		}
		if err == nil {
			err = batch.Send()
		}
	}
	res.wall = time.Since(start)
	return res, err
}

func cgQuery(ctx context.Context, conn driver.Conn, sql string, consume func(driver.Rows) error) error {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return err
	}
	if err := consume(rows); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}
