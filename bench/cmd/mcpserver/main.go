// Command mcpserver serves one trivial tool, add {a, b}, with one of the MCP
// server implementations the benchmarks compare, over stdio or Streamable
// HTTP. It is built and driven by the benchmarks in the parent folder.
//
//	mcpserver -impl bridle|sdk|mcpgo|raw [-http 127.0.0.1:PORT]
//
// Variables for experiments, read at start:
//
//	MCPSERVER_GOGC=N          debug.SetGCPercent(N) (-1: off)
//	MCPSERVER_MEMLIMIT_MB=N   debug.SetMemoryLimit(N MiB)
//	MCPSERVER_PROCS=N         runtime.GOMAXPROCS(N)
//	MCPSERVER_CPUPROFILE=F    write a CPU profile to F (as -cpuprofile F)
//	MCPSERVER_MEMPROFILE=F    write an allocation profile to F at exit
//	MCPSERVER_MEMSTATS=F      write bytes allocated, allocations and GC
//	                          cycles to F at exit
//
// bridle-sdkio is Bridle's server's SDK server on the SDK's own stdio
// transport rather than the connection mcp.Server.Run gives it, stdio
// only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

func run() error {
	impl := flag.String("impl", "bridle", "server implementation: "+strings.Join(implNames(), ", "))
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	cpuprofile := flag.String("cpuprofile", os.Getenv("MCPSERVER_CPUPROFILE"), "write a CPU profile to this file")
	flag.Parse()
	serve, ok := impls[*impl]
	if !ok {
		return fmt.Errorf("unknown -impl %q: use one of %s", *impl, strings.Join(implNames(), ", "))
	}
	if v, err := strconv.Atoi(os.Getenv("MCPSERVER_GOGC")); err == nil {
		debug.SetGCPercent(v)
	}
	if v, err := strconv.Atoi(os.Getenv("MCPSERVER_MEMLIMIT_MB")); err == nil {
		debug.SetMemoryLimit(int64(v) << 20)
	}
	if v, err := strconv.Atoi(os.Getenv("MCPSERVER_PROCS")); err == nil {
		runtime.GOMAXPROCS(v)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("MCPSERVER_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		defer writeProfile(path, "allocs")
	}
	if path := os.Getenv("MCPSERVER_MEMSTATS"); path != "" {
		defer writeMemStats(path)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *addr); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// impls maps an implementation name to a function that serves the add tool
// over stdio (addr empty) or HTTP until ctx ends.
var impls = map[string]func(ctx context.Context, addr string) error{
	"bridle": serveBridle,
	"sdk":    serveSDK,
	"mcpgo":  serveMCPGo,
	"raw":    serveRaw,

	// Experiments, not in the default rows.
	"bridle-sdkio": serveSDKIO,
}

func implNames() []string {
	var names []string
	for name := range impls {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func writeProfile(path, name string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		return
	}
	defer f.Close()
	pprof.Lookup(name).WriteTo(f, 0)
}

func writeMemStats(path string) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	data := fmt.Sprintf("total_alloc %d\nmallocs %d\nnum_gc %d\n", m.TotalAlloc, m.Mallocs, m.NumGC)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
	}
}
