// pprofserve: holds MIB MiB live, allocated in growCache, and serves
// net/http/pprof on 127.0.0.1 (a port from the kernel, printed as
// "port N" once it listens) until stdin closes.  tests/e2e/snap_go.sh takes
// its /debug/pprof/heap with `tidemark snap go-heap` and checks that the
// profile names growCache.  Standard library only.
//
// usage: pprofserve MIB
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
)

var cache [][]byte

//go:noinline
func growCache(mib int) {
	for i := 0; i < mib*16; i++ {
		b := make([]byte, 64<<10)
		b[0] = byte(i)
		cache = append(cache, b)
	}
}

func main() {
	mib, _ := strconv.Atoi(os.Args[1])
	growCache(mib)
	runtime.GC() // the heap profile is as of the last GC
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("port %d\n", ln.Addr().(*net.TCPAddr).Port)
	go http.Serve(ln, nil)
	io.Copy(io.Discard, os.Stdin)
	fmt.Println(len(cache))
}
