// Keeps N MiB live, collects, prints what runtime.ReadMemStats says, and
// idles a second so a sampler sees the state (tests/e2e/runtime_go.sh).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

var keep [][]byte

func main() {
	mib, _ := strconv.Atoi(os.Args[1])
	for i := 0; i < mib*4; i++ {
		keep = append(keep, make([]byte, 256<<10))
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("heap_alloc %d num_gc %d\n", m.HeapAlloc, m.NumGC)
	time.Sleep(time.Second)
	runtime.KeepAlive(keep)
}
