// promserve: holds MIB MiB live and serves its own runtime figures, read
// with runtime.ReadMemStats at each request, as Prometheus text on
// 127.0.0.1:PORT/metrics, named as client_golang names them
// (go_memstats_heap_alloc_bytes, go_memstats_heap_inuse_bytes,
// go_gc_duration_seconds{quantile}, _sum, _count), with an app gauge with
// labels, a counter and a histogram.  Each answer is logged on stdout
// ("served N heap_alloc A heap_inuse I num_gc G") as it is sent, so a test
// compares what tidemark stored with what the program itself said.  It
// churns garbage for SECONDS, then exits.  Standard library only.
//
// usage: promserve MIB SECONDS PORT
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

var hold [][]byte
var sink []byte

func main() {
	mib, _ := strconv.Atoi(os.Args[1])
	secs, _ := strconv.ParseFloat(os.Args[2], 64)
	for i := 0; i < mib; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		hold = append(hold, b)
	}
	runtime.GC()
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	served := 0
	http.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		var m runtime.MemStats
		mu.Lock()
		defer mu.Unlock()
		runtime.ReadMemStats(&m)
		served++
		body := fmt.Sprintf("# HELP go_memstats_heap_alloc_bytes Number of heap bytes allocated and still in use.\n"+
			"# TYPE go_memstats_heap_alloc_bytes gauge\n"+
			"go_memstats_heap_alloc_bytes %d\n"+
			"# TYPE go_memstats_heap_inuse_bytes gauge\n"+
			"go_memstats_heap_inuse_bytes %d\n"+
			"# TYPE go_gc_duration_seconds summary\n"+
			"go_gc_duration_seconds{quantile=\"0.5\"} %g\n"+
			"go_gc_duration_seconds_sum %g\n"+
			"go_gc_duration_seconds_count %d\n"+
			"# TYPE app_held_bytes gauge\n"+
			"app_held_bytes{kind=\"slabs\",zone=\"a\"} %d\n"+
			"# TYPE app_requests_total counter\n"+
			"app_requests_total %d\n"+
			"# TYPE app_latency_seconds histogram\n"+
			"app_latency_seconds_bucket{le=\"0.1\"} %d\n"+
			"app_latency_seconds_bucket{le=\"+Inf\"} %d\n"+
			"app_latency_seconds_sum %g\n"+
			"app_latency_seconds_count %d\n",
			m.HeapAlloc, m.HeapInuse, float64(m.PauseNs[(m.NumGC+255)%256])/1e9,
			float64(m.PauseTotalNs)/1e9, m.NumGC, len(hold)<<20, served,
			served, served, float64(served)*0.01, served)
		fmt.Printf("served %d heap_alloc %d heap_inuse %d num_gc %d\n", served, m.HeapAlloc,
			m.HeapInuse, m.NumGC)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write([]byte(body))
	})
	go http.Serve(ln, nil)
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for time.Now().Before(end) {
		sink = make([]byte, 256<<10)
		time.Sleep(2 * time.Millisecond)
	}
	runtime.KeepAlive(hold)
}
