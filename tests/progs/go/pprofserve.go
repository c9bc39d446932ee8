// pprofserve: holds MIB MiB live, allocated in growCache, and serves
// net/http/pprof on 127.0.0.1 (a port from the kernel, printed as
// "port N" once it listens) until stdin closes.  tests/e2e/snap_go.sh takes
// its /debug/pprof/heap with `tidemark snap go-heap` and checks that the
// profile names growCache.  Each line "grow N" on stdin allocates N MiB
// more in growCache, every page touched (tests/e2e/guard_go.sh: its anon
// rises when the test says).  Standard library only.
//
// usage: pprofserve MIB
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"strings"
)

var cache [][]byte

//go:noinline
func growCache(mib int, touch bool) {
	for i := 0; i < mib*16; i++ {
		b := make([]byte, 64<<10)
		b[0] = byte(i)
		for j := 4096; touch && j < len(b); j += 4096 {
			b[j] = byte(i)
		}
		cache = append(cache, b)
	}
}

func main() {
	mib, _ := strconv.Atoi(os.Args[1])
	growCache(mib, false)
	runtime.GC() // the heap profile is as of the last GC
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("port %d\n", ln.Addr().(*net.TCPAddr).Port)
	go http.Serve(ln, nil)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if n, err := strconv.Atoi(strings.TrimPrefix(in.Text(), "grow ")); err == nil {
			growCache(n, true)
			fmt.Printf("grew %d\n", n)
		}
	}
	fmt.Println(len(cache))
}
