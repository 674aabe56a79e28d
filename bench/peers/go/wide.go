// W7 (the wide table read whole), W7i (a 100,000-row block of it inserted 100 times into a
// Null table), W8 (10M strings of 1-200 bytes) and W10q/W10i (tasks sharing one pool) for
// ch-go and clickhouse-go (bench/PEERS.md).
package main

import (
	"context"
	"fmt"

	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/chpool"
	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

const (
	w7SQL      = "SELECT * FROM chwire_bench_w7"
	w7BlockSQL = "SELECT * FROM chwire_bench_w7 WHERE id < 100000 ORDER BY id"
	w7SinkSQL  = "INSERT INTO chwire_bench_w7_sink VALUES"
	w7iRepeats = 100
	w10qTasks  = 64
	w10qTotal  = 20000
	w10iTasks  = 16
	w10iBlocks = 160
	poolSize   = 64
)

func w8SQL() string {
	return "SELECT substring('" + strings.Repeat("x", 200) + "', 1, number % 200 + 1) AS s FROM system.numbers LIMIT 10000000"
}

// concurrent runs total operations on tasks goroutines (each takes the next operation number
// from a shared counter); op returns (rows, check). extra gets throughput and latencies.
func concurrent(tasks int, total uint64, op func(i uint64) (uint64, uint64, error)) (result, error) {
	var (
		next    atomic.Uint64
		mu      sync.Mutex
		lat     []time.Duration
		res     result
		firstEr error
		wg      sync.WaitGroup
	)
	start := time.Now()
	for t := 0; t < tasks; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			var rows, check uint64
			for {
				i := next.Add(1) - 1
				if i >= total {
					break
				}
				s := time.Now()
				r, c, err := op(i)
				if err != nil {
					mu.Lock()
					if firstEr == nil {
						firstEr = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(s))
				rows += r
				check += c
			}
			mu.Lock()
			lat = append(lat, mine...)
			res.rows += rows
			res.check += check
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	if firstEr != nil {
		return res, firstEr
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(float64(len(lat)-1)*p+0.5)].Seconds() * 1e3
	}
	res.extra = fmt.Sprintf(" ops_s=%.1f p50_ms=%.3f p99_ms=%.3f", float64(total)/res.wall.Seconds(), pct(0.5), pct(0.99))
	return res, nil
}

// ---------------------------------------------------------------- ch-go

// wideCols are W7's columns as ch-go's typed columns.
type wideCols struct {
	id       proto.ColUInt64
	ts       *proto.ColDateTime64
	userID   proto.ColUInt32
	session  proto.ColUUID
	ip       proto.ColIPv6
	country  *proto.ColLowCardinality[string]
	event    proto.ColEnum
	url      proto.ColStr
	referrer *proto.ColNullable[string]
	tags     *proto.ColArr[string]
	props    *proto.ColMap[string, uint64]
	price    proto.ColDecimal64
	quantity proto.ColInt32
	score    proto.ColFloat64
	duration *proto.ColNullable[uint32]
	isBot    proto.ColUInt8
	device   *proto.ColLowCardinality[string]
	latency  proto.ColFloat32
	day      proto.ColDate
	note     proto.ColStr
}

func newWideCols() *wideCols {
	return &wideCols{
		ts:       new(proto.ColDateTime64).WithPrecision(proto.PrecisionMilli),
		country:  new(proto.ColStr).LowCardinality(),
		referrer: new(proto.ColStr).Nullable(),
		tags:     new(proto.ColStr).Array(),
		props:    proto.NewMap[string, uint64](new(proto.ColStr), new(proto.ColUInt64)),
		duration: new(proto.ColUInt32).Nullable(),
		device:   new(proto.ColStr).LowCardinality(),
	}
}

var wideNames = []string{"id", "ts", "user_id", "session", "ip", "country", "event", "url", "referrer", "tags", "props",
	"price", "quantity", "score", "duration_ms", "is_bot", "device", "latency", "day", "note"}

func (w *wideCols) cols() []proto.Column {
	return []proto.Column{&w.id, w.ts, &w.userID, &w.session, &w.ip, w.country, &w.event, &w.url, w.referrer, w.tags, w.props,
		&w.price, &w.quantity, &w.score, w.duration, &w.isBot, w.device, &w.latency, &w.day, &w.note}
}

func (w *wideCols) results() proto.Results {
	var r proto.Results
	for i, c := range w.cols() {
		r = append(r, proto.ResultColumn{Name: wideNames[i], Data: c.(proto.ColResult)})
	}
	return r
}

func (w *wideCols) input() proto.Input {
	var in proto.Input
	for i, c := range w.cols() {
		if c == proto.Column(&w.price) {
			// ColDecimal64 names its type Decimal64, without the scale the server needs.
			c = proto.Alias(c, "Decimal(18, 4)")
		}
		in = append(in, proto.InputColumn{Name: wideNames[i], Data: c.(proto.ColInput)})
	}
	return in
}

func w5Input(b uint64) (proto.Input, uint64) {
	var (
		id    proto.ColUInt64
		name  proto.ColStr
		value proto.ColFloat64
		ts    proto.ColDateTime
		buf   []byte
		sum   uint64
	)
	for i := b * w5Block; i < (b+1)*w5Block; i++ {
		id.Append(i)
		buf = strconv.AppendUint(append(buf[:0], "name-"...), i, 10)
		name.AppendBytes(buf)
		value.Append(float64(i) * 0.5)
		ts.AppendRaw(proto.DateTime(1600000000 + i%86400))
		sum += i
	}
	return proto.Input{{Name: "id", Data: &id}, {Name: "name", Data: &name}, {Name: "value", Data: &value}, {Name: "ts", Data: &ts}}, sum
}

func runChGoMore(ctx context.Context, a args) (result, error) {
	if server18() && (a.workload == "W7" || a.workload == "W7i") {
		return result{}, errUnsupported{"ClickHouse 18.16 has no Map, IPv6, DateTime64 or sparse columns (W7 is 26.9 only)"}
	}
	switch a.workload {
	case "W10q", "W10i":
		pool, err := chpool.Dial(ctx, chpool.Options{ClientOptions: chgoOptions(a), MaxConns: poolSize})
		if err != nil {
			return result{}, err
		}
		defer pool.Close()
		if a.workload == "W10q" {
			body := selectN(3)
			return concurrent(w10qTasks, w10qTotal, func(uint64) (uint64, uint64, error) {
				cols := make([]proto.ColUInt64, 3)
				results := make(proto.Results, 3)
				for i := range cols {
					results[i] = proto.ResultColumn{Name: "number", Data: &cols[i]}
				}
				var rows, check uint64
				err := pool.Do(ctx, ch.Query{Body: body, Result: results, OnResult: func(ctx context.Context, b proto.Block) error {
					rows += uint64(len(cols[0]))
					for i := range cols {
						for _, v := range cols[i] {
							check += v
						}
					}
					return nil
				}})
				return rows, check, err
			})
		}
		return concurrent(w10iTasks, w10iBlocks, func(b uint64) (uint64, uint64, error) {
			in, sum := w5Input(b)
			err := pool.Do(ctx, ch.Query{Body: w5SQL, Input: in})
			return w5Block, sum, err
		})
	}

	c, err := chgoDial(ctx, a)
	if err != nil {
		return result{}, err
	}
	defer c.Close()
	var res result
	switch a.workload {
	case "W7":
		w := newWideCols()
		var touched int
		start := time.Now()
		err = c.Do(ctx, ch.Query{Body: w7SQL, Result: w.results(), OnResult: func(ctx context.Context, b proto.Block) error {
			res.rows += uint64(len(w.id))
			for _, v := range w.id {
				res.check += v
			}
			touched += w.tags.Rows() + w.props.Rows() + len(w.note.Buf)
			return nil
		}})
		res.wall = time.Since(start)
	case "W7i":
		w := newWideCols()
		blocks := 0
		err = c.Do(ctx, ch.Query{Body: w7BlockSQL, Result: w.results(),
			// One block of the 100,000 rows (the harness holds one set of columns): no
			// read-in-order (its blocks follow the 1 MB preferred block size), one sort output block.
			Settings: []ch.Setting{{Key: "max_block_size", Value: "100000"}, {Key: "optimize_read_in_order", Value: "0"},
				{Key: "preferred_block_size_bytes", Value: "1000000000"}},
			OnResult: func(ctx context.Context, b proto.Block) error {
				if b.Rows > 0 {
					blocks++
				}
				return nil
			}})
		if err != nil {
			return res, err
		}
		if blocks != 1 {
			return res, fmt.Errorf("W7i: the block query returned %d blocks; this harness holds one", blocks)
		}
		var sum uint64
		for _, v := range w.id {
			sum += v
		}
		start := time.Now()
		for r := 0; r < w7iRepeats && err == nil; r++ {
			err = c.Do(ctx, ch.Query{Body: w7SinkSQL, Input: w.input()})
			res.rows += uint64(len(w.id))
			res.check += sum
		}
		res.wall = time.Since(start)
	case "W8":
		var s proto.ColStr
		start := time.Now()
		err = c.Do(ctx, ch.Query{Body: w8SQL(), Result: proto.Results{{Name: "s", Data: &s}},
			OnResult: func(ctx context.Context, b proto.Block) error {
				res.rows += uint64(s.Rows())
				res.check += uint64(len(s.Buf))
				return nil
			}})
		res.wall = time.Since(start)
	}
	return res, err
}

// -------------------------------------------------------- clickhouse-go

func scanDest(rows driver.Rows) []any {
	types := rows.ColumnTypes()
	dest := make([]any, len(types))
	for i, t := range types {
		dest[i] = reflect.New(t.ScanType()).Interface()
	}
	return dest
}

func runClickhouseGoMore(ctx context.Context, a args) (result, error) {
	if server18() && (a.workload == "W7" || a.workload == "W7i") {
		return result{}, errUnsupported{"ClickHouse 18.16 has no Map, IPv6, DateTime64 or sparse columns (W7 is 26.9 only)"}
	}
	opt := chgoV2Options(a)
	if a.workload == "W10q" || a.workload == "W10i" {
		// The driver's connection pool, shared by every goroutine.
		opt.MaxOpenConns, opt.MaxIdleConns = poolSize, poolSize
	}
	conn, err := clickhouse.Open(opt)
	if err != nil {
		return result{}, err
	}
	defer conn.Close()
	if err := conn.Ping(ctx); err != nil {
		return result{}, err
	}
	var res result
	switch a.workload {
	case "W7":
		start := time.Now()
		err = cgQuery(ctx, conn, w7SQL, func(rows driver.Rows) error {
			dest := scanDest(rows)
			for rows.Next() {
				if err := rows.Scan(dest...); err != nil {
					return err
				}
				res.check += *dest[0].(*uint64)
				res.rows++
			}
			return nil
		})
		res.wall = time.Since(start)
	case "W7i":
		var block [][]any
		var sum uint64
		err = cgQuery(ctx, conn, w7BlockSQL, func(rows driver.Rows) error {
			for rows.Next() {
				dest := scanDest(rows)
				if err := rows.Scan(dest...); err != nil {
					return err
				}
				row := make([]any, len(dest))
				for i, d := range dest {
					row[i] = reflect.ValueOf(d).Elem().Interface()
				}
				sum += row[0].(uint64)
				block = append(block, row)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		start := time.Now()
		for r := 0; r < w7iRepeats && err == nil; r++ {
			var batch driver.Batch
			if batch, err = conn.PrepareBatch(ctx, w7SinkSQL); err != nil {
				break
			}
			for _, row := range block {
				if err = batch.Append(row...); err != nil {
					break
				}
			}
			if err == nil {
				err = batch.Send()
			}
			res.rows += uint64(len(block))
			res.check += sum
		}
		res.wall = time.Since(start)
	case "W8":
		start := time.Now()
		err = cgQuery(ctx, conn, w8SQL(), func(rows driver.Rows) error {
			var s string
			for rows.Next() {
				if err := rows.Scan(&s); err != nil {
					return err
				}
				res.check += uint64(len(s))
				res.rows++
			}
			return nil
		})
		res.wall = time.Since(start)
	case "W10q":
		body := selectN(3)
		return concurrent(w10qTasks, w10qTotal, func(uint64) (uint64, uint64, error) {
			var rows, check uint64
			vals := make([]uint64, 3)
			err := cgQuery(ctx, conn, body, func(r driver.Rows) error {
				for r.Next() {
					if err := r.Scan(&vals[0], &vals[1], &vals[2]); err != nil {
						return err
					}
					check += vals[0] + vals[1] + vals[2]
					rows++
				}
				return nil
			})
			return rows, check, err
		})
	case "W10i":
		return concurrent(w10iTasks, w10iBlocks, func(b uint64) (uint64, uint64, error) {
			batch, err := conn.PrepareBatch(ctx, w5SQL)
			if err != nil {
				return 0, 0, err
			}
			defer batch.Close()
			var sum uint64
			ids := make([]uint64, 0, w5Block)
			names := make([]string, 0, w5Block)
			values := make([]float64, 0, w5Block)
			tss := make([]time.Time, 0, w5Block)
			for i := b * w5Block; i < (b+1)*w5Block; i++ {
				ids = append(ids, i)
				names = append(names, "name-"+strconv.FormatUint(i, 10))
				values = append(values, float64(i)*0.5)
				tss = append(tss, time.Unix(int64(1600000000+i%86400), 0))
				sum += i
			}
			for i, col := range []any{ids, names, values, tss} {
				if err := batch.Column(i).Append(col); err != nil {
					return 0, 0, err
				}
			}
			return w5Block, sum, batch.Send()
		})
	}
	return res, err
}
